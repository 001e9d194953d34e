import type { DaemonSet } from "../resources/daemonsets.js";
import type { Node } from "../resources/nodes.js";
import type { Pod } from "../resources/pods.js";
import { NODE_NAME_FIELD, nodeAffinityOf, requiredNodeAffinityMatches, type NodeAffinity } from "../scheduler/node-affinity.js";
import {
  findUntoleratedTaint,
  isNoScheduleOrNoExecute,
  TAINT_NODE_DISK_PRESSURE,
  TAINT_NODE_MEMORY_PRESSURE,
  TAINT_NODE_NETWORK_UNAVAILABLE,
  TAINT_NODE_NOT_READY,
  TAINT_NODE_PID_PRESSURE,
  TAINT_NODE_UNREACHABLE,
  TAINT_NODE_UNSCHEDULABLE,
  tolerationsOf,
  type Taint,
  type Toleration,
} from "../scheduler/taint-toleration.js";
import { podAvailability } from "./util.js";

/** The label that ties a daemon pod (and a ControllerRevision) to the revision of the template it came from. */
export const CONTROLLER_REVISION_HASH = "controller-revision-hash";

/**
 * The tolerations every daemon pod gets (`util.AddOrUpdateDaemonPodTolerations`): it stays on a
 * node that goes not-ready or unreachable, and goes on nodes under pressure or cordoned; with
 * host networking, also on nodes whose network is not set up yet.
 */
export function daemonPodTolerations(hostNetwork: boolean): Toleration[] {
  const tolerations: Toleration[] = [
    { key: TAINT_NODE_NOT_READY, operator: "Exists", effect: "NoExecute" },
    { key: TAINT_NODE_UNREACHABLE, operator: "Exists", effect: "NoExecute" },
    { key: TAINT_NODE_DISK_PRESSURE, operator: "Exists", effect: "NoSchedule" },
    { key: TAINT_NODE_MEMORY_PRESSURE, operator: "Exists", effect: "NoSchedule" },
    { key: TAINT_NODE_PID_PRESSURE, operator: "Exists", effect: "NoSchedule" },
    { key: TAINT_NODE_UNSCHEDULABLE, operator: "Exists", effect: "NoSchedule" },
  ];
  if (hostNetwork) tolerations.push({ key: TAINT_NODE_NETWORK_UNAVAILABLE, operator: "Exists", effect: "NoSchedule" });
  return tolerations;
}

/** Adds each default toleration unless one with the same key, operator, value and effect is there already (`AddOrUpdateTolerationInPodSpec`). */
function withDefaultTolerations(existing: readonly Toleration[], hostNetwork: boolean): Toleration[] {
  const out = [...existing];
  for (const toleration of daemonPodTolerations(hostNetwork)) {
    const same = out.findIndex((t) => t.key === toleration.key && t.effect === toleration.effect);
    if (same === -1) out.push(toleration);
    else out[same] = toleration;
  }
  return out;
}

/**
 * `ReplaceDaemonSetPodNodeNameNodeAffinity`: the pod's required node affinity becomes a single
 * term selecting the node by `metadata.name`, so the scheduler puts it there (the controller has
 * already checked the template's own affinity against the node).
 */
export function nodeNameAffinity(
  affinity: { nodeAffinity?: NodeAffinity } | undefined,
  nodeName: string,
): { nodeAffinity: NodeAffinity } & Record<string, unknown> {
  const copy = structuredClone(affinity ?? {}) as { nodeAffinity?: NodeAffinity } & Record<string, unknown>;
  copy.nodeAffinity = {
    ...(copy.nodeAffinity ?? {}),
    requiredDuringSchedulingIgnoredDuringExecution: {
      nodeSelectorTerms: [{ matchFields: [{ key: NODE_NAME_FIELD, operator: "In", values: [nodeName] }] }],
    },
  };
  return copy as { nodeAffinity: NodeAffinity } & Record<string, unknown>;
}

/** The pod a DaemonSet runs on `nodeName`: its template, the revision hash label, the node affinity and the default tolerations. */
export function daemonPodFor(ds: DaemonSet, nodeName: string, hash: string): Pod {
  const template = ds.spec?.template ?? {};
  const spec = structuredClone(template.spec ?? {});
  spec["affinity"] = nodeNameAffinity(spec["affinity"] as { nodeAffinity?: NodeAffinity } | undefined, nodeName);
  spec["tolerations"] = withDefaultTolerations((spec["tolerations"] as Toleration[] | undefined) ?? [], spec["hostNetwork"] === true);
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      generateName: `${ds.metadata?.name ?? ""}-`,
      namespace: ds.metadata?.namespace ?? "",
      labels: { ...(template.metadata?.labels ?? {}), [CONTROLLER_REVISION_HASH]: hash },
      ...(template.metadata?.annotations ? { annotations: { ...template.metadata.annotations } } : {}),
    },
    spec,
  };
}

/** The node a daemon pod is for (`util.GetTargetNodeName`): its `spec.nodeName`, or the node its matchFields term names. */
export function targetNodeName(pod: Pod): string | undefined {
  if (pod.spec?.nodeName) return pod.spec.nodeName;
  for (const term of nodeAffinityOf(pod)?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? []) {
    for (const field of term.matchFields ?? []) {
      if (field.key === NODE_NAME_FIELD && field.operator === "In" && field.values?.length === 1) return field.values[0];
    }
  }
  return undefined;
}

/**
 * `NodeShouldRunDaemonPod`: whether a daemon pod should be created on the node (the template's
 * node name, node affinity and nodeSelector fit, and every NoSchedule/NoExecute taint is
 * tolerated), and whether one already there may stay (NoSchedule taints do not evict).
 */
export function nodeShouldRunDaemonPod(node: Node, ds: DaemonSet): { shouldRun: boolean; shouldContinueRunning: boolean } {
  const pod = daemonPodFor(ds, node.metadata?.name ?? "", "");
  // The template's own affinity decides, not the node-name term the controller adds.
  const template: Pod = { spec: ds.spec?.template?.spec ?? {} };
  const fitsNodeName = !template.spec?.nodeName || template.spec.nodeName === node.metadata?.name;
  const fitsAffinity = requiredNodeAffinityMatches(template, node);
  const taints = (node.spec?.taints as Taint[] | undefined) ?? [];
  const tolerations = tolerationsOf(pod);
  const fitsTaints = findUntoleratedTaint(taints, tolerations, isNoScheduleOrNoExecute) === undefined;
  const keepsRunning = findUntoleratedTaint(taints, tolerations, (t) => t.effect === "NoExecute") === undefined;
  return { shouldRun: fitsNodeName && fitsAffinity && fitsTaints, shouldContinueRunning: fitsNodeName && fitsAffinity && keepsRunning };
}

function createdAt(pod: Pod): number {
  return Date.parse(pod.metadata?.creationTimestamp ?? "") || 0;
}

/** `podByCreationTimestampAndPhase`: running pods before others, then oldest first, then by name. */
export function byCreationAndPhase(a: Pod, b: Pod): number {
  const running = (p: Pod) => (p.status?.phase === "Running" ? 0 : 1);
  return running(a) - running(b) || createdAt(a) - createdAt(b) || (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? "");
}

/** `findUpdatedPodsOnNode`: the node's one new and one old pod; `ok` false when it has two of either. */
export function updatedPodsOnNode(pods: readonly Pod[], hash: string): { ok: boolean; newPod?: Pod; oldPod?: Pod } {
  let newPod: Pod | undefined;
  let oldPod: Pod | undefined;
  for (const pod of pods) {
    if (pod.metadata?.deletionTimestamp !== undefined) continue;
    if (pod.metadata?.labels?.[CONTROLLER_REVISION_HASH] === hash) {
      if (newPod !== undefined) return { ok: false };
      newPod = pod;
    } else {
      if (oldPod !== undefined) return { ok: false };
      oldPod = pod;
    }
  }
  return { ok: true, ...(newPod ? { newPod } : {}), ...(oldPod ? { oldPod } : {}) };
}

/** An int-or-percent of the update strategy against the number of nodes to schedule, rounding up (as upstream for both fields). */
function scaled(value: number | string | undefined, total: number): number {
  if (value === undefined) return 0;
  if (typeof value === "number") return value;
  return Math.ceil((Number(value.slice(0, -1)) * total) / 100);
}

/** `updatedDesiredNodeCounts`: maxSurge and maxUnavailable as numbers of nodes (maxUnavailable at least 1 when maxSurge is 0). */
export function surgeAndUnavailable(ds: DaemonSet, desired: number): { maxSurge: number; maxUnavailable: number } {
  const rolling = ds.spec?.updateStrategy?.rollingUpdate;
  const maxSurge = scaled(rolling?.maxSurge, desired);
  let maxUnavailable = scaled(rolling?.maxUnavailable, desired);
  if (maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
  return { maxSurge, maxUnavailable };
}

/**
 * One step of a RollingUpdate (upstream `rollingUpdate`): which old pods to delete and on which
 * nodes to create a new pod ahead of the old one (surge). Without surge, old pods go while fewer
 * than maxUnavailable nodes are unavailable (unavailable old pods always may); with surge, a new
 * pod starts beside the old one on up to maxSurge nodes, and the old one goes once the new is available.
 */
export function rollingUpdateStep(
  ds: DaemonSet,
  nodeToPods: ReadonlyMap<string, readonly Pod[]>,
  hash: string,
  desired: number,
  shouldRun: (nodeName: string) => boolean,
  now: number,
): { deletePods: Pod[]; createOn: string[] } {
  const { maxSurge, maxUnavailable } = surgeAndUnavailable(ds, desired);
  const minReady = ds.spec?.minReadySeconds ?? 0;
  const available = (pod: Pod) => podAvailability(pod, minReady, now).available;
  const nodes = [...nodeToPods.keys()].sort();
  if (maxSurge === 0) {
    let unavailable = 0;
    const allowed: Pod[] = [];
    const candidates: Pod[] = [];
    for (const node of nodes) {
      const { ok, newPod, oldPod } = updatedPodsOnNode(nodeToPods.get(node)!, hash);
      if (!ok || (oldPod === undefined && newPod === undefined) || (oldPod !== undefined && newPod !== undefined)) {
        unavailable++;
      } else if (newPod !== undefined) {
        if (!available(newPod)) unavailable++;
      } else if (!available(oldPod!)) {
        allowed.push(oldPod!);
      } else if (unavailable < maxUnavailable) {
        candidates.push(oldPod!);
      }
    }
    const remaining = Math.min(Math.max(0, maxUnavailable - unavailable), candidates.length);
    return { deletePods: [...allowed, ...candidates.slice(0, remaining)], createOn: [] };
  }
  const deletePods: Pod[] = [];
  const candidates: string[] = [];
  const allowed: string[] = [];
  let surging = 0;
  for (const node of nodes) {
    const { ok, newPod, oldPod } = updatedPodsOnNode(nodeToPods.get(node)!, hash);
    if (!ok) {
      surging++;
      continue;
    }
    if (oldPod === undefined) continue;
    if (newPod === undefined) {
      if (!available(oldPod)) {
        if (shouldRun(node)) allowed.push(node);
      } else if (surging < maxSurge) candidates.push(node);
    } else if (!available(newPod)) {
      surging++;
    } else {
      deletePods.push(oldPod);
    }
  }
  const remaining = Math.min(Math.max(0, maxSurge - surging), candidates.length);
  return { deletePods, createOn: [...allowed, ...candidates.slice(0, remaining)] };
}
