import type { OwnerReference } from "@kubekit/generic-controlplane";
import { scaledValue } from "../resources/int-or-percent.js";
import type { PodDisruptionBudget } from "../resources/pod-disruption-budgets.js";
import type { Pod } from "../resources/pods.js";
import { controllerRefOf, isPodReady } from "./util.js";

/** How long an evicted pod counts as disrupted without being deleted (upstream's DeletionTimeout). */
export const DELETION_TIMEOUT_MS = 2 * 60 * 1000;

export type BudgetStatus = NonNullable<PodDisruptionBudget["status"]>;
type Condition = NonNullable<BudgetStatus["conditions"]>[number];

/** A controller of some of the budget's pods and the number of replicas it wants. */
export interface ControllerScale {
  uid: string;
  scale: number;
}

/** The budget's controllers' scale finders (RC, Deployment, ReplicaSet, StatefulSet, /scale upstream): undefined when none matches. */
export type ScaleFinder = (ref: OwnerReference, namespace: string) => ControllerScale | undefined;

/**
 * getExpectedScale: the sum of the scales of the controllers of the budget's pods (each counted
 * once); pods without a controller are left out; a pod whose controller is of no known kind
 * fails the sync, as upstream (`found no controllers for pod "x"`).
 */
export function expectedScale(pods: readonly Pod[], find: ScaleFinder): number {
  const scales = new Map<string, number>();
  for (const pod of pods) {
    const ref = controllerRefOf(pod);
    if (ref === undefined || scales.has(ref.uid)) continue;
    const found = find(ref, pod.metadata?.namespace ?? "");
    if (found === undefined) throw new Error(`found no controllers for pod ${JSON.stringify(pod.metadata?.name ?? "")}`);
    scales.set(found.uid, found.scale);
  }
  let total = 0;
  for (const scale of scales.values()) total += scale;
  return total;
}

/** getExpectedPodCount: how many pods the budget expects and how many must stay healthy. */
export function expectedAndDesired(
  pdb: PodDisruptionBudget,
  pods: readonly Pod[],
  find: ScaleFinder,
): { expected: number; desired: number } {
  const { maxUnavailable, minAvailable } = pdb.spec ?? {};
  if (maxUnavailable !== undefined) {
    const expected = expectedScale(pods, find);
    return { expected, desired: Math.max(0, expected - scaledValue(maxUnavailable, expected, true)) };
  }
  if (typeof minAvailable === "number") return { expected: pods.length, desired: minAvailable };
  if (typeof minAvailable === "string") {
    const expected = expectedScale(pods, find);
    return { expected, desired: scaledValue(minAvailable, expected, true) };
  }
  return { expected: 0, desired: 0 };
}

/**
 * buildDisruptedPodMap: the evictions not yet seen through, keeping those whose pod still exists,
 * is not being deleted and was evicted less than DELETION_TIMEOUT_MS ago; with the time the first
 * of them expires (the budget is looked at again then).
 */
export function disruptedPodMap(
  pdb: PodDisruptionBudget,
  pods: readonly Pod[],
  now: number,
): { disrupted: Record<string, string>; recheckAt?: number } {
  const disrupted: Record<string, string> = {};
  let recheckAt: number | undefined;
  const listed = pdb.status?.disruptedPods ?? {};
  for (const pod of pods) {
    const name = pod.metadata?.name ?? "";
    if (pod.metadata?.deletionTimestamp !== undefined || !Object.hasOwn(listed, name)) continue;
    const expires = Date.parse(listed[name]!) + DELETION_TIMEOUT_MS;
    if (!(expires >= now)) continue; // expected deleted by now but was not: it counts again
    disrupted[name] = listed[name]!;
    if (recheckAt === undefined || expires < recheckAt) recheckAt = expires;
  }
  return { disrupted, ...(recheckAt !== undefined ? { recheckAt } : {}) };
}

/** countHealthyPods: ready pods that are neither being deleted nor evicted moments ago. */
export function countHealthy(pods: readonly Pod[], disrupted: Record<string, string>, now: number): number {
  let healthy = 0;
  for (const pod of pods) {
    if (pod.metadata?.deletionTimestamp !== undefined) continue;
    const evicted = disrupted[pod.metadata?.name ?? ""];
    if (evicted !== undefined && Date.parse(evicted) + DELETION_TIMEOUT_MS > now) continue;
    if (isPodReady(pod)) healthy++;
  }
  return healthy;
}

/** apimeta.SetStatusCondition for the one condition a budget has: the transition time moves only with the status. */
export function withDisruptionAllowed(
  conditions: readonly Condition[] | undefined,
  next: Omit<Condition, "type" | "lastTransitionTime">,
  now: string,
): Condition[] {
  const existing = (conditions ?? []).find((c) => c.type === "DisruptionAllowed");
  const condition: Condition = {
    type: "DisruptionAllowed",
    status: next.status,
    ...(next.observedGeneration !== undefined ? { observedGeneration: next.observedGeneration } : {}),
    lastTransitionTime:
      existing !== undefined && existing.status === next.status && existing.lastTransitionTime ? existing.lastTransitionTime : now,
    reason: next.reason ?? "",
    message: next.message ?? "",
  };
  return [...(conditions ?? []).filter((c) => c.type !== "DisruptionAllowed"), condition];
}

/** UpdateDisruptionAllowedCondition: True (SufficientPods) while a disruption is allowed, else False (InsufficientPods). */
export function disruptionAllowedCondition(status: BudgetStatus, now: string): Condition[] {
  const allowed = (status.disruptionsAllowed ?? 0) > 0;
  return withDisruptionAllowed(
    status.conditions,
    {
      status: allowed ? "True" : "False",
      reason: allowed ? "SufficientPods" : "InsufficientPods",
      ...(status.observedGeneration !== undefined ? { observedGeneration: status.observedGeneration } : {}),
    },
    now,
  );
}

/**
 * trySync and updatePdbStatus: the budget's status from its pods. A budget that expects no pods
 * allows no disruption (its first pods may appear before it is looked at again).
 */
export function budgetStatus(
  pdb: PodDisruptionBudget,
  pods: readonly Pod[],
  find: ScaleFinder,
  now: number,
): { status: BudgetStatus; recheckAt?: number } {
  const { expected, desired } = expectedAndDesired(pdb, pods, find);
  const { disrupted, recheckAt } = disruptedPodMap(pdb, pods, now);
  const healthy = countHealthy(pods, disrupted, now);
  const allowed = expected <= 0 ? 0 : Math.max(0, healthy - desired);
  const status: BudgetStatus = {
    observedGeneration: pdb.metadata?.generation ?? 0,
    ...(Object.keys(disrupted).length > 0 ? { disruptedPods: disrupted } : {}),
    disruptionsAllowed: allowed,
    currentHealthy: healthy,
    desiredHealthy: desired,
    expectedPods: expected,
    ...(pdb.status?.conditions !== undefined ? { conditions: pdb.status.conditions } : {}),
  };
  status.conditions = disruptionAllowedCondition(status, new Date(now).toISOString().replace(/\.\d+Z$/, "Z"));
  return { status, ...(recheckAt !== undefined ? { recheckAt } : {}) };
}
