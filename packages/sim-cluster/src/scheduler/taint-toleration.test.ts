import { describe, expect, it } from "vitest";
import type { Node } from "../resources/nodes.js";
import type { Pod } from "../resources/pods.js";
import {
  intolerablePreferNoScheduleCount,
  schedulingTaints,
  taintTolerationReason,
  toleratesTaint,
  unschedulableReason,
  type Taint,
  type Toleration,
} from "./taint-toleration.js";

const podWith = (tolerations: Toleration[]): Pod => ({ spec: { containers: [], tolerations } });

// After staging/src/k8s.io/api/core/v1's TestTolerationToleratesTaint.
describe("Toleration.ToleratesTaint", () => {
  const taint: Taint = { key: "foo", value: "bar", effect: "NoSchedule" };
  const cases: Array<{ name: string; toleration: Toleration; taint?: Taint; tolerates: boolean }> = [
    { name: "an empty key with Exists tolerates every taint", toleration: { operator: "Exists" }, tolerates: true },
    { name: "Exists with the key and no effect", toleration: { key: "foo", operator: "Exists" }, tolerates: true },
    {
      name: "Equal with the same value",
      toleration: { key: "foo", operator: "Equal", value: "bar", effect: "NoSchedule" },
      tolerates: true,
    },
    { name: "the operator defaults to Equal", toleration: { key: "foo", value: "bar" }, tolerates: true },
    { name: "Equal with another value", toleration: { key: "foo", operator: "Equal", value: "baz" }, tolerates: false },
    { name: "another effect", toleration: { key: "foo", operator: "Exists", effect: "NoExecute" }, tolerates: false },
    { name: "another key", toleration: { key: "other", operator: "Exists" }, tolerates: false },
    {
      name: "Equal without a value tolerates an empty-valued taint",
      toleration: { key: "dedicated", operator: "Equal" },
      taint: { key: "dedicated", effect: "NoSchedule" },
      tolerates: true,
    },
    { name: "an unknown operator", toleration: { key: "foo", operator: "Gt", value: "1" }, tolerates: false },
  ];
  for (const c of cases) it(c.name, () => expect(toleratesTaint(c.toleration, c.taint ?? taint)).toBe(c.tolerates));
});

// After pkg/scheduler/framework/plugins/tainttoleration/taint_toleration_test.go (TestTaintTolerationFilter).
describe("TaintToleration filter", () => {
  const dedicated: Taint = { key: "dedicated", value: "user1", effect: "NoSchedule" };
  const cases: Array<{ name: string; pod: Pod; taints: Taint[]; reason?: string }> = [
    { name: "a pod without tolerations on a node without taints", pod: podWith([]), taints: [] },
    {
      name: "a pod without tolerations on a tainted node",
      pod: podWith([]),
      taints: [dedicated],
      reason: "node(s) had untolerated taint {dedicated: user1}",
    },
    { name: "a toleration of the taint", pod: podWith([{ key: "dedicated", value: "user1", effect: "NoSchedule" }]), taints: [dedicated] },
    {
      name: "a toleration of another value",
      pod: podWith([{ key: "dedicated", operator: "Equal", value: "user2", effect: "NoSchedule" }]),
      taints: [dedicated],
      reason: "node(s) had untolerated taint {dedicated: user1}",
    },
    {
      name: "Exists tolerates any value",
      pod: podWith([{ key: "foo", operator: "Exists", effect: "NoSchedule" }]),
      taints: [{ key: "foo", value: "bar", effect: "NoSchedule" }],
    },
    {
      name: "NoExecute taints also keep pods off",
      pod: podWith([]),
      taints: [{ key: "gone", effect: "NoExecute" }],
      reason: "node(s) had untolerated taint {gone: }",
    },
    { name: "PreferNoSchedule does not filter", pod: podWith([]), taints: [{ key: "foo", value: "bar", effect: "PreferNoSchedule" }] },
    {
      name: "the first untolerated taint is named",
      pod: podWith([{ key: "a", operator: "Exists" }]),
      taints: [
        { key: "a", effect: "NoSchedule" },
        { key: "b", value: "2", effect: "NoSchedule" },
        { key: "c", effect: "NoSchedule" },
      ],
      reason: "node(s) had untolerated taint {b: 2}",
    },
    {
      name: "the control-plane taint",
      pod: podWith([]),
      taints: [{ key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" }],
      reason: "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }",
    },
  ];
  for (const c of cases) it(c.name, () => expect(taintTolerationReason(c.pod, c.taints)).toBe(c.reason));
});

// After TestTaintTolerationScore: PreferNoSchedule taints the pod does not tolerate count against a node.
describe("TaintToleration score", () => {
  const taints: Taint[] = [
    { key: "cpu-type", value: "arm64", effect: "PreferNoSchedule" },
    { key: "disk-type", value: "ssd", effect: "PreferNoSchedule" },
    { key: "hard", effect: "NoSchedule" },
  ];
  it("counts intolerable PreferNoSchedule taints only", () => {
    expect(intolerablePreferNoScheduleCount(podWith([]), taints)).toBe(2);
    expect(
      intolerablePreferNoScheduleCount(
        podWith([{ key: "cpu-type", operator: "Equal", value: "arm64", effect: "PreferNoSchedule" }]),
        taints,
      ),
    ).toBe(1);
    // A toleration with effect NoSchedule does not count for PreferNoSchedule taints.
    expect(intolerablePreferNoScheduleCount(podWith([{ key: "disk-type", operator: "Exists", effect: "NoSchedule" }]), taints)).toBe(2);
    expect(intolerablePreferNoScheduleCount(podWith([{ operator: "Exists" }]), taints)).toBe(0);
  });
});

describe("taints from node conditions and cordoning", () => {
  const node = (ready: string | undefined, extra: Partial<Node> = {}): Node => ({
    metadata: { name: "n" },
    status: { conditions: ready === undefined ? [] : [{ type: "Ready", status: ready as "True" }] },
    ...extra,
  });
  it("a not-ready node carries node.kubernetes.io/not-ready, an unknown one node.kubernetes.io/unreachable", () => {
    expect(schedulingTaints(node("True"))).toEqual([]);
    expect(schedulingTaints(node("False"))).toEqual([{ key: "node.kubernetes.io/not-ready", effect: "NoSchedule" }]);
    expect(schedulingTaints(node("Unknown"))).toEqual([{ key: "node.kubernetes.io/unreachable", effect: "NoSchedule" }]);
    expect(schedulingTaints(node(undefined))).toEqual([{ key: "node.kubernetes.io/unreachable", effect: "NoSchedule" }]);
    // Already put there (by a node lifecycle controller): not doubled.
    expect(
      schedulingTaints(node("False", { spec: { taints: [{ key: "node.kubernetes.io/not-ready", effect: "NoSchedule" }] } })),
    ).toHaveLength(1);
  });
  // After nodeunschedulable's TestNodeUnschedulable.
  it("a cordoned node takes only pods that tolerate node.kubernetes.io/unschedulable", () => {
    const cordoned = node("True", { spec: { unschedulable: true } });
    expect(unschedulableReason(podWith([]), cordoned)).toBe("node(s) were unschedulable");
    expect(
      unschedulableReason(podWith([{ key: "node.kubernetes.io/unschedulable", operator: "Exists", effect: "NoSchedule" }]), cordoned),
    ).toBeUndefined();
    expect(unschedulableReason(podWith([]), node("True"))).toBeUndefined();
  });
});
