import type { Node } from "../resources/nodes.js";
import type { Pod } from "../resources/pods.js";

export interface Taint {
  key: string;
  value?: string;
  effect: string;
  timeAdded?: string;
}

export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number;
}

export const TAINT_NODE_NOT_READY = "node.kubernetes.io/not-ready";
export const TAINT_NODE_UNREACHABLE = "node.kubernetes.io/unreachable";
export const TAINT_NODE_UNSCHEDULABLE = "node.kubernetes.io/unschedulable";
export const TAINT_NODE_DISK_PRESSURE = "node.kubernetes.io/disk-pressure";
export const TAINT_NODE_MEMORY_PRESSURE = "node.kubernetes.io/memory-pressure";
export const TAINT_NODE_PID_PRESSURE = "node.kubernetes.io/pid-pressure";
export const TAINT_NODE_NETWORK_UNAVAILABLE = "node.kubernetes.io/network-unavailable";
/** The taint kubeadm puts on control-plane nodes. */
export const TAINT_CONTROL_PLANE = "node-role.kubernetes.io/control-plane";

export function tolerationsOf(pod: Pod): Toleration[] {
  return (pod.spec?.["tolerations"] as Toleration[] | undefined) ?? [];
}

/**
 * `Toleration.ToleratesTaint`: the effects agree (an empty effect matches all), the keys agree
 * (an empty key with `Exists` matches every taint), and `Equal` (the default) compares values
 * while `Exists` ignores them.
 */
export function toleratesTaint(toleration: Toleration, taint: Taint): boolean {
  if (toleration.effect && toleration.effect !== taint.effect) return false;
  if (toleration.key && toleration.key !== taint.key) return false;
  switch (toleration.operator ?? "Equal") {
    case "":
    case "Equal":
      return (toleration.value ?? "") === (taint.value ?? "");
    case "Exists":
      return true;
    default:
      return false;
  }
}

export function isTolerated(taint: Taint, tolerations: readonly Toleration[]): boolean {
  return tolerations.some((t) => toleratesTaint(t, taint));
}

/** `FindMatchingUntoleratedTaint`: the first taint selected by `include` that no toleration tolerates. */
export function findUntoleratedTaint(
  taints: readonly Taint[],
  tolerations: readonly Toleration[],
  include: (taint: Taint) => boolean,
): Taint | undefined {
  return taints.find((taint) => include(taint) && !isTolerated(taint, tolerations));
}

export const isNoScheduleOrNoExecute = (taint: Taint): boolean => taint.effect === "NoSchedule" || taint.effect === "NoExecute";

/**
 * The taints the scheduler sees on a node: its own, plus the ones the node lifecycle controller
 * would have put there from its conditions (`TaintNodesByCondition`): not-ready when Ready is
 * False, unreachable when Ready is Unknown or missing.
 */
export function schedulingTaints(node: Node): Taint[] {
  const taints: Taint[] = [...((node.spec?.taints as Taint[] | undefined) ?? [])];
  const ready = node.status?.conditions?.find((c) => c.type === "Ready");
  const implied = ready?.status === "True" ? undefined : ready?.status === "False" ? TAINT_NODE_NOT_READY : TAINT_NODE_UNREACHABLE;
  if (implied !== undefined && !taints.some((t) => t.key === implied && t.effect === "NoSchedule"))
    taints.push({ key: implied, effect: "NoSchedule" });
  return taints;
}

/** The TaintToleration filter's reason, upstream's `node(s) had untolerated taint {key: value}`. */
export function untoleratedTaintReason(taint: Taint): string {
  return `node(s) had untolerated taint {${taint.key}: ${taint.value ?? ""}}`;
}

/** The TaintToleration filter: the reason the pod may not go to a node with these taints, if any. */
export function taintTolerationReason(pod: Pod, taints: readonly Taint[]): string | undefined {
  const taint = findUntoleratedTaint(taints, tolerationsOf(pod), isNoScheduleOrNoExecute);
  return taint === undefined ? undefined : untoleratedTaintReason(taint);
}

/** The TaintToleration score before normalising: how many PreferNoSchedule taints the pod does not tolerate (fewer is better). */
export function intolerablePreferNoScheduleCount(pod: Pod, taints: readonly Taint[]): number {
  // The pod's tolerations are sorted out only for a node that has such a taint: most have none.
  let tolerations: Toleration[] | undefined;
  let count = 0;
  for (const taint of taints) {
    if (taint.effect !== "PreferNoSchedule") continue;
    tolerations ??= tolerationsOf(pod).filter((t) => !t.effect || t.effect === "PreferNoSchedule");
    if (!isTolerated(taint, tolerations)) count++;
  }
  return count;
}

/** The NodeUnschedulable filter: a cordoned node takes only pods tolerating `node.kubernetes.io/unschedulable:NoSchedule`. */
export function unschedulableReason(pod: Pod, node: Node): string | undefined {
  if (node.spec?.unschedulable !== true) return undefined;
  return isTolerated({ key: TAINT_NODE_UNSCHEDULABLE, effect: "NoSchedule" }, tolerationsOf(pod))
    ? undefined
    : "node(s) were unschedulable";
}
