export { VERSION } from "./version.js";
export { NetworkRegistryError, isNetworkRegistryError } from "./errors.js";
export type { NetworkRegistryErrorCode, NetworkRegistryErrorOptions, ParseRule } from "./errors.js";
export type { IPFamily } from "./words.js";
export { IPAddress } from "./address.js";
export { Prefix, MAX_SPLIT_PIECES } from "./prefix.js";
export { parseAddress, parsePrefix, parsePrefixOrAddress, isCanonicalAddress, isCanonicalPrefix, fixAddress, fixPrefix } from "./parse.js";
export type { LenientParse, ParseOptions } from "./parse.js";
export { PrefixTrie } from "./trie.js";
export type { PrefixEntry } from "./trie.js";
export { NetworkRegistry } from "./registry.js";
export type {
  NetworkRegistryOptions,
  AllocateRequest,
  Allocation,
  Owner,
  ReleaseOptions,
  WhoisResult,
  RecordCheck,
  RegistrySnapshot,
} from "./registry.js";
export { FreeSpace } from "./free-space.js";
export type { AllocationStrategy, Utilization } from "./free-space.js";
export { validateClaim, MAX_DESCRIPTION_LENGTH } from "./claim-validation.js";
export { WELL_KNOWN_CLAIMS, NETWORK_CLAIM_API_VERSION, NETWORK_CLAIM_KIND } from "./types.js";
export type {
  AddressRecord,
  Conflict,
  ConflictReason,
  NetworkClaim,
  NetworkClaimMetadata,
  OverlapRelation,
  ParentReference,
  RecordStatus,
  ResourceReference,
} from "./types.js";
export { SpecialPurposePolicy, defaultSpecialPurposePolicy } from "./special-purpose.js";
export type { SpecialPurposeFinding, SpecialPurposeOverride, SpecialPurposeVerdict } from "./special-purpose.js";
export { IPV4_SPECIAL_PURPOSE, IPV6_SPECIAL_PURPOSE } from "./special-purpose-table.js";
export type { SpecialPurposeAction, SpecialPurposeRange } from "./special-purpose-table.js";
