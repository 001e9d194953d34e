import {
  isOwnedBalloonPod,
  NODE_TARGET_ANNOTATION,
  nodeResources,
  podRequests,
  resourceListStrings,
  type BalloonOwner,
} from "@kubekit/balloon";
import type { Node, Pod } from "@kubekit/client";

/**
 * What a node's resize was decided from, leaving out the balloon's spec and resize conditions:
 * putting back a resize the kubelet refused changes those, and must not count as a reason to try
 * the same resize again. The node's size, the target, the balloon's identity and allocation, and
 * every other pod's requests and phase do.
 */
export function resizeInputs(node: Node, pods: readonly Pod[], owner: BalloonOwner | undefined): string {
  const size = nodeResources(node);
  const byUid = (a: { uid: string }, b: { uid: string }) => a.uid.localeCompare(b.uid);
  const balloons = pods
    .filter((pod) => isOwnedBalloonPod(pod, owner))
    .map((pod) => ({
      uid: pod.metadata?.uid ?? "",
      allocated: pod.status?.containerStatuses?.map((s) => [s.name, s.allocatedResources]) ?? [],
    }))
    .sort(byUid);
  const others = pods
    .filter((pod) => !isOwnedBalloonPod(pod, owner))
    .map((pod) => ({
      uid: pod.metadata?.uid ?? "",
      phase: pod.status?.phase ?? "",
      leaving: pod.metadata?.deletionTimestamp !== undefined,
      requests: resourceListStrings(podRequests(pod)),
    }))
    .sort(byUid);
  return JSON.stringify([
    resourceListStrings(size.allocatable),
    size.capacity ? resourceListStrings(size.capacity) : null,
    node.metadata?.annotations?.[NODE_TARGET_ANNOTATION] ?? null,
    balloons,
    others,
  ]);
}

interface Failure {
  readonly inputs: string;
  readonly attempts: number;
  readonly retryAt: number;
}

/**
 * Per node, the last resize that ended without the size (refused or infeasible) and the inputs it
 * was decided from. The same inputs give the same answer: the node waits for a change of its own
 * or its pods, and otherwise retries with exponential backoff (first `initialMs`, doubling, at
 * most `maxMs`), as client-go's per-item rate limiter does.
 */
export class FailedResizes {
  readonly #failures = new Map<string, Failure>();

  constructor(
    private readonly initialMs: number,
    private readonly maxMs: number,
  ) {}

  /** How long to wait before trying these inputs again; 0 when they changed or the backoff is over. */
  waitFor(node: string, inputs: string, now = Date.now()): number {
    const failure = this.#failures.get(node);
    if (failure === undefined) return 0;
    if (failure.inputs !== inputs) {
      this.#failures.delete(node);
      return 0;
    }
    return Math.max(0, failure.retryAt - now);
  }

  /** Records a failed attempt and returns the backoff before the next one. */
  failed(node: string, inputs: string, now = Date.now()): number {
    const previous = this.#failures.get(node);
    const attempts = previous?.inputs === inputs ? previous.attempts + 1 : 1;
    const delay = Math.min(this.initialMs * 2 ** Math.min(attempts - 1, 30), this.maxMs);
    this.#failures.set(node, { inputs, attempts, retryAt: now + delay });
    return delay;
  }

  forget(node: string): void {
    this.#failures.delete(node);
  }
}
