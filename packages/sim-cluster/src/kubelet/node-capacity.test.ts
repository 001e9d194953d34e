// A node's capacity changing under a running kubelet (CPU or memory hot-plug), reported as the
// kubelet's node status loop does (pkg/kubelet/kubelet_node_status.go: the MachineInfo setter
// rewrites capacity and allocatable on every status update, and a differing status is posted).
import { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../../test/kubectl.js";
import { startSimCluster, type SimCluster } from "../cluster.js";
import { NODES, PODS } from "../refs.js";
import type { Node } from "../resources/nodes.js";
import type { Pod } from "../resources/pods.js";
import { NODE_CAPACITY_ANNOTATION } from "./kubelet.js";

let cluster: SimCluster | undefined;
let client: KubeClient | undefined;
afterEach(async () => {
  client?.close();
  client = undefined;
  await cluster?.close();
  cluster = undefined;
});

const MERGE = "application/merge-patch+json";
const STATUS_UPDATE_MS = 200;

async function start(): Promise<KubeClient> {
  cluster = await startSimCluster({
    nodes: [{ name: "n1" }],
    nodeCapacity: { cpu: "4", memory: "16Gi" },
    leaseRenewIntervalMs: STATUS_UPDATE_MS,
  });
  client = new KubeClient({ server: cluster.url });
  return client;
}

const sizeOf = async (c: KubeClient) => {
  const node = await c.get<Node>(NODES, undefined, "n1");
  return { capacity: node.status?.capacity, allocatable: node.status?.allocatable };
};

describe("simulated kubelet: node capacity hot-plug", { timeout: 30_000 }, () => {
  it("setNodeCapacity: the Node reports the new size and the kubelet admits resizes against it", async () => {
    const c = await start();
    await c.create(PODS, "default", {
      metadata: { name: "p" },
      spec: { containers: [{ name: "c1", image: "x", resources: { requests: { cpu: "1" } } }] },
    });
    await eventually("p Running", async () => ((await c.get<Pod>(PODS, "default", "p")).status?.phase === "Running" ? true : undefined));
    await cluster!.setNodeCapacity("n1", { cpu: "8" });
    expect(await sizeOf(c)).toMatchObject({ capacity: { cpu: "8", memory: "16Gi" }, allocatable: { cpu: "8", memory: "16Gi" } });
    // 6 CPUs were beyond the node before the hot-plug (Infeasible); now they fit.
    await c.patch(
      PODS,
      "default",
      "p",
      { spec: { containers: [{ name: "c1", resources: { requests: { cpu: "6" } } }] } },
      "application/strategic-merge-patch+json",
      "resize",
    );
    const resized = await eventually("p allocated 6 cpus", async () => {
      const pod = await c.get<Pod>(PODS, "default", "p");
      return pod.status?.containerStatuses?.[0]?.allocatedResources?.["cpu"] === "6" ? pod : undefined;
    });
    expect(resized.status?.conditions?.some((cond) => cond.type === "PodResizePending")).toBe(false);
    // And out again.
    await cluster!.setNodeCapacity("n1", { cpu: "2" });
    expect(await sizeOf(c)).toMatchObject({ capacity: { cpu: "2" }, allocatable: { cpu: "2" } });
  });

  it("overwrites a status.capacity patched by anyone else within the status update period, keeping advertised extended resources", async () => {
    const c = await start();
    await c.patch(
      NODES,
      undefined,
      "n1",
      { status: { capacity: { cpu: "64", "example.com/dongle": "4" }, allocatable: { cpu: "64", "example.com/dongle": "4" } } },
      MERGE,
      "status",
    );
    const restored = await eventually(
      "the kubelet's own size back",
      async () => {
        const size = await sizeOf(c);
        return size.capacity?.["cpu"] === "4" && size.allocatable?.["cpu"] === "4" ? size : undefined;
      },
      STATUS_UPDATE_MS * 10,
    );
    expect(restored.capacity).toMatchObject({ cpu: "4", memory: "16Gi", "example.com/dongle": "4" });
  });

  it(`hot-plugs from outside the process through the ${NODE_CAPACITY_ANNOTATION} annotation`, async () => {
    const c = await start();
    await c.patch(NODES, undefined, "n1", { metadata: { annotations: { [NODE_CAPACITY_ANNOTATION]: "cpu=16,memory=64Gi" } } }, MERGE);
    const size = await eventually(
      "the annotated size",
      async () => {
        const s = await sizeOf(c);
        return s.capacity?.["cpu"] === "16" ? s : undefined;
      },
      STATUS_UPDATE_MS * 10,
    );
    expect(size).toMatchObject({ capacity: { cpu: "16", memory: "64Gi" }, allocatable: { cpu: "16", memory: "64Gi" } });
    expect(cluster!.nodes).toEqual(["n1"]);
  });
});
