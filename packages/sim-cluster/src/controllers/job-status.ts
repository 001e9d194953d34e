import type { JobCondition } from "../resources/jobs.js";

/** Upstream's DefaultJobPodFailureBackOff and MaxJobPodFailureBackOff. */
export const POD_FAILURE_BACKOFF_MS = 10_000;
export const MAX_POD_FAILURE_BACKOFF_MS = 360_000;

export function newJobCondition(type: string, reason: string, message: string, now: string): JobCondition {
  return { type, status: "True", lastProbeTime: now, lastTransitionTime: now, reason, message };
}

/**
 * ensureJobConditionStatus: sets the condition's status, reason and message (its transition
 * time only when the status changes); a missing condition is added unless it would be False.
 * Returns the list and whether it changed.
 */
export function ensureJobCondition(
  list: readonly JobCondition[],
  type: string,
  status: "True" | "False",
  reason: string,
  message: string,
  now: string,
): [JobCondition[], boolean] {
  const existing = list.find((c) => c.type === type);
  if (existing !== undefined) {
    if (existing.status === status && existing.reason === reason && existing.message === message) return [[...list], false];
    const changed = {
      ...existing,
      status,
      reason,
      message,
      lastProbeTime: now,
      ...(existing.status !== status ? { lastTransitionTime: now } : {}),
    };
    return [list.map((c) => (c === existing ? changed : c)), true];
  }
  if (status === "False") return [[...list], false];
  return [[...list, { type, status, lastProbeTime: now, lastTransitionTime: now, reason, message }], true];
}

/** The pod failure back-off of one Job (upstream's backoffRecord): failures since the last success, and when the last one was seen. */
export interface BackoffRecord {
  failuresAfterLastSuccess: number;
  lastFailureAt: number;
}

export function nextBackoffRecord(
  previous: BackoffRecord | undefined,
  newSucceeded: number,
  newFailed: number,
  now: number,
): BackoffRecord {
  if (newSucceeded > 0) return { failuresAfterLastSuccess: 0, lastFailureAt: previous?.lastFailureAt ?? 0 };
  if (newFailed === 0) return previous ?? { failuresAfterLastSuccess: 0, lastFailureAt: 0 };
  return { failuresAfterLastSuccess: (previous?.failuresAfterLastSuccess ?? 0) + newFailed, lastFailureAt: now };
}

/** getRemainingTime: how long pod creation still waits after `failures` failures, the last at `lastFailureAt`. */
export function backoffRemainingMs(failures: number, lastFailureAt: number, now: number, baseMs = POD_FAILURE_BACKOFF_MS): number {
  if (failures <= 0) return 0;
  const backoff = Math.min(baseMs * 2 ** (failures - 1), MAX_POD_FAILURE_BACKOFF_MS);
  return Math.max(0, backoff - (now - lastFailureAt));
}
