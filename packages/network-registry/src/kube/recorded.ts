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

/**
 * The spec records whose grant the status records: carve-outs, and records the status says are
 * allocated (same prefix, same parent). Records the spec no longer has are gone.
 */
export function recordedGrants(object: NetworkClaimObject): AddressRecord[] {
  const granted = new Map((object.status?.addressSpace ?? []).filter((r) => r.status === "allocated").map((r) => [r.prefix, r]));
  return (object.spec?.addressSpace ?? []).filter((record) => {
    if (record.status === "unavailable") return true;
    const status = granted.get(record.prefix);
    return status !== undefined && sameParent(status.parent, record.parent);
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
