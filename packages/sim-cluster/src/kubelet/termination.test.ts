import type { WatchEvent } from "@kubekit/generic-controlplane";
import { ApiError, KubeClient } from "@kubekit/generic-controlplane/controllers";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../../test/kubectl.js";
import { startSimCluster, type SimCluster } from "../cluster.js";
import type { Pod } from "../resources/pods.js";
import { PODS } from "../refs.js";

let cluster: SimCluster | undefined;
let client: KubeClient | undefined;
afterEach(async () => {
  client?.close();
  client = undefined;
  await cluster?.close();
  cluster = undefined;
});

async function start(podShutdownMs?: number): Promise<KubeClient> {
  cluster = await startSimCluster({ nodes: 1, ...(podShutdownMs !== undefined ? { podShutdownMs } : {}) });
  client = new KubeClient({ server: cluster.url });
  return client;
}

async function runPod(c: KubeClient, name: string, spec: Record<string, unknown> = {}): Promise<Pod> {
  await c.create(PODS, "default", { metadata: { name }, spec: { containers: [{ name: "c1", image: "x" }], ...spec } });
  return eventually(`${name} Running`, async () => {
    const pod = await c.get<Pod>(PODS, "default", name);
    return pod.status?.phase === "Running" ? pod : undefined;
  });
}

async function gone(c: KubeClient, name: string): Promise<true> {
  return eventually(`${name} deleted`, async () => {
    try {
      await c.get(PODS, "default", name);
      return undefined;
    } catch (error) {
      if (error instanceof ApiError && error.code === 404) return true;
      throw error;
    }
  });
}

describe("graceful pod termination", { timeout: 30_000 }, () => {
  it("marks a running pod deleted with its grace period; the kubelet stops its containers and then removes it", async () => {
    const c = await start(1000);
    const running = await runPod(c, "web");
    const events: WatchEvent[] = [];
    const watch = await c.watch(
      "/api/v1/namespaces/default/pods",
      { fieldSelector: "metadata.name=web", resourceVersion: running.metadata?.resourceVersion ?? "" },
      (event) => events.push(event),
    );
    try {
      const deleting = (await c.delete(PODS, "default", "web")) as Pod;
      expect(deleting.metadata?.deletionGracePeriodSeconds).toBe(30);
      expect(Date.parse(deleting.metadata?.deletionTimestamp ?? "") - Date.now()).toBeGreaterThan(25_000);
      expect(deleting.metadata?.generation).toBe(2);
      // Still there, terminating and serving, while its containers shut down.
      const terminating = await c.get<Pod>(PODS, "default", "web");
      expect(terminating.metadata?.deletionTimestamp).toBe(deleting.metadata?.deletionTimestamp);
      expect(terminating.status?.containerStatuses?.[0]?.state).toHaveProperty("running");
      await gone(c, "web");
      await eventually("the DELETED event", () => Promise.resolve(events.some((e) => e.type === "DELETED") ? true : undefined));
      const stopped = events.map((e) => e.object as Pod).find((p) => p.status?.containerStatuses?.[0]?.state?.["terminated"] !== undefined);
      expect(stopped?.status).toMatchObject({
        phase: "Succeeded",
        containerStatuses: [{ ready: false, state: { terminated: { exitCode: 0, reason: "Completed" } } }],
      });
      expect(stopped?.status?.conditions?.find((cond) => cond.type === "Ready")).toMatchObject({ status: "False", reason: "PodCompleted" });
      expect(events.at(-1)?.type).toBe("DELETED");
    } finally {
      watch.stop();
    }
  });

  it("deletes at once with grace period 0 (kubectl delete --grace-period=0 --force)", async () => {
    const c = await start(5000);
    await runPod(c, "forced");
    await c.delete(PODS, "default", "forced", { gracePeriodSeconds: 0 });
    await expect(c.get(PODS, "default", "forced")).rejects.toMatchObject({ code: 404 });
  });

  it("deletes a pod no node runs at once", async () => {
    const c = await start(5000);
    await c.create(PODS, "default", {
      metadata: { name: "nowhere" },
      spec: { nodeSelector: { missing: "label" }, containers: [{ name: "c1", image: "x" }] },
    });
    await c.delete(PODS, "default", "nowhere");
    await expect(c.get(PODS, "default", "nowhere")).rejects.toMatchObject({ code: 404 });
  });

  it("honours a shorter grace period asked for later, and never waits longer than the grace period", async () => {
    const c = await start(60_000);
    await runPod(c, "slow", { terminationGracePeriodSeconds: 120 });
    const first = (await c.delete(PODS, "default", "slow")) as Pod;
    expect(first.metadata?.deletionGracePeriodSeconds).toBe(120);
    const shorter = (await c.delete(PODS, "default", "slow", { gracePeriodSeconds: 1 })) as Pod;
    expect(shorter.metadata?.deletionGracePeriodSeconds).toBe(1);
    await gone(c, "slow");
  });

  it("lets a ReplicaSet that scaled down scale up again while its victim is still terminating", async () => {
    const c = await start(60_000);
    const replicaSets = { group: "apps", version: "v1", resource: "replicasets", namespaced: true };
    const labels = { app: "rs" };
    await c.create(replicaSets, "default", {
      metadata: { name: "rs" },
      spec: {
        replicas: 2,
        selector: { matchLabels: labels },
        template: { metadata: { labels }, spec: { containers: [{ name: "c1", image: "x" }] } },
      },
    });
    const listed = () => c.list<Pod>(PODS, "default", { labelSelector: "app=rs" });
    await eventually("two running pods", async () =>
      (await listed()).items.filter((p) => p.status?.phase === "Running").length === 2 ? true : undefined,
    );
    await c.patch(replicaSets, "default", "rs", { spec: { replicas: 1 } });
    const victim = await eventually("a terminating pod", async () =>
      (await listed()).items.find((p) => p.metadata?.deletionTimestamp !== undefined),
    );
    await c.patch(replicaSets, "default", "rs", { spec: { replicas: 2 } });
    await eventually("two running pods beside the terminating one", async () => {
      const pods = (await listed()).items;
      const serving = pods.filter((p) => p.metadata?.deletionTimestamp === undefined && p.status?.phase === "Running");
      return serving.length === 2 && pods.some((p) => p.metadata?.uid === victim.metadata?.uid) ? true : undefined;
    });
  });
});
