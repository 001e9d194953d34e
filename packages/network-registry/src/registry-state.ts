import type { ValidatedRecord } from "./claim-validation.js";
import type { Prefix } from "./prefix.js";
import type { RefusalWatch } from "./refusal-watch.js";
import { TombstoneMap } from "./tombstone-map.js";
import { normalizeRecord, type LooseRecord } from "./records.js";
import type { AddressRecord, NetworkClaimMetadata } from "./types.js";

/*
 * The registry's state: claims, their records, and the grants in the index; and the orders and
 * relations between grants that every part of the registry uses.
 */

export interface Grant {
  readonly claim: string;
  readonly prefix: Prefix;
  readonly key: string;
  readonly kind: "allocated" | "carve-out";
  parent: Grant | undefined;
  delegateTo: readonly string[] | undefined;
  status: AddressRecord;
  /** Granted records delegated from this one. */
  readonly children: Set<Grant>;
  readonly record: RecordState;
  /** The `parent` value of records allocated from this grant, shared by all of them. */
  asParent?: Readonly<{ claim: string; prefix: string }>;
}

export interface RecordState {
  readonly claim: ClaimState;
  readonly allocation: boolean;
  spec: AddressRecord;
  status: AddressRecord;
  grant: Grant | undefined;
  validated: ValidatedRecord;
  /** While refused: the ranges whose changes can change its outcome (unset: decide it at the next change). */
  watch?: RefusalWatch | undefined;
}

export interface ClaimState {
  readonly name: string;
  /** Creation order: conflicts are decided in this order. */
  readonly order: number;
  metadata: NetworkClaimMetadata;
  /** The spec records, in spec order. */
  declared: RecordState[];
  allocations: TombstoneMap<string, RecordState>;
}

export function depthOf(grant: Grant): number {
  let depth = 0;
  for (let g = grant.parent; g !== undefined; g = g.parent) depth++;
  return depth;
}

/**
 * The order of grants that share a prefix (a whole-pool delegation, or a range nested in an
 * equal carve-out): the pool before its delegates, then claim order, allocated before
 * carve-outs. It depends on the state only, never on history, so a restored registry answers
 * like the live one: the pool owner is the pool, and the deepest delegate is the most specific owner.
 */
export function compareSamePrefix(a: Grant, b: Grant): number {
  return (
    depthOf(a) - depthOf(b) || a.record.claim.order - b.record.claim.order || (a.kind === b.kind ? 0 : a.kind === "allocated" ? -1 : 1)
  );
}

/** Whether `grant` takes space from `pool`: everything inside except the pool's own ancestors and other claims' carve-outs. */
export function countsIn(pool: Grant, grant: Grant): boolean {
  return grant !== pool && !isAncestor(grant, pool.parent) && !(grant.kind === "carve-out" && grant.claim !== pool.claim);
}

export function isAncestor(grant: Grant, parent: Grant | undefined): boolean {
  for (let g = parent; g !== undefined; g = g.parent) if (g === grant) return true;
  return false;
}

export function newClaimState(name: string, order: number, metadata: NetworkClaimMetadata = { name }): ClaimState {
  return { name, order, metadata, declared: [], allocations: new TombstoneMap() };
}

/** The grant of a record, not yet linked to a parent or placed in the index. */
export function newGrant(record: RecordState, kind: Grant["kind"]): Grant {
  return {
    claim: record.claim.name,
    prefix: record.validated.prefix,
    key: record.validated.prefix.toString(),
    kind,
    parent: undefined,
    delegateTo: record.spec.delegateTo,
    status: record.status,
    children: new Set(),
    record,
  };
}

/** The metadata a claim keeps (validated by validateClaim): its name, labels and annotations. */
export function metadataOf(metadata: NetworkClaimMetadata): NetworkClaimMetadata {
  const result: NetworkClaimMetadata = { name: metadata.name };
  if (metadata.labels !== undefined) result.labels = { ...metadata.labels };
  if (metadata.annotations !== undefined) result.annotations = { ...metadata.annotations };
  return result;
}

/** Replace a record's status (statuses are replaced, never changed in place), in its grant too. */
export function setStatus(record: RecordState, status: LooseRecord): void {
  record.status = normalizeRecord(status);
  if (record.grant !== undefined) record.grant.status = record.status;
}
