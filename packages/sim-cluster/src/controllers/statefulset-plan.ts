import type { Pod } from "../resources/pods.js";
import type { StatefulSet, StatefulSetStatus } from "../resources/statefulsets.js";
import { identityMatches, podRevision, startOrdinal, storageMatches } from "./statefulset-identity.js";
import { isPodReady, podAvailability } from "./util.js";

/** A pod of the set with the ordinal its name gives it. */
export interface OrdinalPod {
  ordinal: number;
  pod: Pod;
}

/**
 * What one sync does: the ordinals to create pods at, the pods to delete, the pending pods whose
 * missing claims to create, the pods whose identity or storage to repair, and when to look again.
 */
export interface StatefulSetPlan {
  create: number[];
  delete: Pod[];
  claimsFor: OrdinalPod[];
  repair: OrdinalPod[];
  requeueAfterMs?: number;
}

const isTerminating = (pod: Pod) => pod.metadata?.deletionTimestamp !== undefined;
const isFinished = (pod: Pod) => pod.status?.phase === "Failed" || pod.status?.phase === "Succeeded";
const isPending = (pod: Pod) => pod.status?.phase === "Pending";
/** `isRunningAndReady`. */
const isRunningAndReady = (pod: Pod) => pod.status?.phase === "Running" && isPodReady(pod);
/** `isHealthy`. */
const isHealthy = (pod: Pod) => isRunningAndReady(pod) && !isTerminating(pod);

/**
 * `updateStatefulSet` (pkg/controller/statefulset, 1.32) as a decision over the set's pods:
 *
 * - each replica ordinal in `[start, start + replicas)` in order: a failed or succeeded pod is
 *   deleted (the next sync makes it again), a missing one created; under OrderedReady the sync
 *   stops at the first pod created, terminating, not Running and Ready, or not yet available
 *   (minReadySeconds), so each pod waits for all its predecessors; Parallel goes on. A Pending
 *   pod gets its missing claims made again (`createMissingPersistentVolumeClaims`); a pod past
 *   those gates whose identity label or claim volumes are not the set's is repaired
 *   (`identityMatches`, `storageMatches`, then `UpdateStatefulPod`).
 * - then pods beyond the replicas, highest ordinal first: OrderedReady deletes one at a time, and
 *   only while every other pod is healthy (the first unhealthy one may go itself); Parallel deletes all.
 * - then, for RollingUpdate, the pod with the highest ordinal at or above the partition that is not
 *   at the update revision is deleted (to come back at it), one at a time, waiting while any pod
 *   above it is not healthy. `maxUnavailable` is not read: MaxUnavailableStatefulSet is off in 1.32,
 *   so updates go one pod at a time whatever the pod management policy. OnDelete updates a pod only
 *   when someone deletes it.
 */
export function planStatefulSet(set: StatefulSet, pods: readonly OrdinalPod[], updateRevision: string, now: number): StatefulSetPlan {
  const plan: StatefulSetPlan = { create: [], delete: [], claimsFor: [], repair: [] };
  const monotonic = set.spec?.podManagementPolicy !== "Parallel";
  const minReadySeconds = set.spec?.minReadySeconds ?? 0;
  const start = startOrdinal(set);
  const end = start + (set.spec?.replicas ?? 1);
  const byOrdinal = new Map(pods.map((p) => [p.ordinal, p.pod]));
  const condemned = pods.filter((p) => p.ordinal < start || p.ordinal >= end).sort((a, b) => a.ordinal - b.ordinal);
  const firstUnhealthy = [...pods].sort((a, b) => a.ordinal - b.ordinal).find((p) => !isHealthy(p.pod))?.pod;
  const waitFor = (pod: Pod): boolean => {
    const availability = podAvailability(pod, minReadySeconds, now);
    if (availability.inMs !== undefined) plan.requeueAfterMs = Math.min(plan.requeueAfterMs ?? Infinity, availability.inMs + 10);
    return !availability.available;
  };

  for (let ordinal = start; ordinal < end; ordinal++) {
    const pod = byOrdinal.get(ordinal);
    if (pod === undefined) {
      plan.create.push(ordinal);
      if (monotonic) return plan;
      continue;
    }
    if (isFinished(pod)) {
      if (!isTerminating(pod)) plan.delete.push(pod);
      if (monotonic) return plan;
      continue;
    }
    if (isPending(pod) && !isTerminating(pod)) plan.claimsFor.push({ ordinal, pod });
    if (monotonic && (isTerminating(pod) || !isRunningAndReady(pod) || waitFor(pod))) return plan;
    if (!isTerminating(pod) && !(identityMatches(set, pod) && storageMatches(set, pod))) plan.repair.push({ ordinal, pod });
  }

  for (const { pod } of [...condemned].reverse()) {
    if (isTerminating(pod)) {
      if (monotonic) return plan;
      continue;
    }
    if (monotonic && pod !== firstUnhealthy && (!isRunningAndReady(pod) || waitFor(pod))) return plan;
    plan.delete.push(pod);
    if (monotonic) return plan;
  }

  if (set.spec?.updateStrategy?.type === "OnDelete") return plan;
  const partition = Math.max(start, start + (set.spec?.updateStrategy?.rollingUpdate?.partition ?? 0));
  for (let ordinal = end - 1; ordinal >= partition; ordinal--) {
    const pod = byOrdinal.get(ordinal);
    if (pod === undefined || plan.create.includes(ordinal) || plan.delete.includes(pod)) return plan;
    if (podRevision(pod) !== updateRevision && !isTerminating(pod)) {
      plan.delete.push(pod);
      return plan;
    }
    if (!isHealthy(pod)) return plan;
  }
  return plan;
}

/**
 * `computeReplicaStatus` and `completeRollingUpdate`: the counts over the set's pods, and the
 * update revision becoming the current one once a rolling update has every pod updated and ready.
 */
export function statefulSetStatus(
  set: StatefulSet,
  pods: readonly OrdinalPod[],
  currentRevision: string,
  updateRevision: string,
  now: number,
): StatefulSetStatus {
  const minReadySeconds = set.spec?.minReadySeconds ?? 0;
  const status = {
    observedGeneration: set.metadata?.generation ?? 0,
    replicas: 0,
    readyReplicas: 0,
    currentReplicas: 0,
    updatedReplicas: 0,
    availableReplicas: 0,
    currentRevision,
    updateRevision,
    collisionCount: set.status?.collisionCount ?? 0,
  };
  for (const { pod } of pods) {
    status.replicas++;
    if (isRunningAndReady(pod)) {
      status.readyReplicas++;
      if (podAvailability(pod, minReadySeconds, now).available) status.availableReplicas++;
    }
    if (!isTerminating(pod)) {
      const revision = podRevision(pod);
      if (revision === currentRevision) status.currentReplicas++;
      if (revision === updateRevision) status.updatedReplicas++;
    }
  }
  if (
    set.spec?.updateStrategy?.type !== "OnDelete" &&
    status.updatedReplicas === status.replicas &&
    status.readyReplicas === status.replicas
  ) {
    status.currentReplicas = status.updatedReplicas;
    status.currentRevision = updateRevision;
  }
  return status;
}
