import type { KubeObject } from "@kubekit/generic-controlplane";
import type { QuotaEvaluator, QuotaUsage } from "@kubekit/generic-controlplane/registry";
import { countOf, objectCountName, usageOf } from "@kubekit/generic-controlplane/registry";

/** The PersistentVolumeClaim fields quota reads. */
interface PersistentVolumeClaim extends KubeObject {
  spec?: { storageClassName?: string; resources?: { requests?: Record<string, unknown> } };
  status?: { allocatedResources?: Record<string, unknown> };
}

const CLAIM_COUNT = objectCountName("", "persistentvolumeclaims");
const CLAIM_RESOURCES = new Set([CLAIM_COUNT, "persistentvolumeclaims", "requests.storage"]);
/** `<class>.storageclass.storage.k8s.io/<resource>`: a limit for the claims of one storage class. */
const STORAGE_CLASS_INFIX = ".storageclass.storage.k8s.io/";
const BETA_CLASS_ANNOTATION = "volume.beta.kubernetes.io/storage-class";

function isStorageClassResource(name: string): boolean {
  const at = name.indexOf(STORAGE_CLASS_INFIX);
  return at > 0 && ["persistentvolumeclaims", "requests.storage"].includes(name.slice(at + STORAGE_CLASS_INFIX.length));
}

/** `GetPersistentVolumeClaimClass`: the beta annotation first, then `spec.storageClassName`. */
function claimClass(claim: PersistentVolumeClaim): string {
  const annotations = claim.metadata?.annotations ?? {};
  if (Object.hasOwn(annotations, BETA_CLASS_ANNOTATION)) return annotations[BETA_CLASS_ANNOTATION] ?? "";
  return claim.spec?.storageClassName ?? "";
}

/** upstream's claim usage: one claim, its requested storage (or more, when an expansion allocated more), also per storage class. */
export function claimQuotaUsage(claim: PersistentVolumeClaim): QuotaUsage {
  const usage: QuotaUsage = new Map([
    [CLAIM_COUNT, countOf(1)],
    ["persistentvolumeclaims", countOf(1)],
  ]);
  const storageClass = claimClass(claim);
  if (storageClass !== "") usage.set(`${storageClass}${STORAGE_CLASS_INFIX}persistentvolumeclaims`, countOf(1));
  const requested = usageOf(claim.spec?.resources?.requests).get("storage");
  const allocated = usageOf(claim.status?.allocatedResources).get("storage");
  const storage = allocated !== undefined && (requested === undefined || allocated.milli > requested.milli) ? allocated : requested;
  if (storage !== undefined) {
    usage.set("requests.storage", storage);
    if (storageClass !== "") usage.set(`${storageClass}${STORAGE_CLASS_INFIX}requests.storage`, storage);
  }
  return usage;
}

/**
 * The PersistentVolumeClaim evaluator (upstream `pkg/quota/v1/evaluator/core/persistent_volume_claims.go`):
 * `persistentvolumeclaims`, `count/persistentvolumeclaims`, `requests.storage`, and both per
 * storage class; creates and updates (expansions) are charged. It applies wherever
 * `persistentvolumeclaims` is served.
 */
export const claimQuotaEvaluator: QuotaEvaluator<PersistentVolumeClaim> = {
  group: "",
  resource: "persistentvolumeclaims",
  matchingResources: (names) => names.filter((name) => CLAIM_RESOURCES.has(name) || isStorageClassResource(name)),
  usage: claimQuotaUsage,
  handles: (attributes) => attributes.subresource === "" && (attributes.operation === "CREATE" || attributes.operation === "UPDATE"),
};
