import type { KubeObject } from "@kubekit/generic-controlplane";
import { ApiError, KubeClient } from "@kubekit/generic-controlplane/controllers";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../test/kubectl.js";
import { startSimCluster, type SimCluster } from "./cluster.js";
import { NODE_LEASES, NODES, PODS, PRIORITY_CLASSES } from "./refs.js";

let cluster: SimCluster | undefined;
let client: KubeClient | undefined;
afterEach(async () => {
  client?.close();
  client = undefined;
  await cluster?.close();
  cluster = undefined;
});

async function start(options: Parameters<typeof startSimCluster>[0]): Promise<{ cluster: SimCluster; client: KubeClient }> {
  cluster = await startSimCluster(options);
  client = new KubeClient({ server: cluster.url });
  return { cluster, client };
}

type Pod = KubeObject & {
  spec: { nodeName?: string; priority?: number };
  status: { phase?: string; conditions?: Array<{ type: string; status: string; reason?: string; message?: string }> };
};

const pod = (name: string, spec: Record<string, unknown> = {}) => ({
  metadata: { name },
  spec: { containers: [{ name: "c", image: "x" }], ...spec },
});

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error("expected the request to fail");
}

describe("startSimCluster", () => {
  it("registers nodes with their Lease, and nodes can be added and removed", async () => {
    const { cluster, client } = await start({ nodes: [{ name: "a", labels: { zone: "z1" }, capacity: { cpu: "8" } }] });
    const a = await client.get<{
      metadata: { labels: Record<string, string> };
      spec: { podCIDRs: string[]; providerID: string };
      status: { allocatable: Record<string, string> };
    }>(NODES, undefined, "a");
    expect(a.metadata.labels).toMatchObject({ zone: "z1", "kubernetes.io/hostname": "a", "kubernetes.io/os": "linux" });
    expect(a.spec).toMatchObject({ podCIDRs: ["10.244.0.0/24"], providerID: "sim://sim-cluster/a" });
    expect(a.status.allocatable).toMatchObject({ cpu: "8", memory: "16Gi", pods: "110" });
    const lease = await client.get<{ spec: { holderIdentity: string; renewTime: string } }>(NODE_LEASES, "kube-node-lease", "a");
    expect(lease.spec.holderIdentity).toBe("a");
    expect(lease.spec.renewTime).toMatch(/\.\d{6}Z$/);

    const added = await cluster.addNode();
    expect(added).toBe("sim-node-1");
    expect(cluster.nodes).toEqual(["a", "sim-node-1"]);
    await client.create(PODS, "default", pod("on-added", { nodeSelector: { "kubernetes.io/hostname": "sim-node-1" } }));
    await eventually("the pod to run on the added node", async () =>
      (await client.get<Pod>(PODS, "default", "on-added")).status.phase === "Running" ? true : undefined,
    );
    await cluster.removeNode("sim-node-1");
    expect((await failure(client.get(NODES, undefined, "sim-node-1"))).code).toBe(404);
    expect((await failure(client.get(PODS, "default", "on-added"))).code).toBe(404);
  });

  it("keeps a pod that fits nowhere Pending with the scheduler's reasons, and binds it once a node fits", async () => {
    const { cluster, client } = await start({ nodes: 2, nodeCapacity: { cpu: "1" } });
    await client.create(PODS, "default", pod("big", { containers: [{ name: "c", image: "x", resources: { requests: { cpu: "2" } } }] }));
    await client.create(PODS, "default", pod("picky", { nodeSelector: { disk: "ssd" } }));
    const big = await eventually("big to be unschedulable", async () => {
      const p = await client.get<Pod>(PODS, "default", "big");
      return p.status.conditions?.find((c) => c.type === "PodScheduled" && c.reason === "Unschedulable");
    });
    expect(big.message).toBe("0/2 nodes are available: 2 Insufficient cpu.");
    const picky = await eventually("picky to be unschedulable", async () => {
      const p = await client.get<Pod>(PODS, "default", "picky");
      return p.status.conditions?.find((c) => c.type === "PodScheduled" && c.reason === "Unschedulable");
    });
    expect(picky.message).toBe("0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.");

    await cluster.addNode({ name: "fast", labels: { disk: "ssd" }, capacity: { cpu: "4" } });
    for (const name of ["big", "picky"]) {
      const placed = await eventually(`${name} to run`, async () => {
        const p = await client.get<Pod>(PODS, "default", name);
        return p.status.phase === "Running" ? p : undefined;
      });
      expect(placed.spec.nodeName).toBe("fast");
    }
  });

  it("binds a pod once: a second binding is a conflict", async () => {
    const { client } = await start({ nodes: 1 });
    await client.create(PODS, "default", pod("p", { schedulerName: "someone-else" }));
    const bind = (node: string) =>
      client.request("POST", "/api/v1/namespaces/default/pods/p/binding", {
        body: { apiVersion: "v1", kind: "Binding", metadata: { name: "p" }, target: { kind: "Node", name: node } },
      });
    await bind("sim-node-1");
    const again = await failure(bind("other"));
    expect(again.code).toBe(409);
    expect(again.message).toBe('Operation cannot be fulfilled on pods/binding "p": pod p is already assigned to node "sim-node-1"');
    await eventually("p to run", async () => ((await client.get<Pod>(PODS, "default", "p")).status.phase === "Running" ? true : undefined));
  });

  it("serves the system priority classes and gives pods their priority", async () => {
    const { client } = await start({ nodes: 1 });
    const critical = await client.get<{ value: number }>(PRIORITY_CLASSES, undefined, "system-node-critical");
    expect(critical.value).toBe(2_000_001_000);
    const created = await client.create<Pod>(PODS, "kube-system", pod("critical", { priorityClassName: "system-cluster-critical" }));
    expect(created.spec.priority).toBe(2_000_000_000);
    expect((await client.create<Pod>(PODS, "default", pod("plain"))).spec.priority).toBe(0);
    const unknown = await failure(client.create(PODS, "default", pod("x", { priorityClassName: "nope" })));
    expect(unknown.code).toBe(403);
    expect(unknown.message).toBe('pods "x" is forbidden: no PriorityClass with name nope was found');
  });

  it("refuses a negative scale with upstream's Invalid", async () => {
    const { client } = await start({ nodes: 1 });
    await client.create({ group: "apps", version: "v1", resource: "replicasets", namespaced: true }, "default", {
      metadata: { name: "rs" },
      spec: {
        replicas: 1,
        selector: { matchLabels: { a: "b" } },
        template: { metadata: { labels: { a: "b" } }, spec: { containers: [{ name: "c", image: "x" }] } },
      },
    });
    const scale = await client.request("GET", "/apis/apps/v1/namespaces/default/replicasets/rs/scale");
    expect(scale).toMatchObject({ kind: "Scale", apiVersion: "autoscaling/v1", spec: { replicas: 1 }, status: { selector: "a=b" } });
    const refused = await failure(
      client.request("PATCH", "/apis/apps/v1/namespaces/default/replicasets/rs/scale", {
        body: { spec: { replicas: -1 } },
        contentType: "application/merge-patch+json",
      }),
    );
    expect(refused.code).toBe(422);
    expect(refused.message).toBe('Scale.autoscaling "rs" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0');
  });

  it('merges a scale patch as the API server does: a "__proto__" key is data, never the scale\'s spec', async () => {
    const { client } = await start({ nodes: 1 });
    await client.create({ group: "apps", version: "v1", resource: "replicasets", namespaced: true }, "default", {
      metadata: { name: "rs" },
      spec: {
        replicas: 1,
        selector: { matchLabels: { a: "b" } },
        template: { metadata: { labels: { a: "b" } }, spec: { containers: [{ name: "c", image: "x" }] } },
      },
    });
    const patch = JSON.parse('{"spec":{"replicas":null,"__proto__":{"replicas":5}}}') as unknown;
    const refused = await failure(
      client.request("PATCH", "/apis/apps/v1/namespaces/default/replicasets/rs/scale", {
        body: patch,
        contentType: "application/merge-patch+json",
      }),
    );
    expect(refused.code).toBe(422);
    const scale = await client.request("GET", "/apis/apps/v1/namespaces/default/replicasets/rs/scale");
    expect(scale).toMatchObject({ spec: { replicas: 1 } });
  });
});
