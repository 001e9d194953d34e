import type { Pod } from "@kubekit/client";
import { DEFAULT_NAME, DEFAULT_NAMESPACE } from "./names.js";
import { isBalloonPod } from "./pods.js";

/**
 * Which balloons are this installation's: the names `balloonManifests` was given. The DaemonSet
 * and the PriorityClass are both called `name`, and the DaemonSet lives in `namespace`.
 */
export interface BalloonOwner {
  /** Default `node-balloon`. */
  readonly name?: string;
  /** Default `kube-system`. */
  readonly namespace?: string;
}

/** The owner with its defaults filled in. */
export function balloonOwner(owner: BalloonOwner = {}): Required<BalloonOwner> {
  return { name: owner.name ?? DEFAULT_NAME, namespace: owner.namespace ?? DEFAULT_NAMESPACE };
}

/**
 * True only for a balloon of this installation: the balloon label, in the DaemonSet's namespace,
 * controlled by the DaemonSet (an `apps/v1` controller owner reference by name) and at the balloon
 * PriorityClass. The label alone is not enough: any workload may carry it, and resizing it or
 * reporting it as the node's balloon would take capacity from (or hand it to) the wrong pod.
 */
export function isOwnedBalloonPod(pod: Pod, owner: BalloonOwner = {}): boolean {
  const { name, namespace } = balloonOwner(owner);
  if (!isBalloonPod(pod) || pod.metadata?.namespace !== namespace || pod.spec?.priorityClassName !== name) return false;
  return (pod.metadata.ownerReferences ?? []).some(
    (ref) => ref.controller === true && ref.apiVersion === "apps/v1" && ref.kind === "DaemonSet" && ref.name === name,
  );
}
