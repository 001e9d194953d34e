/**
 * The KANA object model: one `NetworkClaim` per component, each holding `AddressRecord`s.
 * Field names follow the proposal; `parent`, `delegateTo`, `conflict` and `warnings` are the
 * additions needed to express delegation and to explain refusals.
 */

/** The resource a record is for, e.g. `{ group: "", resource: "services" }`. */
export interface ResourceReference {
  group: string;
  resource: string;
  namespace?: string;
  name?: string;
  uid?: string;
}

/** `allocated`: the range is granted. `unavailable`: carved out by its owner, or refused (then `conflict` says why). */
export type RecordStatus = "allocated" | "unavailable";

/** Declares that a record is delegated from another claim's (or its own) record. */
export interface ParentReference {
  claim: string;
  prefix: string;
}

export type ConflictReason = "Overlap" | "SpecialPurpose" | "ParentNotFound" | "NotDelegable" | "OutsideParent" | "InsideExclusion";

/** How a refused record relates to the record it collides with. */
export type OverlapRelation = "equal" | "inside" | "contains";

/** Why a record was refused. */
export interface Conflict {
  reason: ConflictReason;
  message: string;
  relation?: OverlapRelation;
  /** The claim and record that won. */
  claim?: string;
  prefix?: string;
  reference?: ResourceReference;
  /** The nearest free block of the same size, when one exists. */
  nearestFree?: string;
}

export interface AddressRecord {
  reference: ResourceReference;
  /** Canonical CIDR, e.g. `10.96.0.0/12` or `fd00:10:96::/112`. */
  prefix: string;
  /** Free text, at most 255 characters. */
  description?: string;
  /** ISO-8601 time the record was granted or refused (status only). */
  date?: string;
  /** In spec: `unavailable` carves the range out of the claim's own space. In status: the outcome. */
  status?: RecordStatus;
  /** Delegated from this record; nesting inside it is then allowed. */
  parent?: ParentReference;
  /** Claims (or `"*"`) allowed to delegate from this record; the owning claim always may. */
  delegateTo?: string[];
  /** Why the record was refused (status only). */
  conflict?: Conflict;
  /** Special-purpose warnings (status only). */
  warnings?: string[];
}

export interface NetworkClaimMetadata {
  name: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

export interface NetworkClaim {
  apiVersion?: string;
  kind?: string;
  metadata: NetworkClaimMetadata;
  spec: { addressSpace: AddressRecord[] };
  status?: { addressSpace: AddressRecord[] };
}

/** Names whose first claim wins: a different later spec is reported, never applied. */
export const WELL_KNOWN_CLAIMS: readonly string[] = ["kube-apiserver", "kube-controller-manager"];

export const NETWORK_CLAIM_API_VERSION = "kana.kubekit.io/v1alpha1";
export const NETWORK_CLAIM_KIND = "NetworkClaim";
/** The label naming the cluster a claim belongs to, when one registry holds several clusters' claims. */
export const CLUSTER_LABEL = "kana.kubekit.io/cluster";
