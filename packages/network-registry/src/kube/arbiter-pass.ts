import { isNetworkRegistryError } from "../errors.js";
import { claimStatusRecords, type NetworkRegistry, type NetworkRegistryOptions } from "../registry.js";
import type { AddressRecord } from "../types.js";
import type { ClaimPhase, NetworkAllocationObject, NetworkAllocationStatus, NetworkClaimObject, NetworkClaimStatus } from "./api.js";
import { claimConditions, conditionTime } from "./conditions.js";
import { decisionOrder } from "./order.js";
import { sameJson } from "./same-json.js";
import { claimOf, loadRecordedDecisions, recordedGrants } from "./recorded.js";

/*
 * Decision passes: from the stored claims and allocations to the statuses they should have.
 * The first pass of a leadership term loads the decisions recorded in the objects' statuses
 * (nothing once written is taken back by a later claim, whichever instance wrote it); every pass
 * then applies what changed since, in decision order — new and changed specs, deleted claims,
 * new and deleted allocations — so each change costs one registry update, and the statuses are
 * read back from the registry.
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
  /**
   * Names of claims something is delegated or allocated from (another claim's delegation, or any
   * allocated block, the claim's own included): each must carry the finalizer before a decision
   * that depends on it is recorded.
   */
  dependedOn: ReadonlySet<string>;
  /** Pools with requests waiting for space. */
  exhaustedPools: string[];
}

/** JSON with sorted keys, for comparing statuses whatever their field order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`)
      .join(",")}}`;
  }
  return JSON.stringify(value);
}

/** The canonical spec of each claim's address space, computed once per stored spec. */
const canonicalSpecs = new WeakMap<object, string>();
function canonicalSpec(addressSpace: AddressRecord[]): string {
  let key = canonicalSpecs.get(addressSpace);
  if (key === undefined) canonicalSpecs.set(addressSpace, (key = canonical(addressSpace)));
  return key;
}

/** The new records, keeping the stored date of every record whose outcome did not change. */
function keepDates(records: AddressRecord[], stored: AddressRecord[] | undefined): AddressRecord[] {
  const previous = new Map((stored ?? []).map((r) => [r.prefix, r]));
  return records.map((record) => {
    const old = previous.get(record.prefix);
    return old?.date !== undefined && sameJson({ ...old, date: undefined }, { ...record, date: undefined })
      ? { ...record, date: old.date }
      : record;
  });
}

function phaseOf(records: readonly AddressRecord[]): ClaimPhase {
  return records.some((r) => r.conflict !== undefined) ? "Conflict" : "Allocated";
}

interface AppliedAllocation {
  claim: string;
  prefix: string;
  parent?: { claim: string; prefix: string } | undefined;
}

/** What a claim's last decision was made from: while all of it is the same, so is the decision. */
interface ClaimMemo {
  object: NetworkClaimObject;
  sequence: number;
  problem: string | undefined;
  records: readonly AddressRecord[] | undefined;
  decision: ClaimDecision;
}

/** What an allocation's last decision was made from; a failed one also depends on the registry's generation. */
interface AllocationMemo {
  object: NetworkAllocationObject;
  sequence: number;
  applied: AppliedAllocation | undefined;
  generation: number;
  exhaustedPool: string | undefined;
  decision: AllocationDecision;
}

const sameItems = <T>(a: readonly T[] | undefined, b: readonly T[] | undefined) =>
  a === b || (a !== undefined && b !== undefined && a.length === b.length && a.every((item, i) => item === b[i]));

/** Decides claims and allocations pass after pass, keeping one pure registry between passes. */
export class Decider {
  readonly #options: NetworkRegistryOptions;
  #registry: NetworkRegistry | undefined;
  /** The spec (canonical JSON) each claim has in the registry. */
  readonly #applied = new Map<string, string>();
  /** Why a claim's latest spec could not be applied (its status says Invalid). */
  readonly #invalid = new Map<string, string>();
  readonly #allocations = new Map<string, AppliedAllocation>();
  /*
   * A pass decides again only what can have changed: an object the store changed, a claim whose
   * records' outcomes the registry changed (records are replaced, never changed in place), an
   * allocation that failed while the registry changed since. The rest keep their last decision.
   */
  readonly #claimMemo = new Map<string, ClaimMemo>();
  readonly #allocationMemo = new Map<string, AllocationMemo>();

  constructor(options: NetworkRegistryOptions = {}) {
    this.#options = options;
  }

  plan(storedClaims: readonly NetworkClaimObject[], storedAllocations: readonly NetworkAllocationObject[] = []): DecisionPlan {
    const steps = this.#planSteps(storedClaims, storedAllocations);
    for (;;) {
      const step = steps.next();
      if (step.done === true) return step.value;
    }
  }

  /**
   * {@link plan}, giving the event loop a turn every `sliceMs` of work, so that a pass over many
   * objects never holds up the Lease renewals and watches of this process.
   */
  async planInSlices(
    storedClaims: readonly NetworkClaimObject[],
    storedAllocations: readonly NetworkAllocationObject[] = [],
    sliceMs = 20,
  ): Promise<DecisionPlan> {
    const steps = this.#planSteps(storedClaims, storedAllocations);
    let sliceStart = performance.now();
    for (;;) {
      const step = steps.next();
      if (step.done === true) return step.value;
      if (performance.now() - sliceStart >= sliceMs) {
        await new Promise((resolve) => setImmediate(resolve));
        sliceStart = performance.now();
      }
    }
  }

  /** The pass, yielding after each object it decides (nothing else may use this Decider until it is done). */
  *#planSteps(
    storedClaims: readonly NetworkClaimObject[],
    storedAllocations: readonly NetworkAllocationObject[],
  ): Generator<void, DecisionPlan> {
    const claimOrder = decisionOrder(storedClaims);
    const allocationOrder = decisionOrder(storedAllocations);
    const registry = this.#registry ?? this.#load(claimOrder.ordered, allocationOrder.ordered);

    // Claims gone from the store: their records go (the finalizer kept them while anything depended on them).
    const present = new Set(storedClaims.map((c) => c.metadata.name));
    let releasedClaims = false;
    for (const name of [...this.#applied.keys()]) {
      if (present.has(name)) continue;
      releasedClaims = true;
      this.#applied.delete(name);
      this.#invalid.delete(name);
      try {
        registry.claim({ metadata: { name }, spec: { addressSpace: [] } });
      } catch {
        registry.release(name, { cascade: true });
      }
    }
    // Allocation objects gone: their blocks go back to the pool.
    const presentAllocations = new Set(storedAllocations.map((a) => a.metadata.name));
    for (const name of this.#allocationMemo.keys()) if (!presentAllocations.has(name)) this.#allocationMemo.delete(name);
    for (const name of this.#claimMemo.keys()) if (!present.has(name)) this.#claimMemo.delete(name);
    for (const [name, applied] of [...this.#allocations]) {
      if (presentAllocations.has(name)) continue;
      this.#allocations.delete(name);
      try {
        registry.releaseRecord(applied.claim, applied.prefix, { cascade: true });
      } catch {
        // Already gone with its claim.
      }
    }

    const live = claimOrder.ordered.filter((c) => c.metadata.deletionTimestamp === undefined);
    for (const object of live) {
      yield;
      const name = object.metadata.name;
      const key = object.spec?.addressSpace === undefined ? "[]" : canonicalSpec(object.spec.addressSpace);
      if (this.#applied.get(name) === key) continue;
      this.#applied.set(name, key);
      try {
        registry.claim(claimOf(object));
        this.#invalid.delete(name);
      } catch (error) {
        this.#invalid.set(name, isNetworkRegistryError(error) ? error.message : String(error));
      }
    }

    // A block released with its claim is decided again.
    if (releasedClaims) {
      const held = new Set(registry.allocations().map((a) => `${a.claim} ${a.record.prefix}`));
      for (const [name, applied] of [...this.#allocations])
        if (!held.has(`${applied.claim} ${applied.prefix}`)) this.#allocations.delete(name);
    }

    const allocations: AllocationDecision[] = [];
    const exhausted = new Set<string>();
    for (const object of allocationOrder.ordered) {
      yield;
      const { spec, status: stored } = object;
      const name = object.metadata.name;
      // The term a status was written in is the writer's; carried over, it is no change of decision.
      const base = {
        sequence: allocationOrder.sequence.get(name)!,
        ...(stored?.term !== undefined ? { term: stored.term } : {}),
        observedGeneration: object.metadata.generation ?? 1,
      };
      const applied = this.#allocations.get(name);
      const memo = this.#allocationMemo.get(name);
      if (
        memo !== undefined &&
        memo.object === object &&
        memo.sequence === base.sequence &&
        memo.applied === applied &&
        (applied !== undefined || memo.generation === registry.generation)
      ) {
        if (memo.exhaustedPool !== undefined) exhausted.add(memo.exhaustedPool);
        allocations.push(memo.decision);
        continue;
      }
      let status: NetworkAllocationStatus;
      let exhaustedPool: string | undefined;
      if (applied !== undefined && stored?.phase === "Allocated" && stored.prefix === applied.prefix) {
        status = { ...stored, ...base };
      } else if (applied !== undefined) {
        status = {
          prefix: applied.prefix,
          ...(applied.parent !== undefined ? { parent: { ...applied.parent } } : {}),
          ...base,
          phase: "Allocated",
        };
      } else {
        try {
          const record = registry.allocate({
            claim: spec.claim,
            reference: spec.reference,
            from: spec.pool,
            prefixLength: spec.prefixLength,
            ...(spec.strategy !== undefined ? { strategy: spec.strategy } : {}),
            ...(spec.description !== undefined ? { description: spec.description } : {}),
            ...(spec.prefix !== undefined ? { prefix: spec.prefix } : {}),
          });
          this.#allocations.set(name, { claim: spec.claim, prefix: record.prefix, parent: record.parent });
          status = {
            prefix: record.prefix,
            ...(record.parent !== undefined ? { parent: { ...record.parent } } : {}),
            ...base,
            phase: "Allocated",
          };
        } catch (error) {
          const code = isNetworkRegistryError(error) ? error.code : "invalid-argument";
          const message = error instanceof Error ? error.message : String(error);
          if (code === "pool-exhausted") exhausted.add((exhaustedPool = spec.pool));
          status = { ...base, phase: "Failed", reason: code, message };
        }
      }
      const decision = { object, status, changed: !sameJson(status, stored) };
      this.#allocationMemo.set(name, {
        object,
        sequence: base.sequence,
        applied: this.#allocations.get(name),
        generation: registry.generation,
        exhaustedPool,
        decision,
      });
      allocations.push(decision);
    }

    const now = conditionTime();
    const claims: ClaimDecision[] = [];
    for (const object of live) {
      yield;
      const name = object.metadata.name;
      const stored = object.status;
      const base = {
        sequence: claimOrder.sequence.get(name)!,
        ...(stored?.term !== undefined ? { term: stored.term } : {}),
        observedGeneration: object.metadata.generation ?? 1,
      };
      const problem = this.#invalid.get(name);
      const records = problem === undefined ? claimStatusRecords(registry, name) : undefined;
      const memo = this.#claimMemo.get(name);
      if (
        memo !== undefined &&
        memo.object === object &&
        memo.sequence === base.sequence &&
        memo.problem === problem &&
        sameItems(memo.records, records)
      ) {
        claims.push(memo.decision);
        continue;
      }
      let status: NetworkClaimStatus;
      if (problem !== undefined) {
        const held = (stored?.addressSpace ?? []).filter((r) => r.status === "allocated" && r.conflict === undefined).map((r) => r.prefix);
        status = {
          ...(stored?.addressSpace !== undefined ? { addressSpace: stored.addressSpace } : {}),
          ...base,
          phase: "Invalid",
          message: problem,
          ...(held.length > 0 ? { allocatedPrefixes: held.join(",") } : {}),
        };
      } else {
        const addressSpace = keepDates(registry.get(name)?.status?.addressSpace ?? [], stored?.addressSpace);
        const granted = addressSpace.filter((r) => r.status === "allocated").map((r) => r.prefix);
        status = {
          addressSpace,
          ...base,
          phase: phaseOf(addressSpace),
          ...(granted.length > 0 ? { allocatedPrefixes: granted.join(",") } : {}),
        };
      }
      status.conditions = claimConditions(status, stored?.conditions, now);
      const decision = { object, status, changed: !sameJson(status, stored) };
      this.#claimMemo.set(name, { object, sequence: base.sequence, problem, records, decision });
      claims.push(decision);
    }

    // A claim being deleted holds its records until nothing is delegated or allocated from them:
    // another claim's delegations, and every allocated block, its own claim's included.
    const dependedOn = new Set<string>();
    for (const name of this.#applied.keys()) {
      for (const record of claimStatusRecords(registry, name) ?? []) {
        if (record.status === "allocated" && record.parent !== undefined && record.parent.claim !== name)
          dependedOn.add(record.parent.claim);
      }
    }
    for (const applied of this.#allocations.values()) if (applied.parent !== undefined) dependedOn.add(applied.parent.claim);
    const releasable = claimOrder.ordered
      .filter((c) => c.metadata.deletionTimestamp !== undefined && !dependedOn.has(c.metadata.name))
      .map((c) => c.metadata.name);

    return { registry, claims, allocations, releasable, dependedOn, exhaustedPools: [...exhausted] };
  }

  /** The registry of the recorded decisions; what each claim has applied is its recorded grants. */
  #load(claims: readonly NetworkClaimObject[], allocations: readonly NetworkAllocationObject[]): NetworkRegistry {
    const { registry, lost } = loadRecordedDecisions(claims, allocations, this.#options);
    for (const claim of claims) this.#applied.set(claim.metadata.name, canonical(recordedGrants(claim)));
    // The pool each block came from, as the registry placed it (a recorded status may lack it).
    const parents = new Map(registry.allocations().map((a) => [`${a.claim} ${a.record.prefix}`, a.record.parent]));
    for (const allocation of allocations) {
      const prefix = allocation.status?.prefix;
      if (allocation.status?.phase === "Allocated" && prefix !== undefined && !lost.has(allocation.metadata.name)) {
        this.#allocations.set(allocation.metadata.name, {
          claim: allocation.spec.claim,
          prefix,
          parent: parents.get(`${allocation.spec.claim} ${prefix}`) ?? allocation.status.parent,
        });
      }
    }
    this.#registry = registry;
    return registry;
  }
}

/** One pass from nothing: what a new leader decides from the stored objects. */
export function planDecisions(
  storedClaims: readonly NetworkClaimObject[],
  storedAllocations: readonly NetworkAllocationObject[] = [],
  options: NetworkRegistryOptions = {},
): DecisionPlan {
  return new Decider(options).plan(storedClaims, storedAllocations);
}
