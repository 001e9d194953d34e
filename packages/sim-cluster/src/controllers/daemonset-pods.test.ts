import { describe, expect, it } from "vitest";
import type { DaemonSet } from "../resources/daemonsets.js";
import type { Node } from "../resources/nodes.js";
import type { Pod } from "../resources/pods.js";
import { daemonPodFor, nodeShouldRunDaemonPod, rollingUpdateStep, targetNodeName } from "./daemonset-pods.js";

const ds = (
  podSpec: Record<string, unknown> = {},
  rollingUpdate: Record<string, unknown> = { maxUnavailable: 1, maxSurge: 0 },
): DaemonSet => ({
  metadata: { name: "ds", namespace: "default", uid: "u" },
  spec: {
    selector: { matchLabels: { app: "a" } },
    template: { metadata: { labels: { app: "a" } }, spec: { containers: [{ name: "c", image: "x" }], ...podSpec } },
    updateStrategy: { type: "RollingUpdate", rollingUpdate },
  },
});
const node = (
  name: string,
  labels: Record<string, string> = {},
  taints: Array<{ key: string; value?: string; effect: string }> = [],
): Node => ({ metadata: { name, labels }, spec: { taints } });

// After pkg/controller/daemon's TestNodeShouldRunDaemonPod.
describe("nodeShouldRunDaemonPod", () => {
  const cases: Array<{ name: string; ds: DaemonSet; node: Node; shouldRun: boolean; shouldContinueRunning: boolean }> = [
    { name: "a plain node", ds: ds(), node: node("n"), shouldRun: true, shouldContinueRunning: true },
    {
      name: "nodeSelector not matching",
      ds: ds({ nodeSelector: { disk: "ssd" } }),
      node: node("n"),
      shouldRun: false,
      shouldContinueRunning: false,
    },
    { name: "nodeName of another node", ds: ds({ nodeName: "other" }), node: node("n"), shouldRun: false, shouldContinueRunning: false },
    {
      name: "required node affinity not matching",
      ds: ds({
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchExpressions: [{ key: "type", operator: "In", values: ["gpu"] }] }],
            },
          },
        },
      }),
      node: node("n", { type: "cpu" }),
      shouldRun: false,
      shouldContinueRunning: false,
    },
    {
      name: "an untolerated NoSchedule taint: no new pod, the old one stays",
      ds: ds(),
      node: node("n", {}, [{ key: "k", effect: "NoSchedule" }]),
      shouldRun: false,
      shouldContinueRunning: true,
    },
    {
      name: "an untolerated NoExecute taint",
      ds: ds(),
      node: node("n", {}, [{ key: "k", effect: "NoExecute" }]),
      shouldRun: false,
      shouldContinueRunning: false,
    },
    {
      name: "a tolerated taint",
      ds: ds({ tolerations: [{ key: "k", operator: "Exists" }] }),
      node: node("n", {}, [{ key: "k", effect: "NoExecute" }]),
      shouldRun: true,
      shouldContinueRunning: true,
    },
    {
      name: "a cordoned node's taint is tolerated by default",
      ds: ds(),
      node: node("n", {}, [{ key: "node.kubernetes.io/unschedulable", effect: "NoSchedule" }]),
      shouldRun: true,
      shouldContinueRunning: true,
    },
    {
      name: "a not-ready node's NoExecute taint is tolerated by default",
      ds: ds(),
      node: node("n", {}, [{ key: "node.kubernetes.io/not-ready", effect: "NoExecute" }]),
      shouldRun: true,
      shouldContinueRunning: true,
    },
    {
      name: "PreferNoSchedule does not keep the pod off",
      ds: ds(),
      node: node("n", {}, [{ key: "k", effect: "PreferNoSchedule" }]),
      shouldRun: true,
      shouldContinueRunning: true,
    },
  ];
  for (const c of cases)
    it(c.name, () =>
      expect(nodeShouldRunDaemonPod(c.node, c.ds)).toEqual({ shouldRun: c.shouldRun, shouldContinueRunning: c.shouldContinueRunning }),
    );
});

describe("daemon pods", () => {
  it("replace the template's required node affinity by the node's name and keep the rest", () => {
    const pod = daemonPodFor(
      ds({
        affinity: {
          nodeAffinity: {
            requiredDuringSchedulingIgnoredDuringExecution: {
              nodeSelectorTerms: [{ matchExpressions: [{ key: "a", operator: "Exists" }] }],
            },
            preferredDuringSchedulingIgnoredDuringExecution: [
              { weight: 1, preference: { matchExpressions: [{ key: "b", operator: "Exists" }] } },
            ],
          },
        },
        hostNetwork: true,
        tolerations: [{ key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute", tolerationSeconds: 10 }],
      }),
      "n1",
      "h1",
    );
    expect(pod.metadata?.labels).toEqual({ app: "a", "controller-revision-hash": "h1" });
    expect(pod.spec?.["affinity"]).toEqual({
      nodeAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: {
          nodeSelectorTerms: [{ matchFields: [{ key: "metadata.name", operator: "In", values: ["n1"] }] }],
        },
        preferredDuringSchedulingIgnoredDuringExecution: [
          { weight: 1, preference: { matchExpressions: [{ key: "b", operator: "Exists" }] } },
        ],
      },
    });
    const tolerations = pod.spec?.["tolerations"] as Array<{ key: string; tolerationSeconds?: number }>;
    // The default replaces one of the same key and effect; host networking adds network-unavailable.
    expect(tolerations.filter((t) => t.key === "node.kubernetes.io/not-ready")).toEqual([
      { key: "node.kubernetes.io/not-ready", operator: "Exists", effect: "NoExecute" },
    ]);
    expect(tolerations.map((t) => t.key)).toContain("node.kubernetes.io/network-unavailable");
    expect(targetNodeName(pod)).toBe("n1");
  });
});

const ready = (name: string, hash: string, readySince = "2020-01-01T00:00:00Z"): Pod => ({
  metadata: { name, labels: { "controller-revision-hash": hash }, creationTimestamp: readySince },
  status: { phase: "Running", conditions: [{ type: "Ready", status: "True", lastTransitionTime: readySince }] },
});
const notReady = (name: string, hash: string): Pod => ({
  metadata: { name, labels: { "controller-revision-hash": hash } },
  status: { phase: "Pending" },
});
const names = (pods: Pod[]) => pods.map((p) => p.metadata?.name);

// After pkg/controller/daemon's TestDaemonSetUpdatesPods, TestDaemonSetUpdatesWhenNewPodIsNotReady and the surge cases of TestRollingUpdate.
describe("rollingUpdateStep", () => {
  const now = Date.parse("2020-01-02T00:00:00Z");
  const all = () => true;

  it("deletes at most maxUnavailable available old pods", () => {
    const nodes = new Map([
      ["a", [ready("a-old", "old")]],
      ["b", [ready("b-old", "old")]],
      ["c", [ready("c-old", "old")]],
    ]);
    expect(names(rollingUpdateStep(ds(), nodes, "new", 3, all, now).deletePods)).toEqual(["a-old"]);
    expect(names(rollingUpdateStep(ds({}, { maxUnavailable: 2, maxSurge: 0 }), nodes, "new", 3, all, now).deletePods)).toEqual([
      "a-old",
      "b-old",
    ]);
  });

  it("waits while a new pod is unavailable, but always replaces unavailable old pods", () => {
    const nodes = new Map([
      ["a", [notReady("a-new", "new")]],
      ["b", [ready("b-old", "old")]],
      ["c", [notReady("c-old", "old")]],
    ]);
    expect(names(rollingUpdateStep(ds(), nodes, "new", 3, all, now).deletePods)).toEqual(["c-old"]);
  });

  it("counts minReadySeconds for availability", () => {
    const spec = ds();
    spec.spec!.minReadySeconds = 3600;
    const nodes = new Map([
      ["a", [ready("a-new", "new", "2020-01-01T23:30:00Z")]],
      ["b", [ready("b-old", "old")]],
    ]);
    expect(names(rollingUpdateStep(spec, nodes, "new", 2, all, now).deletePods)).toEqual([]);
  });

  it("with maxSurge, starts new pods beside old ones and deletes an old one once its new one is available", () => {
    const surge = ds({}, { maxUnavailable: 0, maxSurge: 1 });
    const fresh = new Map([
      ["a", [ready("a-old", "old")]],
      ["b", [ready("b-old", "old")]],
    ]);
    expect(rollingUpdateStep(surge, fresh, "new", 2, all, now)).toEqual({ deletePods: [], createOn: ["a"] });
    const surging = new Map([
      ["a", [ready("a-old", "old"), notReady("a-new", "new")]],
      ["b", [ready("b-old", "old")]],
    ]);
    expect(rollingUpdateStep(surge, surging, "new", 2, all, now)).toEqual({ deletePods: [], createOn: [] });
    const surged = new Map([
      ["a", [ready("a-old", "old"), ready("a-new", "new")]],
      ["b", [ready("b-old", "old")]],
    ]);
    expect(rollingUpdateStep(surge, surged, "new", 2, all, now)).toEqual({ deletePods: [surged.get("a")![0]], createOn: ["b"] });
  });
});
