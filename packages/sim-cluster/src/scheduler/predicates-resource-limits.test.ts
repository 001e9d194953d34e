// Port of test/e2e/scheduling/predicates.go, SchedulerPredicates "validates resource limits of
// pods that are allowed to run" (conformance: Scheduler, resource limits): every node gets a
// `node=<name>` label and a filler pod pinned to it that takes 70% of its remaining CPU; another
// pod asking for half the largest node's allocatable CPU then fits nowhere, the scheduler says so
// with a FailedScheduling event, and the fillers stay scheduled while it stays pending.
import { randomUUID } from "node:crypto";
import type { KubeObject } from "@kubekit/generic-controlplane";
import { EVENTS, KubeClient } from "@kubekit/generic-controlplane/controllers";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../../test/kubectl.js";
import { startSimCluster, type SimCluster } from "../cluster.js";
import { parseMilli } from "../quantity.js";
import { NODES, PODS } from "../refs.js";

let cluster: SimCluster | undefined;
let client: KubeClient | undefined;
afterEach(async () => {
  client?.close();
  client = undefined;
  await cluster?.close();
  cluster = undefined;
});

type Node = KubeObject & { status: { allocatable: Record<string, string>; conditions: Array<{ type: string; status: string }> } };
type Pod = KubeObject & {
  spec: { nodeName?: string; containers: Array<{ resources?: { requests?: Record<string, string> } }> };
  status: { phase?: string; conditions?: Array<{ type: string; status: string; reason?: string }> };
};
type Event = KubeObject & { type?: string; reason?: string; message?: string; involvedObject?: { name?: string } };

/** getRequestedCPU: the sum of the containers' CPU requests, in millicores. */
const requestedCPU = (pod: Pod) =>
  pod.spec.containers.reduce((sum, c) => sum + Number(parseMilli(c.resources?.requests?.cpu ?? "0") ?? 0n), 0);

/** createPausePod(pausePodConfig): one pause container named after the pod. */
function pausePod(name: string, cpuMilli: number, extra: { labels?: Record<string, string>; nodeName?: string }): KubeObject {
  const cpu = `${cpuMilli}m`;
  return {
    metadata: { name, ...(extra.labels ? { labels: extra.labels } : {}) },
    spec: {
      containers: [{ name, image: "registry.k8s.io/pause:3.10", resources: { limits: { cpu }, requests: { cpu } } }],
      ...(extra.nodeName
        ? {
            affinity: {
              nodeAffinity: {
                requiredDuringSchedulingIgnoredDuringExecution: {
                  nodeSelectorTerms: [{ matchExpressions: [{ key: "node", operator: "In", values: [extra.nodeName] }] }],
                },
              },
            },
          }
        : {}),
    },
  };
}

describe("SchedulerPredicates", { timeout: 30_000 }, () => {
  it("validates resource limits of pods that are allowed to run", async () => {
    cluster = await startSimCluster({ nodes: 3 });
    client = new KubeClient({ server: cluster.url });
    const cs = client;
    const ns = "default";
    const nodeList = await eventually("the nodes Ready", async () => {
      const nodes = (await cs.list<Node>(NODES)).items;
      return nodes.length === 3 && nodes.every((n) => n.status.conditions.some((c) => c.type === "Ready" && c.status === "True"))
        ? nodes
        : undefined;
    });

    let nodeMaxAllocatable = 0;
    const nodeToAllocatableMap = new Map<string, number>();
    for (const node of nodeList) {
      const name = node.metadata!.name!;
      await cs.patch(NODES, undefined, name, { metadata: { labels: { node: name } } });
      expect((await cs.get(NODES, undefined, name)).metadata?.labels?.node).toBe(name);
      const allocatable = node.status.allocatable.cpu;
      expect(allocatable, `node ${name} has no allocatable cpu`).toBeDefined();
      const milli = Number(parseMilli(allocatable!));
      nodeToAllocatableMap.set(name, milli);
      nodeMaxAllocatable = Math.max(nodeMaxAllocatable, milli);
    }

    for (const pod of (await cs.list<Pod>(PODS)).items) {
      const left = nodeToAllocatableMap.get(pod.spec.nodeName ?? "");
      if (left !== undefined && pod.status.phase !== "Succeeded" && pod.status.phase !== "Failed")
        nodeToAllocatableMap.set(pod.spec.nodeName!, left - requestedCPU(pod));
    }

    // Starting Pods to consume most of the cluster CPU: one per node with 70% of what is left.
    const fillerPods: string[] = [];
    for (const [nodeName, cpu] of nodeToAllocatableMap) {
      const name = `filler-pod-${randomUUID()}`;
      await cs.create(PODS, ns, pausePod(name, Math.floor((cpu * 7) / 10), { nodeName }));
      fillerPods.push(name);
    }
    for (const name of fillerPods) {
      await eventually(`${name} running`, async () => ((await cs.get<Pod>(PODS, ns, name)).status.phase === "Running" ? true : undefined));
    }

    // Creating another pod that requires unavailable amount of CPU: half the largest node's.
    const podName = "additional-pod";
    await cs.create(PODS, ns, pausePod(podName, Math.floor((nodeMaxAllocatable * 5) / 10), { labels: { name: "additional" } }));
    const event = await eventually("a FailedScheduling event about the pod", async () =>
      (await cs.list<Event>(EVENTS, ns)).items.find(
        (e) => (e.metadata?.name ?? "").startsWith(podName) && e.type === "Warning" && e.reason === "FailedScheduling",
      ),
    );
    expect(event.involvedObject?.name).toBe(podName);

    // verifyResult(cs, len(fillerPods), 1, ns).
    const pods = (await cs.list<Pod>(PODS, ns)).items;
    const condition = (p: Pod) => p.status.conditions?.find((c) => c.type === "PodScheduled");
    const scheduled = pods.filter((p) => p.spec.nodeName && condition(p)?.status === "True");
    const notScheduled = pods.filter(
      (p) => !p.spec.nodeName && condition(p)?.status === "False" && condition(p)?.reason === "Unschedulable",
    );
    expect(scheduled).toHaveLength(fillerPods.length);
    expect(notScheduled).toHaveLength(1);
  });
});
