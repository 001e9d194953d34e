import { KubeClient, PATCH_MERGE, type Pod } from "@kubekit/client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readNodeBalloonStatus } from "../src/node-status.js";
import { parseResourceList, resourceListStrings } from "../src/resource-list.js";
import { resizeNode } from "../src/resize-client.js";
import { resizeProgress } from "../src/resize-progress.js";
import { PODS } from "../src/resources.js";
import { splitHost } from "../src/split-host.js";
import { startBalloonSim, type BalloonSim } from "./sim.js";

/** What must never happen to a workload pod during a node resize: deleted, recreated, restarted. */
interface Untouched {
  readonly uid: string;
  readonly restarts: number;
}

function fingerprint(pod: Pod): Untouched {
  return { uid: pod.metadata?.uid ?? "", restarts: (pod.status?.containerStatuses ?? []).reduce((n, s) => n + s.restartCount, 0) };
}

describe("resizing nodes on a simulated cluster with in-place resize", () => {
  let sim: BalloonSim;
  const before = new Map<string, Untouched>();

  const balloonPod = () => sim.pod("kube-system", "node-balloon-node-a");
  const expectWorkloadsUntouched = async () => {
    for (const [name, print] of before) {
      const pod = await sim.pod("default", name);
      expect(fingerprint(pod), name).toEqual(print);
      expect(pod.status?.phase, name).toBe("Running");
      expect(pod.metadata?.deletionTimestamp, name).toBeUndefined();
    }
  };

  beforeAll(async () => {
    sim = await startBalloonSim([{ name: "node-a" }, { name: "node-b" }], { cpu: "8", memory: "32Gi" });
    await sim.balloon("node-a", { cpu: "1m", memory: "1Mi" });
    for (const [name, requests] of [
      ["web-1", { cpu: "2", memory: "4Gi" }],
      ["web-2", { cpu: "1", memory: "2Gi" }],
    ] as const) {
      before.set(name, fingerprint(await sim.workload("node-a", name, requests)));
    }
  }, 60_000);

  afterAll(async () => {
    await sim?.close();
  });

  it("shrinks a node while its pods run: the kubelet allocates the bigger balloon and no workload pod is touched", async () => {
    const result = await resizeNode(sim.client, "node-a", parseResourceList("cpu=4,memory=16Gi"), {
      pollIntervalMs: 20,
      timeoutMs: 20_000,
    });
    expect(result).toMatchObject({ outcome: "applied", patched: true });
    if (result.outcome !== "applied") return;
    expect(resourceListStrings(result.allocated)).toEqual({ cpu: "4", memory: "16Gi" });
    const pod = await balloonPod();
    expect(pod.status?.containerStatuses?.[0]?.allocatedResources).toEqual({ cpu: "4", memory: "16Gi" });
    const [nodeA] = await readNodeBalloonStatus(sim.client);
    expect(resourceListStrings(nodeA?.effective ?? {})).toEqual({ cpu: "4", memory: "16Gi" });
    const events = await sim.nodeEvents("node-a");
    expect(events.map((e) => e.reason)).toContain("BalloonResized");
    await expectWorkloadsUntouched();
  });

  it("grows it back: the balloon shrinks at once, and asking again patches nothing", async () => {
    const grown = await resizeNode(sim.client, "node-a", parseResourceList("cpu=7,memory=28Gi"), { pollIntervalMs: 20, timeoutMs: 20_000 });
    expect(grown).toMatchObject({ outcome: "applied", patched: true });
    const generation = (await balloonPod()).metadata?.generation;
    const again = await resizeNode(sim.client, "node-a", parseResourceList("cpu=7,memory=28Gi"), { pollIntervalMs: 20, timeoutMs: 20_000 });
    expect(again).toMatchObject({ outcome: "applied", patched: false });
    expect((await balloonPod()).metadata?.generation).toBe(generation);
    expect((await balloonPod()).spec?.containers[0]?.resources?.requests).toEqual({ cpu: "1", memory: "4Gi" });
    await expectWorkloadsUntouched();
  });

  it("re-reads and re-plans when the balloon changed since it was read (409 Conflict on the resourceVersion precondition)", async () => {
    let conflicts = 0;
    let calls = 0;
    // A client whose first resize is overtaken by another writer, as a concurrent agent or kubectl would.
    class RacingClient extends KubeClient {
      override async patch<T extends Pod>(...args: Parameters<KubeClient["patch"]>): Promise<T> {
        const [ref, namespace, name, , , subresource] = args;
        if (subresource === "resize") {
          calls++;
          if (conflicts === 0) {
            conflicts++;
            await super.patch(ref, namespace, name, { metadata: { labels: { touched: "yes" } } }, PATCH_MERGE);
          }
        }
        return super.patch<T>(...args);
      }
    }
    const racing = new RacingClient(sim.client.config);
    const result = await resizeNode(racing, "node-a", parseResourceList("cpu=6,memory=24Gi"), { pollIntervalMs: 20, timeoutMs: 20_000 });
    // The first patch carried the stale resourceVersion and was refused; the second, re-planned, went through.
    expect([conflicts, calls]).toEqual([1, 2]);
    expect(result).toMatchObject({ outcome: "applied", patched: true });
    const pod = await balloonPod();
    expect(pod.metadata?.labels?.touched).toBe("yes");
    expect(pod.spec?.containers[0]?.resources?.requests).toEqual({ cpu: "2", memory: "8Gi" });
    await expectWorkloadsUntouched();
  });

  it("refuses an upsize that does not fit beside the running pods, with the reason, and touches nothing", async () => {
    const generation = (await balloonPod()).metadata?.generation;
    const result = await resizeNode(sim.client, "node-a", parseResourceList("cpu=2"), { pollIntervalMs: 20 });
    expect(result).toMatchObject({ outcome: "refused", patched: false });
    if (result.outcome === "refused")
      expect(result.reason).toContain("cpu: the balloon needs 6 but other pods request 3 of 8 allocatable, leaving 5");
    expect((await balloonPod()).metadata?.generation).toBe(generation);
    await expectWorkloadsUntouched();
  });

  it("when asked, leaves it Deferred: the scheduler keeps new pods off the space, and the kubelet applies it once a pod leaves", async () => {
    const result = await resizeNode(sim.client, "node-a", parseResourceList("cpu=2"), {
      onShortfall: "defer",
      pollIntervalMs: 20,
      timeoutMs: 20_000,
    });
    expect(result).toMatchObject({ outcome: "deferred", patched: true });
    if (result.outcome === "deferred") expect(result.message).toMatch(/^Node didn't have enough resource: cpu/);
    // Drains by reservation: a 1-cpu pod for node-a no longer fits, though only 3 + 1 cpus are allocated.
    await sim.client.create(PODS, "default", {
      metadata: { name: "late" },
      spec: {
        nodeSelector: { "kubernetes.io/hostname": "node-a" },
        containers: [{ name: "c", image: "pause", resources: { requests: { cpu: "1" } } }],
      },
    } satisfies Pod);
    const unschedulable = async () => {
      const late = await sim.pod("default", "late");
      return late.status?.conditions?.find((c) => c.type === "PodScheduled" && c.reason === "Unschedulable");
    };
    const deadline = Date.now() + 10_000;
    while (!(await unschedulable())) {
      if (Date.now() > deadline) throw new Error("the late pod was not reported Unschedulable within 10 s");
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await sim.client.delete(PODS, "default", "late");
    // web-2 finishes: 8 − 2 (web-1) leaves room for the 6-cpu balloon.
    await sim.client.delete(PODS, "default", "web-2");
    before.delete("web-2");
    const applied = Date.now() + 20_000;
    for (;;) {
      const progress = resizeProgress(await balloonPod(), parseResourceList("cpu=6"));
      if (progress.state === "applied") break;
      if (Date.now() > applied) throw new Error(`the Deferred resize was not applied within 20 s: ${JSON.stringify(progress)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await expectWorkloadsUntouched();
  });
});

describe("four kubelets carved from one host", () => {
  let sim: BalloonSim;
  const host = parseResourceList("cpu=16,memory=64Gi");
  const nodes = ["host1-k1", "host1-k2", "host1-k3", "host1-k4"];

  beforeAll(async () => {
    // Every kubelet on the host reports the whole host.
    sim = await startBalloonSim(
      nodes.map((name) => ({ name })),
      { cpu: "16", memory: "64Gi" },
    );
    for (const node of nodes) await sim.balloon(node, { cpu: "1m", memory: "1Mi" });
  }, 60_000);

  afterAll(async () => {
    await sim?.close();
  });

  it("each sees a quarter of it, and the scheduler never puts more than a quarter on one", async () => {
    const split = splitHost({ host, kubelets: 4 });
    expect(resourceListStrings(split.effective)).toEqual({ cpu: "4", memory: "16Gi" });
    const results = await Promise.all(
      nodes.map((node) => resizeNode(sim.client, node, split.effective, { pollIntervalMs: 20, timeoutMs: 20_000 })),
    );
    expect(results.map((r) => r.outcome)).toEqual(["applied", "applied", "applied", "applied"]);
    const status = await readNodeBalloonStatus(sim.client);
    expect(status.map((s) => [s.node, resourceListStrings(s.effective)])).toEqual(
      nodes.map((node) => [node, { cpu: "4", memory: "16Gi" }]),
    );
    // Four quarter-sized pods land one per kubelet; a fifth fits nowhere.
    for (let i = 0; i < 5; i++) {
      await sim.client.create(PODS, "default", {
        metadata: { name: `quarter-${i}` },
        spec: { containers: [{ name: "c", image: "pause", resources: { requests: { cpu: "4", memory: "16Gi" } } }] },
      } satisfies Pod);
    }
    const deadline = Date.now() + 20_000;
    for (;;) {
      const pods = (await sim.client.list<Pod>(PODS, "default")).items;
      const bound = pods.filter((p) => p.spec?.nodeName);
      const waiting = pods.find((p) => p.status?.conditions?.some((c) => c.type === "PodScheduled" && c.reason === "Unschedulable"));
      if (bound.length === 4 && waiting) {
        expect(new Set(bound.map((p) => p.spec?.nodeName))).toEqual(new Set(nodes));
        expect(waiting.status?.conditions?.find((c) => c.type === "PodScheduled")?.message).toMatch(
          /^0\/4 nodes are available: 4 Insufficient cpu/,
        );
        break;
      }
      if (Date.now() > deadline) throw new Error(`pods not placed within 20 s: ${bound.length} bound`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  });
});
