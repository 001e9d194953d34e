/**
 * Pod lifecycle predicates with upstream's names and meanings, over the few fields they read, so
 * a pod from any client (client-node's `V1Pod`, a plain decoded object) fits.
 */

/** The fields of a pod these predicates read. */
export interface PodLifecycle {
  readonly metadata?: { readonly deletionTimestamp?: unknown } | undefined;
  readonly status?: { readonly phase?: string | undefined } | undefined;
}

/** `podutil.IsPodPhaseTerminal`: `Succeeded` and `Failed` are the phases a pod never leaves. */
export function isPodPhaseTerminal(phase: string | undefined): boolean {
  return phase === "Succeeded" || phase === "Failed";
}

/**
 * `podutil.IsPodTerminal`: the pod has finished and holds no resources any more. A pod that is
 * being deleted but still running is not terminal: it keeps its node's resources until it stops.
 */
export function isPodTerminal(pod: PodLifecycle): boolean {
  return isPodPhaseTerminal(pod.status?.phase);
}

/**
 * `controller.IsPodActive`: the pod counts towards its controller's replicas: neither finished
 * nor being deleted (a deleted pod's replacement is created at once, as upstream's controllers do).
 */
export function isPodActive(pod: PodLifecycle): boolean {
  return !isPodTerminal(pod) && pod.metadata?.deletionTimestamp == null;
}
