/**
 * `@kubekit/network-registry/kube`: the registry on a cluster — the NetworkClaim and
 * NetworkAllocation API, its install manifests, the arbiter controller and the client library.
 */
export {
  ARBITER_NAME,
  CLAIM_FINALIZER,
  CLAIM_LABEL,
  CLIENT_FIELD_MANAGER,
  IP_FAMILY_LABEL,
  KANA_GROUP,
  KANA_VERSION,
  NETWORK_ALLOCATIONS,
  NETWORK_ALLOCATION_KIND,
  NETWORK_CLAIMS,
  isAllocationDecided,
  isClaimDecided,
  prefixObjectName,
} from "./api.js";
export type {
  AllocationPhase,
  ClaimCondition,
  ClaimPhase,
  NetworkAllocationObject,
  NetworkAllocationSpec,
  NetworkAllocationStatus,
  NetworkClaimObject,
  NetworkClaimStatus,
} from "./api.js";
export {
  ARBITER_SERVICE_ACCOUNT,
  WELL_KNOWN_CLAIM_WRITERS,
  arbiterRole,
  arbiterRoleBinding,
  claimantRole,
  installManifests,
  installManifestsYAML,
  CLAIM_OWNER_ANNOTATION,
  claimOwnerPolicyBinding,
  claimOwnerPolicyFor,
  networkAllocationCRD,
  networkClaimCRD,
  viewerRole,
  wellKnownClaimsPolicy,
  wellKnownClaimsPolicyBinding,
  wellKnownClaimsPolicyFor,
  type InstallManifestOptions,
} from "./manifests.js";
export { allocate, claim, createWhoisCache, release, watch } from "./client.js";
export type { AllocationRequest, ClaimOptions, DecisionWatch, WaitOptions, WhoisCache } from "./client.js";
export { compareCreation, decisionOrder } from "./order.js";
export { loadRecordedDecisions, recordedGrants } from "./recorded.js";
export type { RecordedDecisions } from "./recorded.js";
export { runArbiter } from "./arbiter.js";
export type { Arbiter, ArbiterLeaderElection, ArbiterOptions } from "./arbiter.js";
export { ArbiterMetrics } from "./arbiter-metrics.js";
export { Decider, planDecisions } from "./arbiter-pass.js";
export type { AllocationDecision, ClaimDecision, DecisionPlan } from "./arbiter-pass.js";
export { install } from "./install.js";
export type { InstallOptions } from "./install.js";
export {
  controllerManagerFlagsFromArgs,
  importControllerManagerFlags,
  importNodePodCIDRs,
  importObservedSpace,
  importServiceCIDRs,
  SERVICE_CIDR_GROUP,
} from "./importers/index.js";
export type { ControllerManagerFlags, ImportResult, ObservedRange, ObservedSource, ObservedSpace, ObservedUse } from "./importers/index.js";
export { detectDrift, renderDrift, useOfReference } from "./drift.js";
export type { DriftFinding, DriftReport, DriftType } from "./drift.js";
