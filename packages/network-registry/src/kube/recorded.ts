import { NetworkRegistry, type NetworkRegistryOptions } from "../registry.js";
import type { AddressRecord, NetworkClaim } from "../types.js";
import type { NetworkAllocationObject, NetworkClaimObject } from "./api.js";

/*
 * The decisions recorded in the objects' statuses, loaded into a pure registry. The arbiter
 * starts every pass from here (so a decision once written is kept, whichever instance wrote it),
 * and the whois cache answers from it.
 */

/** The pure registry's view of a stored claim (spec only). */
export function claimOf(object: NetworkClaimObject, addressSpace: AddressRecord[] = object.spec?.addressSpace ?? []): NetworkClaim {
  const metadata: NetworkClaim["metadata"] = { name: object.metadata.name };
  if (object.metadata.labels !== undefined) metadata.labels = object.metadata.labels;
  return { metadata, spec: { addressSpace } };
}

const sameParent = (a: AddressRecord["parent"], b: AddressRecord["parent"]) => a?.claim === b?.claim && a?.prefix === b?.prefix;

/** A record of a claim's status as the spec record it was granted from (no outcome fields). */
function asSpecRecord(record: AddressRecord): AddressRecord {
  const { conflict: _conflict, warnings: _warnings, status, ...granted } = record;
  return status === "unavailable" ? { ...granted, status } : granted;
}

/**
 * What the claim holds by its recorded decision: the records its status grants and its
 * carve-outs. While that decision is about the current spec, these are the spec's records the
 * status grants; when the status is about an older spec (the latest was Invalid, or is not decided
 * yet) they are the records of that older spec, as the status holds them, so the next pass
 * applies the new spec with every rule checked (e.g. a record others delegate from is kept).
 */
export function recordedGrants(object: NetworkClaimObject): AddressRecord[] {
  const status = object.status;
  const current =
    status !== undefined && status.phase !== "Invalid" && (status.observedGeneration ?? 0) >= (object.metadata.generation ?? 1);
  if (status?.addressSpace !== undefined && !current) {
    return status.addressSpace
      .filter((r) => r.status === "allocated" || (r.status === "unavailable" && r.conflict === undefined))
      .map(asSpecRecord);
  }
  const granted = new Map((status?.addressSpace ?? []).filter((r) => r.status === "allocated").map((r) => [r.prefix, r]));
  return (object.spec?.addressSpace ?? []).filter((record) => {
    if (record.status === "unavailable") return true;
    const recorded = granted.get(record.prefix);
    return recorded !== undefined && sameParent(recorded.parent, record.parent);
  });
}

export interface RecordedDecisions {
  registry: NetworkRegistry;
  /** Allocations whose recorded block could not be replayed (its pool is gone or the block is taken). */
  lost: Set<string>;
}

/**
 * A registry holding the recorded grants: each claim's recorded records in decision order, then
 * each allocated block at its recorded prefix. `claims` and `allocations` must be in decision order.
 */
export function loadRecordedDecisions(
  claims: readonly NetworkClaimObject[],
  allocations: readonly NetworkAllocationObject[],
  options: NetworkRegistryOptions = {},
): RecordedDecisions {
  const registry = new NetworkRegistry(options);
  const lost = new Set<string>();
  for (const claim of claims) {
    try {
      registry.claim(claimOf(claim, recordedGrants(claim)));
    } catch {
      // A spec the registry cannot read holds nothing; the arbiter reports it as Invalid.
    }
  }
  for (const allocation of allocations) {
    const { status, spec } = allocation;
    if (status?.phase !== "Allocated" || status.prefix === undefined) continue;
    try {
      registry.allocate({
        claim: spec.claim,
        reference: spec.reference,
        from: spec.pool,
        prefixLength: spec.prefixLength,
        prefix: status.prefix,
        ...(spec.description !== undefined ? { description: spec.description } : {}),
      });
    } catch {
      lost.add(allocation.metadata.name);
    }
  }
  return { registry, lost };
}
