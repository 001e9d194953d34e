import type { KubeObject } from "@kubekit/generic-controlplane";
import { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../../test/kubectl.js";
import { startSimCluster, type SimCluster } from "../cluster.js";
import { PODS } from "../refs.js";
import { SharedNodePods } from "./node-pods.js";

let cluster: SimCluster | undefined;
const closers: Array<() => unknown> = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
  await cluster?.close();
  cluster = undefined;
});

/** The pod watchers the server has registered (its `apiserver_registered_watchers` gauge). */
async function podWatchers(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split("\n").find((l) => l.startsWith("apiserver_registered_watchers{") && l.includes('kind="Pod"'));
  return line === undefined ? 0 : Number(line.split(" ").pop());
}

const unscheduled = (name: string, nodeName?: string) => ({
  metadata: { name },
  // A scheduler nobody runs: the pod stays unbound until the test binds it.
  spec: { schedulerName: "none", containers: [{ name: "c", image: "x" }], ...(nodeName !== undefined ? { nodeName } : {}) },
});

describe("SharedNodePods", { timeout: 30_000 }, () => {
  it("hands each node only the pods bound to it, as a kubelet's spec.nodeName informer would", async () => {
    cluster = await startSimCluster({ nodes: 1 });
    const client = new KubeClient({ server: cluster.url });
    closers.push(() => client.close());
    // Bound before the informer starts: delivered as part of the initial list.
    await client.create(PODS, "default", unscheduled("early", "ghost-a"));
    const shared = new SharedNodePods(client);
    shared.start();
    closers.push(() => shared.stop());
    const seen: Record<string, string[]> = { a: [], b: [] };
    for (const [node, log] of [
      ["ghost-a", seen.a!],
      ["ghost-b", seen.b!],
    ] as const) {
      const view = shared.forNode(node);
      view.addEventHandler({
        add: (pod: KubeObject, initial: boolean) => log.push(`add ${pod.metadata?.name} ${initial}`),
        update: (_old: KubeObject, pod: KubeObject) => log.push(`update ${pod.metadata?.name}`),
        delete: (pod: KubeObject) => log.push(`delete ${pod.metadata?.name}`),
      });
      view.start();
      await view.waitForSync();
      closers.push(() => view.stop());
    }
    expect(seen.a).toEqual(["add early true"]);

    await client.create(PODS, "default", unscheduled("late"));
    await client.request("POST", "/api/v1/namespaces/default/pods/late/binding", {
      body: { apiVersion: "v1", kind: "Binding", metadata: { name: "late" }, target: { apiVersion: "v1", kind: "Node", name: "ghost-b" } },
    });
    await eventually("the binding to reach ghost-b's view", () => Promise.resolve(seen.b!.includes("add late false") || undefined));
    await client.patch(PODS, "default", "late", { metadata: { labels: { x: "y" } } }, "application/merge-patch+json");
    await client.delete(PODS, "default", "late", { gracePeriodSeconds: 0 });
    await eventually("the delete to reach ghost-b's view", () => Promise.resolve(seen.b!.includes("delete late") || undefined));

    expect(seen.b).toEqual(["add late false", "update late", "delete late"]);
    expect(seen.a).toEqual(["add early true"]);
    expect(
      shared
        .forNode("ghost-a")
        .cache.list()
        .map((p) => p.metadata?.name),
    ).toEqual(["early"]);
    expect(shared.forNode("ghost-b").cache.get("default/late")).toBeUndefined();
  });

  it("keeps one pod watch for the cluster's kubelets however many nodes it runs", async () => {
    cluster = await startSimCluster({ nodes: 1 });
    // Controllers open their watches as they start: count once the number holds.
    const settled = async () => {
      let last = -1;
      for (;;) {
        await new Promise((resolve) => setTimeout(resolve, 300));
        const now = await podWatchers(cluster!.url);
        if (now === last) return now;
        last = now;
      }
    };
    const oneNode = await settled();
    for (let i = 0; i < 5; i++) await cluster.addNode();
    expect(await settled()).toBe(oneNode);
  });
});
