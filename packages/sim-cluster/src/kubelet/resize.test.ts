// Ported from the Pod InPlace Resize e2e suites (test/e2e/common/node/pod_resize.go and
// test/e2e/node/pod_resize.go) for the cases that need no container runtime: the simulated
// kubelet's allocation, conditions and status are what those tests assert on.
import { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../../test/kubectl.js";
import { startSimCluster, type SimCluster } from "../cluster.js";
import type { Pod, PodCondition } from "../resources/pods.js";
import { PODS } from "../refs.js";

let cluster: SimCluster | undefined;
let client: KubeClient | undefined;
afterEach(async () => {
  client?.close();
  client = undefined;
  await cluster?.close();
  cluster = undefined;
});

async function start(): Promise<KubeClient> {
  cluster = await startSimCluster({ nodes: 1 });
  client = new KubeClient({ server: cluster.url });
  return client;
}

const SMP = "application/strategic-merge-patch+json";

function resources(cpu: string, memory: string, limits?: { cpu: string; memory: string }) {
  return { requests: { cpu, memory }, ...(limits ? { limits } : {}) };
}

async function runPod(c: KubeClient, name: string, container: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<Pod> {
  await c.create(PODS, "default", { metadata: { name }, spec: { containers: [{ name: "c1", image: "x", ...container }], ...extra } });
  return eventually(`${name} Running`, async () => {
    const pod = await c.get<Pod>(PODS, "default", name);
    return pod.status?.phase === "Running" ? pod : undefined;
  });
}

function resize(c: KubeClient, name: string, container: Record<string, unknown>): Promise<Pod> {
  return c.patch<Pod>(PODS, "default", name, { spec: { containers: [{ name: "c1", ...container }] } }, SMP, "resize");
}

const conditionOf = (pod: Pod, type: string): PodCondition | undefined => pod.status?.conditions?.find((c) => c.type === type);

/** Waits until the kubelet has observed the pod's current generation and nothing of a resize is pending or in progress. */
function settled(c: KubeClient, name: string, generation: number): Promise<Pod> {
  return eventually(`${name} settled at generation ${generation}`, async () => {
    const pod = await c.get<Pod>(PODS, "default", name);
    const busy = conditionOf(pod, "PodResizeInProgress") !== undefined || conditionOf(pod, "PodResizePending") !== undefined;
    return pod.status?.observedGeneration === generation && !busy ? pod : undefined;
  });
}

// Each wait fails with its own message (10 s) before the test's deadline does.
describe("simulated kubelet: in-place resize as kubelet 1.35", { timeout: 30_000 }, () => {
  it("Guaranteed QoS pod, one container - increase CPU & memory, then decrease them (rollback)", async () => {
    const c = await start();
    const created = await runPod(c, "g", { resources: resources("100m", "200Mi", { cpu: "100m", memory: "200Mi" }) });
    expect(created.metadata?.generation).toBe(1);
    expect(created.status?.observedGeneration).toBe(1);
    expect(created.status?.containerStatuses?.[0]).toMatchObject({
      allocatedResources: { cpu: "100m", memory: "200Mi" },
      resources: resources("100m", "200Mi", { cpu: "100m", memory: "200Mi" }),
    });

    const patched = await resize(c, "g", { resources: resources("200m", "400Mi", { cpu: "200m", memory: "400Mi" }) });
    expect(patched.metadata?.generation).toBe(2);
    const grown = await settled(c, "g", 2);
    const status = grown.status!.containerStatuses![0]!;
    expect(status.allocatedResources).toEqual({ cpu: "200m", memory: "400Mi" });
    expect(status.resources).toEqual(resources("200m", "400Mi", { cpu: "200m", memory: "400Mi" }));
    expect(status.restartCount).toBe(0);
    expect(conditionOf(grown, "PodResizePending")).toBeUndefined();
    expect(grown.status?.qosClass).toBe("Guaranteed");

    await resize(c, "g", { resources: resources("100m", "200Mi", { cpu: "100m", memory: "200Mi" }) });
    const shrunk = await settled(c, "g", 3);
    expect(shrunk.status!.containerStatuses![0]!.resources).toEqual(resources("100m", "200Mi", { cpu: "100m", memory: "200Mi" }));
  });

  it("reports PodResizeInProgress, with observedGeneration, between allocation and actuation", async () => {
    const c = await start();
    await runPod(c, "w", { resources: resources("100m", "100Mi") });
    const seen: PodCondition[] = [];
    const watch = await c.watch("/api/v1/namespaces/default/pods", { fieldSelector: "metadata.name=w" }, (event) => {
      const condition = conditionOf(event.object, "PodResizeInProgress");
      if (condition !== undefined) seen.push(condition);
    });
    try {
      await resize(c, "w", { resources: resources("300m", "100Mi") });
      await settled(c, "w", 2);
      await eventually("the in-progress condition in the watch", () => Promise.resolve(seen.length > 0 ? true : undefined));
      expect(seen[0]).toMatchObject({ status: "True", observedGeneration: 2 });
    } finally {
      watch.stop();
    }
  });

  it("restarts a container whose resized resource has resizePolicy RestartContainer (restartCount + 1)", async () => {
    const c = await start();
    const before = await runPod(c, "r", {
      resources: resources("100m", "200Mi"),
      resizePolicy: [
        { resourceName: "cpu", restartPolicy: "NotRequired" },
        { resourceName: "memory", restartPolicy: "RestartContainer" },
      ],
    });
    await resize(c, "r", { resources: resources("200m", "200Mi") });
    const cpuOnly = await settled(c, "r", 2);
    expect(cpuOnly.status!.containerStatuses![0]!.restartCount).toBe(0);
    await resize(c, "r", { resources: resources("200m", "300Mi") });
    const restarted = (await settled(c, "r", 3)).status!.containerStatuses![0]!;
    expect(restarted.restartCount).toBe(1);
    expect(restarted.containerID).not.toBe(before.status!.containerStatuses![0]!.containerID);
    expect(restarted.lastState).toMatchObject({ terminated: { containerID: before.status!.containerStatuses![0]!.containerID } });
  });

  it("reports an upsize beyond the node's allocatable Infeasible and keeps the allocation (e2e: pod-resize-infeasible)", async () => {
    const c = await start();
    await runPod(c, "big", { resources: resources("1", "1Gi") });
    await resize(c, "big", { resources: resources("5", "1Gi") });
    const pending = await eventually("Infeasible", async () => {
      const pod = await c.get<Pod>(PODS, "default", "big");
      return conditionOf(pod, "PodResizePending") ? pod : undefined;
    });
    expect(conditionOf(pending, "PodResizePending")).toMatchObject({
      status: "True",
      reason: "Infeasible",
      message: "Node didn't have enough capacity: cpu, requested: 5000, capacity: 4000",
      observedGeneration: 2,
    });
    expect(pending.status!.containerStatuses![0]!.allocatedResources).toEqual({ cpu: "1", memory: "1Gi" });
    // Memory is named when both are too large.
    await resize(c, "big", { resources: resources("5", "20Gi") });
    const memory = await eventually("memory named", async () => {
      const pod = await c.get<Pod>(PODS, "default", "big");
      return conditionOf(pod, "PodResizePending")?.message?.includes("memory") ? pod : undefined;
    });
    expect(conditionOf(memory, "PodResizePending")?.message).toBe(
      `Node didn't have enough capacity: memory, requested: ${20 * 2 ** 30}, capacity: ${16 * 2 ** 30}`,
    );
    // Asking for what fits again clears the condition.
    await resize(c, "big", { resources: resources("1", "1Gi") });
    expect(conditionOf(await settled(c, "big", 4), "PodResizePending")).toBeUndefined();
  });

  it("defers an upsize that does not fit beside other pods, without preempting them, and grants it when one is deleted (e2e: pod-resize-scheduler-tests)", async () => {
    const c = await start();
    await runPod(c, "p1", { resources: resources("1", "1Gi") });
    await runPod(c, "p2", { resources: resources("2", "1Gi") });
    await resize(c, "p1", { resources: resources("3", "1Gi") });
    const deferred = await eventually("Deferred", async () => {
      const pod = await c.get<Pod>(PODS, "default", "p1");
      return conditionOf(pod, "PodResizePending") ? pod : undefined;
    });
    expect(conditionOf(deferred, "PodResizePending")).toMatchObject({
      reason: "Deferred",
      message: "Node didn't have enough resource: cpu, requested: 3000, used: 2000, capacity: 4000",
      observedGeneration: 2,
    });
    // Nothing was evicted to make room.
    expect((await c.get<Pod>(PODS, "default", "p2")).status?.phase).toBe("Running");
    await c.delete(PODS, "default", "p2", { gracePeriodSeconds: 0 });
    const granted = await settled(c, "p1", 2);
    expect(granted.status!.containerStatuses![0]!.allocatedResources).toEqual({ cpu: "3", memory: "1Gi" });
  });

  it("grants a Deferred upsize when another pod shrinks", async () => {
    const c = await start();
    await runPod(c, "a", { resources: resources("2", "1Gi") });
    await runPod(c, "b", { resources: resources("2", "1Gi") });
    await resize(c, "a", { resources: resources("3", "1Gi") });
    await eventually("Deferred", async () =>
      conditionOf(await c.get<Pod>(PODS, "default", "a"), "PodResizePending")?.reason === "Deferred" ? true : undefined,
    );
    await resize(c, "b", { resources: resources("1", "1Gi") });
    const granted = await settled(c, "a", 2);
    expect(granted.status!.containerStatuses![0]!.allocatedResources).toEqual({ cpu: "3", memory: "1Gi" });
  });

  it("makes the scheduler count a Deferred upsize but not an Infeasible one (computePodResourceRequest)", async () => {
    const c = await start();
    await runPod(c, "a", { resources: resources("1", "1Gi") });
    await runPod(c, "b", { resources: resources("2", "1Gi") });
    await resize(c, "a", { resources: resources("3", "1Gi") });
    await eventually("Deferred", async () =>
      conditionOf(await c.get<Pod>(PODS, "default", "a"), "PodResizePending")?.reason === "Deferred" ? true : undefined,
    );
    // 4 CPUs: b holds 2, a holds 1 and waits for 3; the free CPU is a's, not a new pod's.
    await c.create(PODS, "default", {
      metadata: { name: "late" },
      spec: { containers: [{ name: "c1", image: "x", resources: resources("1", "1Gi") }] },
    });
    const unschedulable = await eventually("late unschedulable", async () => {
      const pod = await c.get<Pod>(PODS, "default", "late");
      return conditionOf(pod, "PodScheduled")?.status === "False" ? pod : undefined;
    });
    expect(conditionOf(unschedulable, "PodScheduled")?.message).toBe("0/1 nodes are available: 1 Insufficient cpu.");
    // An Infeasible resize reserves nothing: a counts at its allocated 1 CPU again, so a new pod fits.
    await c.delete(PODS, "default", "late");
    await resize(c, "a", { resources: resources("5", "1Gi") });
    await eventually("Infeasible", async () =>
      conditionOf(await c.get<Pod>(PODS, "default", "a"), "PodResizePending")?.reason === "Infeasible" ? true : undefined,
    );
    await runPod(c, "later", { resources: resources("1", "1Gi") });
  });
});
