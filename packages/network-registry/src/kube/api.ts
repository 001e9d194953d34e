import type { KubeObject, ObjectMeta } from "@kubekit/generic-controlplane";
import type { ResourceRef } from "@kubekit/generic-controlplane/controllers";
import { parsePrefix } from "../parse.js";
import {
  NETWORK_CLAIM_API_VERSION,
  NETWORK_CLAIM_KIND,
  type AddressRecord,
  type ParentReference,
  type ResourceReference,
} from "../types.js";

/*
 * The registry's API on a cluster: two cluster-scoped custom resources of `kana.kubekit.io/v1alpha1`.
 * `NetworkClaim` is a component's declared intent (the pure registry's `NetworkClaim`, stored);
 * `NetworkAllocation` is one dynamically allocated block, requested by creating the object and
 * decided by the arbiter (as one IPAddress object stands for one ClusterIP upstream).
 */

export const KANA_GROUP = "kana.kubekit.io";
export const KANA_VERSION = "v1alpha1";
export const NETWORK_ALLOCATION_KIND = "NetworkAllocation";

export const NETWORK_CLAIMS: ResourceRef & { kind: string } = {
  group: KANA_GROUP,
  version: KANA_VERSION,
  resource: "networkclaims",
  namespaced: false,
  kind: NETWORK_CLAIM_KIND,
};
export const NETWORK_ALLOCATIONS: ResourceRef & { kind: string } = {
  group: KANA_GROUP,
  version: KANA_VERSION,
  resource: "networkallocations",
  namespaced: false,
  kind: NETWORK_ALLOCATION_KIND,
};

/** Held by every decided claim; removed by the arbiter once nothing is delegated or allocated from it. */
export const CLAIM_FINALIZER = "kana.kubekit.io/delegations";
/** The arbiter's name: its field manager, Event source and Lease name. */
export const ARBITER_NAME = "kana-arbiter";
/** The field manager of the client library's server-side applies. */
export const CLIENT_FIELD_MANAGER = "kana-client";
/** Labels of allocation objects, after upstream's `ipaddress.kubernetes.io/*` labels. */
export const IP_FAMILY_LABEL = "kana.kubekit.io/ip-family";
export const CLAIM_LABEL = "kana.kubekit.io/claim";

/** `Allocated`: every record granted. `Conflict`: at least one refused. `Invalid`: the registry cannot read the spec. */
export type ClaimPhase = "Allocated" | "Conflict" | "Invalid";

export interface NetworkClaimStatus {
  /** One entry per spec record, in spec order: `allocated`, or `unavailable` with the conflict. */
  addressSpace?: AddressRecord[];
  /** Position in the arbiter's decision order; set once, on the first decision, and never changed. */
  sequence?: number;
  /**
   * The arbiter's leadership term this status was written in (the Lease's `leaseTransitions`):
   * the API server refuses a status written in a term that is over.
   */
  term?: number;
  /** The `metadata.generation` this status decides. */
  observedGeneration?: number;
  phase?: ClaimPhase;
  /** The granted prefixes, comma-separated (the PREFIXES column). */
  allocatedPrefixes?: string;
  /** Why the spec cannot be decided (phase `Invalid`). */
  message?: string;
  /** `Ready` (every record granted) and `Conflict` (a record refused), as API conventions have conditions. */
  conditions?: ClaimCondition[];
}

/** A condition of a NetworkClaim (the shape of metav1.Condition). */
export interface ClaimCondition {
  type: "Ready" | "Conflict";
  status: "True" | "False" | "Unknown";
  /** CamelCase: `Allocated`, `Conflict`, `Invalid`, `NoConflict`, or the conflict reason (`Overlap`, …). */
  reason: string;
  message: string;
  /** When `status` last changed (RFC 3339). */
  lastTransitionTime: string;
  observedGeneration?: number;
}

export interface NetworkClaimObject extends KubeObject {
  apiVersion: typeof NETWORK_CLAIM_API_VERSION;
  kind: typeof NETWORK_CLAIM_KIND;
  metadata: ObjectMeta & { name: string };
  spec: { addressSpace: AddressRecord[] };
  status?: NetworkClaimStatus;
}

export interface NetworkAllocationSpec {
  /** The claim that receives the block (the requester); it need not exist as an object. */
  claim: string;
  /** The pool: a granted record's prefix that `claim` owns or that delegates to it. */
  pool: string;
  prefixLength: number;
  /** The requester's resource the block is for. */
  reference: ResourceReference;
  /** `best-fit` (default) or `first-fit`. */
  strategy?: "best-fit" | "first-fit";
  description?: string;
  /**
   * A specific block instead of any free one. Such a request is named after the block
   * ({@link prefixObjectName}), so the API server's name uniqueness refuses a second request
   * for it, as upstream's IPAddress objects are named after their address.
   */
  prefix?: string;
}

/** `Allocated`: `status.prefix` is the block. `Failed`: no block (the reason says why); the arbiter tries again when the pool changes. */
export type AllocationPhase = "Allocated" | "Failed";

export interface NetworkAllocationStatus {
  prefix?: string;
  /** The claim and record the block was carved from. */
  parent?: ParentReference;
  sequence?: number;
  /**
   * The arbiter's leadership term this status was written in (the Lease's `leaseTransitions`):
   * the API server refuses a status written in a term that is over.
   */
  term?: number;
  observedGeneration?: number;
  phase?: AllocationPhase;
  /** On `Failed`: the registry's error code (`pool-exhausted`, `pool-not-found`, `not-delegable`, `invalid-argument`). */
  reason?: string;
  message?: string;
}

export interface NetworkAllocationObject extends KubeObject {
  apiVersion: typeof NETWORK_CLAIM_API_VERSION;
  kind: typeof NETWORK_ALLOCATION_KIND;
  metadata: ObjectMeta & { name: string };
  spec: NetworkAllocationSpec;
  status?: NetworkAllocationStatus;
}

/**
 * The object name of a prefix, as upstream names an IPAddress after its address: the canonical
 * CIDR with `:` and `/` spelled `-` (object names are DNS subdomains), e.g. `10.244.1.0-24`,
 * `fd00-10-96---112`; a name may not start with `-`, so `::/96` becomes `0---96`.
 */
export function prefixObjectName(prefix: string): string {
  const name = parsePrefix(prefix).toString().replaceAll(":", "-").replace("/", "-");
  return name.startsWith("-") ? `0${name}` : name;
}

/** Whether a claim's status decides its current spec. */
export function isClaimDecided(claim: NetworkClaimObject): boolean {
  const status = claim.status;
  return status?.phase !== undefined && status.sequence !== undefined && status.observedGeneration === (claim.metadata.generation ?? 1);
}

/** Whether an allocation's status decides its current spec. */
export function isAllocationDecided(allocation: NetworkAllocationObject): boolean {
  const status = allocation.status;
  return status?.phase !== undefined && status.observedGeneration === (allocation.metadata.generation ?? 1);
}
