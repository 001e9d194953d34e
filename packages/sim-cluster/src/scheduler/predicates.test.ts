// Port of test/e2e/scheduling/predicates.go, SchedulerPredicates "validates that NodeSelector is
// respected if not matching" (conformance: Scheduler, node selector not matching): the test waits
// for the scheduler's FailedScheduling event about the pod, then counts the pod not scheduled.
import type { KubeObject } from "@kubekit/generic-controlplane";
import { EVENTS, KubeClient } from "@kubekit/generic-controlplane/controllers";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../../test/kubectl.js";
import { startSimCluster, type SimCluster } from "../cluster.js";
import { PODS } from "../refs.js";

let cluster: SimCluster | undefined;
let client: KubeClient | undefined;
afterEach(async () => {
  client?.close();
  client = undefined;
  await cluster?.close();
  cluster = undefined;
});

type Event = KubeObject & {
  type?: string;
  reason?: string;
  message?: string;
  involvedObject?: { kind?: string; name?: string };
  source?: { component?: string };
};
type Pod = KubeObject & { spec: { nodeName?: string }; status: { conditions?: Array<{ type: string; status: string; reason?: string }> } };

/** scheduleFailureEvent(podName). */
const scheduleFailureEvent = (podName: string) => (e: Event) =>
  (e.metadata?.name ?? "").startsWith(podName) && e.type === "Warning" && e.reason === "FailedScheduling";

/** GetPodsScheduled: bound pods with PodScheduled=True, and unbound ones Unschedulable. */
function podsScheduled(pods: readonly Pod[]): { scheduled: Pod[]; notScheduled: Pod[] } {
  const condition = (p: Pod) => p.status.conditions?.find((c) => c.type === "PodScheduled");
  return {
    scheduled: pods.filter((p) => p.spec.nodeName && condition(p)?.status === "True"),
    notScheduled: pods.filter((p) => !p.spec.nodeName && condition(p)?.status === "False" && condition(p)?.reason === "Unschedulable"),
  };
}

describe("SchedulerPredicates", { timeout: 20_000 }, () => {
  it("validates that NodeSelector is respected if not matching", async () => {
    cluster = await startSimCluster({ nodes: 2 });
    client = new KubeClient({ server: cluster.url });
    const c = client;
    const ns = "default";
    const podName = "restricted-pod";
    // WaitForSchedulerAfterAction(createPausePodAction(...), ns, podName, false).
    await c.create(PODS, ns, {
      metadata: { name: podName, labels: { name: "restricted" } },
      spec: { containers: [{ name: podName, image: "registry.k8s.io/pause:3.10" }], nodeSelector: { label: "nonempty" } },
    });
    const event = await eventually("a FailedScheduling event about the pod", async () =>
      (await c.list<Event>(EVENTS, ns)).items.find(scheduleFailureEvent(podName)),
    );
    expect(event).toMatchObject({
      involvedObject: { kind: "Pod", name: podName },
      source: { component: "default-scheduler" },
      message: "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.",
    });
    // verifyResult(cs, 0, 1, ns).
    const { scheduled, notScheduled } = podsScheduled((await c.list<Pod>(PODS, ns)).items);
    expect(notScheduled).toHaveLength(1);
    expect(scheduled).toHaveLength(0);
  });

  it("reports a bound pod with a Scheduled event", async () => {
    cluster = await startSimCluster({ nodes: 1 });
    client = new KubeClient({ server: cluster.url });
    const c = client;
    await c.create(PODS, "default", { metadata: { name: "placed" }, spec: { containers: [{ name: "c", image: "x" }] } });
    const event = await eventually("a Scheduled event", async () =>
      (await c.list<Event>(EVENTS, "default")).items.find((e) => e.reason === "Scheduled" && e.involvedObject?.name === "placed"),
    );
    expect(event).toMatchObject({
      type: "Normal",
      message: "Successfully assigned default/placed to sim-node-1",
      source: { component: "default-scheduler" },
    });
  });
});
