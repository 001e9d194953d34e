import type { KubeObject } from "@kubekit/generic-controlplane";
import { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../../test/kubectl.js";
import { startSimCluster, type SimCluster } from "../cluster.js";
import { NODES, PODS, PRIORITY_CLASSES } from "../refs.js";

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
  spec: { nodeName?: string };
  status: { phase?: string; conditions?: Array<{ type: string; status: string; reason?: string; message?: string }> };
};

const pod = (name: string, spec: Record<string, unknown> = {}) => ({
  metadata: { name },
  spec: { containers: [{ name: "c", image: "x" }], ...spec },
});
const cpu = (amount: string) => ({ containers: [{ name: "c", image: "x", resources: { requests: { cpu: amount } } }] });

async function unschedulableMessage(c: KubeClient, name: string): Promise<string | undefined> {
  return eventually(`${name} to be unschedulable`, async () => {
    const p = await c.get<Pod>(PODS, "default", name);
    return p.status.conditions?.find((x) => x.type === "PodScheduled" && x.reason === "Unschedulable")?.message;
  });
}

async function placed(c: KubeClient, name: string): Promise<string> {
  return eventually(`${name} to be bound`, async () => (await c.get<Pod>(PODS, "default", name)).spec.nodeName);
}

// Each case starts a cluster and waits on several rollouts: more than the default 5 s on a loaded machine.
describe("scheduler", { timeout: 20_000 }, () => {
  it("keeps pods off a tainted node unless they tolerate it, and reports each reason with its count", async () => {
    const { client } = await start({
      nodes: [{ name: "gpu", taints: [{ key: "dedicated", value: "gpu", effect: "NoSchedule" }] }, { name: "n2" }, { name: "n3" }],
    });
    const zoned = {
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchExpressions: [{ key: "zone", operator: "In", values: ["z1"] }] }],
          },
        },
      },
    };
    await client.create(PODS, "default", pod("zoned", zoned));
    expect(await unschedulableMessage(client, "zoned")).toBe(
      "0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 2 node(s) didn't match Pod's node affinity/selector.",
    );

    // A node gaining the label is a cluster event: the pod is attempted again.
    await client.patch(NODES, undefined, "n3", { metadata: { labels: { zone: "z1" } } }, "application/merge-patch+json");
    expect(await placed(client, "zoned")).toBe("n3");

    for (let i = 0; i < 4; i++) await client.create(PODS, "default", pod(`plain-${i}`));
    const nodes = await Promise.all([0, 1, 2, 3].map((i) => placed(client, `plain-${i}`)));
    expect(nodes.includes("gpu")).toBe(false);

    const tolerating = {
      tolerations: [{ key: "dedicated", operator: "Equal", value: "gpu", effect: "NoSchedule" }],
      affinity: {
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [{ matchFields: [{ key: "metadata.name", operator: "In", values: ["gpu"] }] }],
          },
        },
      },
    };
    await client.create(PODS, "default", pod("on-gpu", tolerating));
    expect(await placed(client, "on-gpu")).toBe("gpu");
  });

  it("keeps pods off a control-plane node, and honours preferred node affinity", async () => {
    const { client } = await start({
      nodes: [
        {
          name: "cp",
          labels: { "node-role.kubernetes.io/control-plane": "" },
          taints: [{ key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" }],
        },
        { name: "w1", labels: { zone: "a" } },
        { name: "w2", labels: { zone: "b" } },
      ],
    });
    const preferB = {
      affinity: {
        nodeAffinity: {
          preferredDuringSchedulingIgnoredDuringExecution: [
            { weight: 100, preference: { matchExpressions: [{ key: "zone", operator: "In", values: ["b"] }] } },
          ],
        },
      },
    };
    for (let i = 0; i < 3; i++) {
      await client.create(PODS, "default", pod(`prefers-b-${i}`, preferB));
      expect(await placed(client, `prefers-b-${i}`)).toBe("w2");
    }
    await client.create(PODS, "default", pod("only-cp", { nodeSelector: { "node-role.kubernetes.io/control-plane": "" } }));
    expect(await unschedulableMessage(client, "only-cp")).toBe(
      "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 node(s) didn't match Pod's node affinity/selector.",
    );
  });

  it("a pending pod that gains a toleration is attempted again", async () => {
    const { client } = await start({ nodes: [{ name: "tainted", taints: [{ key: "dedicated", value: "db", effect: "NoSchedule" }] }] });
    await client.create(PODS, "default", pod("db"));
    expect(await unschedulableMessage(client, "db")).toBe("0/1 nodes are available: 1 node(s) had untolerated taint {dedicated: db}.");
    await client.patch(
      PODS,
      "default",
      "db",
      { spec: { tolerations: [{ key: "dedicated", operator: "Equal", value: "db", effect: "NoSchedule" }] } },
      "application/strategic-merge-patch+json",
    );
    expect(await placed(client, "db")).toBe("tainted");
  });

  it("a cordoned node gets no new pods; uncordoning it is a cluster event", async () => {
    const { client } = await start({ nodes: 1 });
    await client.patch(NODES, undefined, "sim-node-1", { spec: { unschedulable: true } }, "application/merge-patch+json");
    await client.create(PODS, "default", pod("waits"));
    expect(await unschedulableMessage(client, "waits")).toBe("0/1 nodes are available: 1 node(s) were unschedulable.");
    await client.patch(NODES, undefined, "sim-node-1", { spec: { unschedulable: null } }, "application/merge-patch+json");
    expect(await placed(client, "waits")).toBe("sim-node-1");
  });

  it("attempts pending pods highest priority first (there is no preemption)", async () => {
    const { client } = await start({ nodes: 1, nodeCapacity: { cpu: "1" } });
    await client.create(PRIORITY_CLASSES, undefined, { metadata: { name: "high" }, value: 1000 });
    await client.create(PODS, "default", pod("blocker", cpu("1")));
    expect(await placed(client, "blocker")).toBe("sim-node-1");
    await client.create(PODS, "default", pod("low", cpu("1")));
    expect(await unschedulableMessage(client, "low")).toBe("0/1 nodes are available: 1 Insufficient cpu.");
    await client.create(PODS, "default", pod("high", { ...cpu("1"), priorityClassName: "high" }));
    // No preemption: the high-priority pod waits rather than evicting the running one.
    expect(await unschedulableMessage(client, "high")).toBe("0/1 nodes are available: 1 Insufficient cpu.");
    expect((await client.get<Pod>(PODS, "default", "blocker")).spec.nodeName).toBe("sim-node-1");

    await client.delete(PODS, "default", "blocker");
    expect(await placed(client, "high")).toBe("sim-node-1");
    const low = await client.get<Pod>(PODS, "default", "low");
    expect(low.spec.nodeName).toBeUndefined();
  });

  it("counts a terminating pod against its node until it is gone, as upstream's NodeInfo does", async () => {
    // The kubelet takes 3 s to stop the deleted pod: its room frees only when it is removed.
    const { client } = await start({ nodes: 1, nodeCapacity: { cpu: "1" }, podShutdownMs: 3_000 });
    await client.create(PODS, "default", pod("leaving", cpu("1")));
    expect(await placed(client, "leaving")).toBe("sim-node-1");
    await client.delete(PODS, "default", "leaving");
    expect((await client.get<Pod>(PODS, "default", "leaving")).metadata?.deletionTimestamp).toBeDefined();
    await client.create(PODS, "default", pod("next", cpu("1")));
    expect(await unschedulableMessage(client, "next")).toBe("0/1 nodes are available: 1 Insufficient cpu.");
    expect((await client.get<Pod>(PODS, "default", "leaving")).metadata?.deletionTimestamp).toBeDefined();
    expect(await placed(client, "next")).toBe("sim-node-1");
    await eventually("the terminating pod to be gone", async () =>
      (await client.list<Pod>(PODS, "default", { fieldSelector: "metadata.name=leaving" })).items.length === 0 ? true : undefined,
    );
  });
});
