import type { AdmissionPlugin } from "@kubekit/generic-controlplane/registry";

/** The finalizer that keeps a claim while a pod uses it (pvcprotection controller). */
export const PVC_PROTECTION_FINALIZER = "kubernetes.io/pvc-protection";
/** The finalizer that keeps a volume while it is bound (pvprotection controller). */
export const PV_PROTECTION_FINALIZER = "kubernetes.io/pv-protection";

/**
 * The StorageObjectInUseProtection admission plugin: a new PersistentVolumeClaim gets the
 * `kubernetes.io/pvc-protection` finalizer and a new PersistentVolume `kubernetes.io/pv-protection`,
 * so deleting one in use leaves it Terminating until the protection controllers let it go.
 */
export function storageObjectInUseProtectionAdmission(): AdmissionPlugin {
  return {
    name: "StorageObjectInUseProtection",
    admit(attributes) {
      if (attributes.operation !== "CREATE" || attributes.definition.group !== "" || attributes.subresource !== "") return;
      const finalizer =
        attributes.definition.plural === "persistentvolumeclaims"
          ? PVC_PROTECTION_FINALIZER
          : attributes.definition.plural === "persistentvolumes"
            ? PV_PROTECTION_FINALIZER
            : undefined;
      const object = attributes.object;
      if (finalizer === undefined || object === undefined) return;
      const metadata = (object.metadata ??= {});
      if (!(metadata.finalizers ?? []).includes(finalizer)) metadata.finalizers = [...(metadata.finalizers ?? []), finalizer];
    },
  };
}
