import { isNetworkRegistryError } from "../errors.js";
import type { NetworkRegistry, NetworkRegistryOptions } from "../registry.js";
import type { AddressRecord } from "../types.js";
import type { ClaimPhase, NetworkAllocationObject, NetworkAllocationStatus, NetworkClaimObject, NetworkClaimStatus } from "./api.js";
import { decisionOrder } from "./order.js";
import { claimOf, loadRecordedDecisions } from "./recorded.js";

/*
 * One decision pass, pure: from the stored claims and allocations to the statuses they should
 * have. Every arbiter instance computes the same plan from the same objects:
 *   1. the recorded grants are loaded (nothing once written is taken back by a later claim);
 *   2. each claim's full spec is applied in decision order, so new records are granted or
 *      refused against everything decided before them;
 *   3. allocation requests are decided in their order;
 * and the statuses are read back from the registry.
 */

export interface ClaimDecision {
  object: NetworkClaimObject;
  status: NetworkClaimStatus;
  /** Whether the stored status differs (a write is needed). */
  changed: boolean;
}

export interface AllocationDecision {
  object: NetworkAllocationObject;
  status: NetworkAllocationStatus;
  changed: boolean;
}

export interface DecisionPlan {
  registry: NetworkRegistry;
  /** Claims not being deleted, in decision order. */
  claims: ClaimDecision[];
  allocations: AllocationDecision[];
  /** Names of claims being deleted that nothing depends on any more (their finalizer may go). */
  releasable: string[];
  /** Pools with requests waiting for space. */
  exhaustedPools: string[];
}

/** JSON with sorted keys, for comparing statuses whatever their field order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

const withoutDate = (record: AddressRecord | undefined) => (record === undefined ? undefined : canonical({ ...record, date: undefined }));

/** The new records, keeping the stored date of every record whose outcome did not change. */
function keepDates(records: AddressRecord[], stored: AddressRecord[] | undefined): AddressRecord[] {
  const previous = new Map((stored ?? []).map((r) => [r.prefix, r]));
  return records.map((record) => {
    const old = previous.get(record.prefix);
    return old?.date !== undefined && withoutDate(old) === withoutDate(record) ? { ...record, date: old.date } : record;
  });
}

function phaseOf(records: readonly AddressRecord[]): ClaimPhase {
  return records.some((r) => r.conflict !== undefined) ? "Conflict" : "Allocated";
}

export function planDecisions(storedClaims: readonly NetworkClaimObject[], storedAllocations: readonly NetworkAllocationObject[], options: NetworkRegistryOptions = {}): DecisionPlan {
  const claimOrder = decisionOrder(storedClaims);
  const allocationOrder = decisionOrder(storedAllocations);
  const { registry, lost } = loadRecordedDecisions(claimOrder.ordered, allocationOrder.ordered, options);

  const invalid = new Map<string, string>();
  const live = claimOrder.ordered.filter((c) => c.metadata.deletionTimestamp === undefined);
  for (const object of live) {
    try {
      registry.claim(claimOf(object));
    } catch (error) {
      invalid.set(object.metadata.name, isNetworkRegistryError(error) ? error.message : String(error));
    }
  }

  const allocations: AllocationDecision[] = [];
  const exhausted = new Set<string>();
  for (const object of allocationOrder.ordered) {
    const { spec, status: stored } = object;
    const base = { sequence: allocationOrder.sequence.get(object.metadata.name)!, observedGeneration: object.metadata.generation ?? 1 };
    let status: NetworkAllocationStatus;
    if (stored?.phase === "Allocated" && stored.prefix !== undefined && !lost.has(object.metadata.name)) {
      status = { ...stored, ...base };
    } else {
      try {
        const record = registry.allocate({
          claim: spec.claim,
          reference: spec.reference,
          from: spec.pool,
          prefixLength: spec.prefixLength,
          ...(spec.strategy !== undefined ? { strategy: spec.strategy } : {}),
          ...(spec.description !== undefined ? { description: spec.description } : {}),
        });
        status = { prefix: record.prefix, ...(record.parent !== undefined ? { parent: { ...record.parent } } : {}), ...base, phase: "Allocated" };
      } catch (error) {
        const code = isNetworkRegistryError(error) ? error.code : "invalid-argument";
        const message = error instanceof Error ? error.message : String(error);
        if (code === "pool-exhausted") exhausted.add(spec.pool);
        status = { ...base, phase: "Failed", reason: code, message };
      }
    }
    allocations.push({ object, status, changed: canonical(status) !== canonical(stored) });
  }

  const claims: ClaimDecision[] = live.map((object) => {
    const name = object.metadata.name;
    const stored = object.status;
    const base = { sequence: claimOrder.sequence.get(name)!, observedGeneration: object.metadata.generation ?? 1 };
    const problem = invalid.get(name);
    let status: NetworkClaimStatus;
    if (problem !== undefined) {
      status = { ...(stored?.addressSpace !== undefined ? { addressSpace: stored.addressSpace } : {}), ...base, phase: "Invalid", message: problem };
    } else {
      const addressSpace = keepDates(registry.get(name)?.status?.addressSpace ?? [], stored?.addressSpace);
      const granted = addressSpace.filter((r) => r.status === "allocated").map((r) => r.prefix);
      status = { addressSpace, ...base, phase: phaseOf(addressSpace), ...(granted.length > 0 ? { allocatedPrefixes: granted.join(",") } : {}) };
    }
    return { object, status, changed: canonical(status) !== canonical(stored) };
  });

  // A claim being deleted holds its records until nothing is delegated or allocated from them.
  const dependedOn = new Set(registry.records().filter((r) => r.record.parent !== undefined && r.record.parent.claim !== r.claim).map((r) => r.record.parent!.claim));
  const releasable = claimOrder.ordered.filter((c) => c.metadata.deletionTimestamp !== undefined && !dependedOn.has(c.metadata.name)).map((c) => c.metadata.name);

  return { registry, claims, allocations, releasable, exhaustedPools: [...exhausted] };
}
