import type { AllocationStrategy } from "./free-space.js";
import type { Prefix } from "./prefix.js";
import type { SpecialPurposePolicy } from "./special-purpose.js";
import type { AddressRecord, Conflict, ResourceReference } from "./types.js";

/*
 * The shapes of the registry's public calls (options, requests and answers), kept apart from
 * the class so the parts that produce them can name them without importing the registry.
 */

export interface NetworkRegistryOptions {
  /** Special-purpose policy (IANA table with caller overrides). */
  policy?: SpecialPurposePolicy;
  /** Time source for record dates; pass a fixed one for reproducible output. */
  clock?: () => Date;
  /** Names whose first claim wins (default: kube-apiserver, kube-controller-manager). */
  wellKnownClaims?: readonly string[];
}

export interface AllocateRequest {
  /** The claim that receives the block; created when missing. */
  claim: string;
  reference: ResourceReference;
  /** The pool: a granted record the claim owns or may delegate from. */
  from: string | Prefix;
  prefixLength: number;
  /** `best-fit` (default) keeps large blocks whole; `first-fit` takes the lowest address. */
  strategy?: AllocationStrategy;
  /** At most 255 characters. */
  description?: string;
  /**
   * Take exactly this block of the pool instead of choosing one (to replay a decision recorded
   * elsewhere, e.g. in an allocation object's status). Must be free and of `prefixLength`.
   */
  prefix?: string | Prefix;
}

/** Options of `NetworkRegistry.release` and `NetworkRegistry.releaseRecord`. */
export interface ReleaseOptions {
  /**
   * Also release what was delegated from the released records (like a cascading delete):
   * allocations are removed, declared records of other claims lose their grant and stay
   * refused until their parent is granted again. Without it, such a release is refused.
   */
  cascade?: boolean;
}

/** The outcome of checking one record without registering it. */
export interface RecordCheck {
  status: "allocated" | "unavailable";
  conflict?: Conflict;
  warnings: string[];
}

/** A dynamic allocation: one record per block taken with `NetworkRegistry.allocate`. */
export interface Allocation {
  claim: string;
  record: AddressRecord;
}
