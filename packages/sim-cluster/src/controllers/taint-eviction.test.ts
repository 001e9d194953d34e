import type { KubeObject } from "@kubekit/generic-controlplane";
import { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../../test/kubectl.js";
import { startSimCluster, type SimCluster } from "../cluster.js";
import type { Pod } from "../resources/pods.js";
import { NODES, PODS } from "../refs.js";

// Ported from test/e2e/node/taints.go (NoExecuteTaintManager Single Pod) and the
// DefaultTolerationSeconds admission tests; the unreachable case is the node lifecycle
// controller's taint-based eviction.

let cluster: SimCluster | undefined;
let client: KubeClient | undefined;
afterEach(async () => {
  client?.close();
  await cluster?.close();
  cluster = undefined;
});

type PodObject = Pod & KubeObject;
const podOn = (name: string, node: string, tolerations?: unknown[]) => ({
  metadata: { name },
  spec: {
    nodeName: node,
    containers: [{ name: "pause", image: "registry.k8s.io/pause" }],
    ...(tolerations !== undefined ? { tolerations } : {}),
  },
});

async function start(options: Parameters<typeof startSimCluster>[0] = {}): Promise<{ c: SimCluster; k: KubeClient }> {
  cluster = await startSimCluster({ nodes: 2, ...options });
  client = new KubeClient({ server: cluster.url });
  return { c: cluster, k: client };
}

async function running(k: KubeClient, name: string): Promise<PodObject> {
  return eventually(`${name} running`, async () => {
    const pod = await k.get<PodObject>(PODS, "default", name);
    return pod.status?.phase === "Running" ? pod : undefined;
  });
}

async function taint(k: KubeClient, node: string, taints: unknown[]): Promise<void> {
  await k.patch(NODES, undefined, node, { spec: { taints } }, "application/merge-patch+json");
}

describe("DefaultTolerationSeconds", () => {
  it("gives a new pod 300 s tolerations of not-ready and unreachable unless it tolerates them already", async () => {
    const { k } = await start({ nodes: 1 });
    const plain = await k.create<PodObject>(PODS, "default", podOn("plain", "sim-node-1"));
    expect(plain.spec?.["tolerations"]).toEqual([
      { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
      { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
    ]);
    const own = await k.create<PodObject>(
      PODS,
      "default",
      podOn("own", "sim-node-1", [
        { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 10 },
      ]),
    );
    expect(own.spec?.["tolerations"]).toEqual([
      { key: "node.kubernetes.io/unreachable", operator: "Exists", effect: "NoExecute", tolerationSeconds: 10 },
      { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 300 },
    ]);
    const everything = await k.create<PodObject>(PODS, "default", podOn("everything", "sim-node-1", [{ operator: "Exists" }]));
    expect(everything.spec?.["tolerations"]).toEqual([{ operator: "Exists" }]);
  });
});

describe("NoExecuteTaintManager Single Pod", () => {
  it("evicts pods from tainted nodes, marking them DisruptionTarget", async () => {
    // Containers that take a while to stop keep the evicted pod observable.
    const { k } = await start({ podShutdownMs: 10_000 });
    await k.create(PODS, "default", podOn("victim", "sim-node-1"));
    await k.create(PODS, "default", podOn("bystander", "sim-node-2"));
    await running(k, "victim");
    await running(k, "bystander");
    await taint(k, "sim-node-1", [{ key: "kubernetes.io/e2e-evict-taint-key", value: "evictTaintVal", effect: "NoExecute" }]);
    const going = await eventually("the victim to be deleted", async () => {
      const pod = await k.get<PodObject>(PODS, "default", "victim");
      return pod.metadata?.deletionTimestamp !== undefined ? pod : undefined;
    });
    expect(going.status?.conditions).toContainEqual(
      expect.objectContaining({
        type: "DisruptionTarget",
        status: "True",
        reason: "DeletionByTaintManager",
        message: "Taint manager: deleting due to NoExecute taint",
      }),
    );
    const bystander = await k.get<PodObject>(PODS, "default", "bystander");
    expect(bystander.metadata?.deletionTimestamp).toBeUndefined();
  });

  it("does not evict a pod tolerating the taint without a limit, and evicts one tolerating it for a while only after that while", async () => {
    const { k } = await start({ nodes: 1 });
    const taintSpec = { key: "kubernetes.io/e2e-evict-taint-key", value: "evictTaintVal", effect: "NoExecute" };
    await k.create(PODS, "default", podOn("forever", "sim-node-1", [{ ...taintSpec, operator: "Equal" }]));
    await k.create(PODS, "default", podOn("briefly", "sim-node-1", [{ ...taintSpec, operator: "Equal", tolerationSeconds: 2 }]));
    await running(k, "forever");
    await running(k, "briefly");
    const tainted = Date.now();
    await taint(k, "sim-node-1", [taintSpec]);
    const deletedAt = await eventually(
      "briefly to be deleted",
      async () => {
        const pod = await k.get<PodObject>(PODS, "default", "briefly").catch(() => undefined);
        return pod === undefined || pod.metadata?.deletionTimestamp !== undefined ? Date.now() : undefined;
      },
      15_000,
    );
    expect(deletedAt - tainted).toBeGreaterThanOrEqual(2_000);
    expect((await k.get<PodObject>(PODS, "default", "forever")).metadata?.deletionTimestamp).toBeUndefined();
  });

  it("cancels the eviction when the taint is removed before the toleration runs out", async () => {
    const { k } = await start({ nodes: 1 });
    const a = { key: "example.com/a", value: "x", effect: "NoExecute" };
    const b = { key: "example.com/b", value: "x", effect: "NoExecute" };
    // "stays" tolerates a for 3 s and b for ever; "sentinel" a for ever and b for 4 s.
    await k.create(
      PODS,
      "default",
      podOn("stays", "sim-node-1", [
        { ...a, operator: "Equal", tolerationSeconds: 3 },
        { key: b.key, operator: "Exists", effect: "NoExecute" },
      ]),
    );
    await k.create(
      PODS,
      "default",
      podOn("sentinel", "sim-node-1", [
        { key: a.key, operator: "Exists", effect: "NoExecute" },
        { ...b, operator: "Equal", tolerationSeconds: 4 },
      ]),
    );
    await running(k, "stays");
    await running(k, "sentinel");
    await taint(k, "sim-node-1", [a, b]);
    await taint(k, "sim-node-1", [b]);
    await eventually("the cancellation event", async () => {
      const events = await k.list<KubeObject & { reason?: string; message?: string }>(
        { group: "", version: "v1", resource: "events", namespaced: true },
        "default",
      );
      return events.items.some((e) => e.reason === "TaintManagerEviction" && e.message === "Cancelling deletion of Pod default/stays")
        ? true
        : undefined;
    });
    // Had its eviction not been called off, "stays" would have gone a second before the sentinel.
    await eventually(
      "the sentinel to be evicted",
      async () =>
        (await k.get<PodObject>(PODS, "default", "sentinel").catch(() => undefined))?.metadata?.deletionTimestamp !== undefined
          ? true
          : undefined,
      15_000,
    );
    expect((await k.get<PodObject>(PODS, "default", "stays")).metadata?.deletionTimestamp).toBeUndefined();
  });

  it("evicts a pod from an unreachable node once the default unreachable toleration runs out", async () => {
    const { c, k } = await start({
      leaseRenewIntervalMs: 100,
      nodeMonitorGracePeriodMs: 1_000,
      nodeMonitorPeriodMs: 100,
      defaultUnreachableTolerationSeconds: 2,
    });
    await k.create(PODS, "default", {
      metadata: { name: "lone", labels: { app: "lone" } },
      spec: { nodeName: "sim-node-1", containers: [{ name: "pause", image: "registry.k8s.io/pause" }] },
    });
    await running(k, "lone");
    await c.stopNode("sim-node-1");
    const unreachableAt = await eventually("the unreachable NoExecute taint", async () => {
      const node = await k.get<KubeObject & { spec?: { taints?: Array<{ key: string; effect: string }> } }>(NODES, undefined, "sim-node-1");
      return node.spec?.taints?.some((t) => t.key === "node.kubernetes.io/unreachable" && t.effect === "NoExecute") === true
        ? Date.now()
        : undefined;
    });
    const evictedAt = await eventually(
      "the pod to be marked for deletion",
      async () => ((await k.get<PodObject>(PODS, "default", "lone")).metadata?.deletionTimestamp !== undefined ? Date.now() : undefined),
      15_000,
    );
    expect(evictedAt - unreachableAt).toBeGreaterThanOrEqual(1_500);
    const pod = await k.get<PodObject>(PODS, "default", "lone");
    expect(pod.status?.conditions).toContainEqual(expect.objectContaining({ type: "DisruptionTarget", reason: "DeletionByTaintManager" }));
  });
});
