import { podClaimNames } from "../controllers/volume-matching.js";
import type { PersistentVolumeClaim } from "../resources/persistent-volumes.js";
import type { Pod } from "../resources/pods.js";
import type { StorageClass } from "../resources/storage-classes.js";

/**
 * The VolumeBinding plugin's PreFilter, kept simple: why no node can take the pod because of its
 * claims, or undefined. Every claim must exist and not be terminating; an unbound one holds the
 * pod back unless its class binds on first consumer (WaitForFirstConsumer), whose claims bind once
 * the pod is placed. Bound volumes' node affinity is not checked: simulated volumes are reachable
 * from every node.
 */
export function volumeBindingReason(
  pod: Pod,
  claimOf: (namespace: string, name: string) => PersistentVolumeClaim | undefined,
  classOf: (name: string) => StorageClass | undefined,
): string | undefined {
  const namespace = pod.metadata?.namespace ?? "";
  let unboundImmediate = false;
  for (const name of podClaimNames(pod)) {
    const claim = claimOf(namespace, name);
    if (claim === undefined) return `persistentvolumeclaim "${name}" not found`;
    if (claim.metadata?.deletionTimestamp !== undefined) return `persistentvolumeclaim "${name}" is being deleted`;
    if (claim.spec?.volumeName && claim.status?.phase === "Bound") continue;
    const className = claim.spec?.storageClassName ?? "";
    if (className !== "" && classOf(className)?.volumeBindingMode === "WaitForFirstConsumer") continue;
    unboundImmediate = true;
  }
  return unboundImmediate ? "pod has unbound immediate PersistentVolumeClaims" : undefined;
}
