import type { PersistentVolume, PersistentVolumeClaim } from "../resources/persistent-volumes.js";
import { storageMilli } from "../resources/persistent-volumes.js";
import type { Pod } from "../resources/pods.js";
import { isDefaultClass, type StorageClass } from "../resources/storage-classes.js";
import { selectorMatches } from "../selector.js";

/** Upstream's annotations on what the binder bound and provisioned. */
export const BIND_COMPLETED = "pv.kubernetes.io/bind-completed";
export const BOUND_BY_CONTROLLER = "pv.kubernetes.io/bound-by-controller";
export const PROVISIONED_BY = "pv.kubernetes.io/provisioned-by";
export const STORAGE_PROVISIONER = "volume.kubernetes.io/storage-provisioner";
export const BETA_STORAGE_PROVISIONER = "volume.beta.kubernetes.io/storage-provisioner";
/** A class with this provisioner provisions nothing (local volumes are made by hand). */
export const NO_PROVISIONER = "kubernetes.io/no-provisioner";

/** `GetPersistentVolumeClaimClass`/`GetPersistentVolumeClass`: an unset class is "". */
export const claimClass = (claim: PersistentVolumeClaim) => claim.spec?.storageClassName ?? "";
const volumeClass = (pv: PersistentVolume) => pv.spec?.storageClassName ?? "";

/** `GetDefaultClass`: the newest class annotated default (the name breaks a tie), if any. */
export function defaultClass(classes: readonly StorageClass[]): StorageClass | undefined {
  const defaults = classes.filter(isDefaultClass);
  defaults.sort(
    (a, b) =>
      (b.metadata?.creationTimestamp ?? "").localeCompare(a.metadata?.creationTimestamp ?? "") ||
      (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? ""),
  );
  return defaults[0];
}

/** Whether `pv` is bound or promised to another claim than `claim`. */
function takenByAnother(pv: PersistentVolume, claim: PersistentVolumeClaim): boolean {
  const ref = pv.spec?.claimRef;
  if (ref === undefined || ref === null) return false;
  if (ref.namespace !== claim.metadata?.namespace || ref.name !== claim.metadata?.name) return true;
  return ref.uid !== undefined && ref.uid !== "" && ref.uid !== claim.metadata?.uid;
}

/**
 * `findMatchingVolume`: the volume the claim may bind to. One pre-bound to the claim (its
 * `claimRef` names it) wins if it fits; otherwise the smallest Available volume of the claim's
 * class and volume mode whose access modes include the claim's, whose capacity covers the request
 * and whose labels the claim's selector matches.
 */
export function findMatchingVolume(claim: PersistentVolumeClaim, volumes: readonly PersistentVolume[]): PersistentVolume | undefined {
  const request = storageMilli(claim.spec?.resources?.requests) ?? 0n;
  const fits = (pv: PersistentVolume) => {
    if (pv.metadata?.deletionTimestamp !== undefined || takenByAnother(pv, claim)) return false;
    if (volumeClass(pv) !== claimClass(claim)) return false;
    if ((pv.spec?.volumeMode ?? "Filesystem") !== (claim.spec?.volumeMode ?? "Filesystem")) return false;
    if (!(claim.spec?.accessModes ?? []).every((m) => pv.spec?.accessModes?.includes(m))) return false;
    if ((storageMilli(pv.spec?.capacity) ?? 0n) < request) return false;
    return claim.spec?.selector === undefined || selectorMatches(claim.spec.selector, pv.metadata?.labels);
  };
  const candidates = volumes.filter(fits);
  const preBound = candidates.find((pv) => pv.spec?.claimRef?.name === claim.metadata?.name);
  if (preBound !== undefined) return preBound;
  const available = candidates
    .filter((pv) => pv.spec?.claimRef === undefined || pv.spec.claimRef === null)
    .filter((pv) => (pv.status?.phase ?? "Available") === "Available");
  available.sort((a, b) => {
    const diff = (storageMilli(a.spec?.capacity) ?? 0n) - (storageMilli(b.spec?.capacity) ?? 0n);
    return diff < 0n ? -1 : diff > 0n ? 1 : (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? "");
  });
  return available[0];
}

/** The claims a pod's volumes name. */
export function podClaimNames(pod: Pod): string[] {
  const volumes = (pod.spec?.["volumes"] as Array<{ persistentVolumeClaim?: { claimName?: string } }> | undefined) ?? [];
  return volumes.map((v) => v.persistentVolumeClaim?.claimName).filter((name): name is string => typeof name === "string" && name !== "");
}

/**
 * The volume a provisioner makes for a claim of `storageClass` (as external-provisioner does):
 * `pvc-<claim uid>`, the claim's request and access modes, the class's reclaim policy and mount
 * options, a CSI source naming the provisioner, and already promised to the claim.
 */
export function provisionedVolume(claim: PersistentVolumeClaim, storageClass: StorageClass): PersistentVolume {
  const name = `pvc-${claim.metadata?.uid ?? ""}`;
  return {
    apiVersion: "v1",
    kind: "PersistentVolume",
    metadata: { name, annotations: { [PROVISIONED_BY]: storageClass.provisioner ?? "" } },
    spec: {
      capacity: { storage: String(claim.spec?.resources?.requests?.storage ?? "") },
      accessModes: [...(claim.spec?.accessModes ?? [])],
      persistentVolumeReclaimPolicy: storageClass.reclaimPolicy ?? "Delete",
      storageClassName: storageClass.metadata?.name ?? "",
      volumeMode: claim.spec?.volumeMode ?? "Filesystem",
      ...(storageClass.mountOptions ? { mountOptions: [...storageClass.mountOptions] } : {}),
      csi: { driver: storageClass.provisioner ?? "", volumeHandle: name, fsType: "ext4" },
      claimRef: {
        kind: "PersistentVolumeClaim",
        apiVersion: "v1",
        namespace: claim.metadata?.namespace ?? "",
        name: claim.metadata?.name ?? "",
        uid: claim.metadata?.uid ?? "",
      },
    },
  };
}
