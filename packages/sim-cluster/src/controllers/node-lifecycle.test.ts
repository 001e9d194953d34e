import { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../../test/kubectl.js";
import { startSimCluster, type SimCluster } from "../cluster.js";
import type { Node } from "../resources/nodes.js";
import type { Pod } from "../resources/pods.js";
import { NODES, PODS } from "../refs.js";

let cluster: SimCluster | undefined;
let client: KubeClient | undefined;
afterEach(async () => {
  client?.close();
  client = undefined;
  await cluster?.close();
  cluster = undefined;
});

/** A cluster whose kubelets renew their Lease every 100 ms and whose node monitor gives up after 2 s (margin for a loaded machine). */
async function start(): Promise<{ cluster: SimCluster; client: KubeClient }> {
  cluster = await startSimCluster({ nodes: 2, leaseRenewIntervalMs: 100, nodeMonitorGracePeriodMs: 2000, nodeMonitorPeriodMs: 100 });
  client = new KubeClient({ server: cluster.url });
  return { cluster, client };
}

const ready = (node: Node) => node.status?.conditions?.find((c) => c.type === "Ready");
const podReady = (pod: Pod) => pod.status?.conditions?.find((c) => c.type === "Ready")?.status;

async function runPodOn(c: KubeClient, name: string, node: string): Promise<Pod> {
  await c.create(PODS, "default", {
    metadata: { name },
    spec: { nodeSelector: { "kubernetes.io/hostname": node }, containers: [{ name: "c1", image: "x" }] },
  });
  return eventually(`${name} Running`, async () => {
    const pod = await c.get<Pod>(PODS, "default", name);
    return pod.status?.phase === "Running" ? pod : undefined;
  });
}

describe("nodes stopped, started and rebooted from the outside", { timeout: 30_000 }, () => {
  it("a stopped node goes Unknown and unreachable after the grace period, and comes back when started", async () => {
    const { cluster, client: c } = await start();
    await runPodOn(c, "p", "sim-node-2");
    const before = await c.get<Node>(NODES, undefined, "sim-node-2");
    await cluster.stopNode("sim-node-2");
    expect(cluster.nodes).toEqual(["sim-node-1"]);
    const unknown = await eventually("sim-node-2 Unknown", async () => {
      const node = await c.get<Node>(NODES, undefined, "sim-node-2");
      return ready(node)?.status === "Unknown" && (node.spec?.taints ?? []).length === 2 ? node : undefined;
    });
    for (const type of ["Ready", "MemoryPressure", "DiskPressure", "PIDPressure"]) {
      expect(unknown.status?.conditions?.find((cond) => cond.type === type)).toMatchObject({
        status: "Unknown",
        reason: "NodeStatusUnknown",
        message: "Kubelet stopped posting node status.",
      });
    }
    expect(unknown.spec?.taints).toEqual([
      { key: "node.kubernetes.io/unreachable", effect: "NoSchedule" },
      { key: "node.kubernetes.io/unreachable", effect: "NoExecute", timeAdded: expect.stringMatching(/Z$/) as unknown },
    ]);
    // The other node keeps posting and stays Ready.
    expect(ready(await c.get<Node>(NODES, undefined, "sim-node-1"))?.status).toBe("True");
    await eventually("p not Ready", async () => (podReady(await c.get<Pod>(PODS, "default", "p")) === "False" ? true : undefined));

    await cluster.startNode("sim-node-2");
    const back = await eventually("sim-node-2 Ready without taints", async () => {
      const node = await c.get<Node>(NODES, undefined, "sim-node-2");
      return ready(node)?.status === "True" && (node.spec?.taints ?? []).length === 0 ? node : undefined;
    });
    expect(back.status?.nodeInfo?.["bootID"]).toBe(before.status?.nodeInfo?.["bootID"]);
    const pod = await eventually("p Ready again", async () => {
      const p = await c.get<Pod>(PODS, "default", "p");
      return podReady(p) === "True" ? p : undefined;
    });
    expect(pod.status?.containerStatuses?.[0]?.restartCount).toBe(0);
    await expect(cluster.startNode("sim-node-2")).rejects.toThrow("node sim-node-2 is running already");
  });

  it("a running kubelet answers a node marked Unknown (it was only slow) by posting Ready again", async () => {
    const { client: c } = await start();
    const node = await c.get<Node>(NODES, undefined, "sim-node-1");
    const conditions = (node.status?.conditions ?? []).map((cond) =>
      cond.type === "Ready"
        ? { ...cond, status: "Unknown", reason: "NodeStatusUnknown", message: "Kubelet stopped posting node status." }
        : cond,
    );
    await c.patch(NODES, undefined, "sim-node-1", { status: { conditions } }, "application/merge-patch+json", "status");
    const back = await eventually("sim-node-1 Ready again", async () => {
      const n = await c.get<Node>(NODES, undefined, "sim-node-1");
      return ready(n)?.status === "True" && (n.spec?.taints ?? []).length === 0 ? n : undefined;
    });
    expect(ready(back)).toMatchObject({ reason: "KubeletReady" });
  });

  it("a rebooted node reports NotReady, then Ready with a new boot ID, and its containers restart", async () => {
    const { cluster, client: c } = await start();
    const running = await runPodOn(c, "p", "sim-node-1");
    const before = await c.get<Node>(NODES, undefined, "sim-node-1");
    const readiness: string[] = [];
    const watch = await c.watch("/api/v1/nodes", { fieldSelector: "metadata.name=sim-node-1" }, (event) => {
      const status = ready(event.object)?.status;
      if (status !== undefined && readiness.at(-1) !== status) readiness.push(status);
    });
    try {
      await cluster.rebootNode("sim-node-1");
      const after = await c.get<Node>(NODES, undefined, "sim-node-1");
      expect(ready(after)?.status).toBe("True");
      expect(after.status?.nodeInfo?.["bootID"]).not.toBe(before.status?.nodeInfo?.["bootID"]);
      await eventually("NotReady then Ready in the watch", () =>
        Promise.resolve(readiness.includes("False") && readiness.at(-1) === "True" ? true : undefined),
      );
      const pod = await c.get<Pod>(PODS, "default", "p");
      const status = pod.status!.containerStatuses![0]!;
      expect(status.restartCount).toBe(1);
      expect(status.lastState).toMatchObject({
        terminated: { exitCode: 255, reason: "Unknown", containerID: running.status!.containerStatuses![0]!.containerID },
      });
      expect(status.containerID).not.toBe(running.status!.containerStatuses![0]!.containerID);
    } finally {
      watch.stop();
    }
  });
});
