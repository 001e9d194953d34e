import { describe, expect, it } from "vitest";
import { useSimClusterPerTest } from "../../test/fixture.js";
import { eventually } from "../../test/kubectl.js";
import { servedRequests } from "../../test/metrics.js";
import type { Pod } from "../resources/pods.js";
import { PODS } from "../refs.js";

/** The pod status writes the server answered, refused ones included. */
function statusWrites(url: string): Promise<number> {
  return servedRequests(url, (l) => l.includes('resource="pods"') && l.includes('subresource="status"') && /verb="(PATCH|PUT)"/.test(l));
}

const sim = useSimClusterPerTest();
const PODS_COUNT = 10;

describe("kubelet status writes", { timeout: 30_000 }, () => {
  // The status manager writes a status only when it differs from what the API holds
  // (isPodStatusByKubeletEqual); the update event of its own write must not send it again.
  it("a pod going Running costs one status write, and a change that leaves its status alone none", async () => {
    await sim.start({ nodes: 2 });
    const c = sim.client;
    const before = await statusWrites(sim.cluster.url);
    for (let i = 0; i < PODS_COUNT; i++)
      await c.create(PODS, "default", { metadata: { name: `p-${i}` }, spec: { containers: [{ name: "c", image: "busybox" }] } });
    await eventually("all Running", async () => {
      const pods = (await c.list<Pod>(PODS, "default")).items;
      return pods.filter((p) => p.status?.phase === "Running").length === PODS_COUNT ? true : undefined;
    });
    // Each kubelet has seen its own write come back by now.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await statusWrites(sim.cluster.url)) - before).toBe(PODS_COUNT);

    for (let i = 0; i < PODS_COUNT; i++)
      await c.patch(PODS, "default", `p-${i}`, { metadata: { labels: { touched: "yes" } } }, "application/merge-patch+json");
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect((await statusWrites(sim.cluster.url)) - before).toBe(PODS_COUNT);
  });
});
