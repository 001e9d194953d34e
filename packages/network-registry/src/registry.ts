import { validateClaim, type ValidatedRecord } from "./claim-validation.js";
import { describeValue } from "./describe-value.js";
import { assertUpdateKeepsDependants, dependantsOutside, describeDependants } from "./dependants.js";
import { NetworkRegistryError } from "./errors.js";
import type { Utilization } from "./free-space.js";
import { GrantIndex } from "./grant-index.js";
import { Prefix } from "./prefix.js";
import { normalizeRecord, specOf } from "./records.js";
import { RecordStamps } from "./record-stamps.js";
import { rangeOf } from "./refusal-watch.js";
import { RefusedRecords } from "./refused-records.js";
import { decideRefused, type DecisionContext } from "./refusal-decisions.js";
import { OverlapRules } from "./overlap-rules.js";
import {
  checkAllocateRequest,
  checkName,
  checkRegistryOptions,
  checkReleaseOptions,
  invalidArgument,
  toPrefixArgument,
} from "./registry-arguments.js";
import { allocationRecord, spaceOf, takeBlock } from "./allocation.js";
import { restoreState, type RegistrySnapshot } from "./registry-snapshot.js";
import { metadataOf, newClaimState, newGrant, setStatus, type ClaimState, type Grant, type RecordState } from "./registry-state.js";
import type { AllocateRequest, Allocation, NetworkRegistryOptions, RecordCheck, ReleaseOptions } from "./registry-types.js";
import { defaultSpecialPurposePolicy } from "./special-purpose.js";
import { stableStringify } from "@kubekit/apimachinery";
import { NETWORK_CLAIM_API_VERSION, NETWORK_CLAIM_KIND, WELL_KNOWN_CLAIMS, type AddressRecord, type NetworkClaim } from "./types.js";
import { whois, type WhoisResult } from "./whois.js";

export type { AllocateRequest, Allocation, NetworkRegistryOptions, RecordCheck, ReleaseOptions } from "./registry-types.js";
export type { RegistrySnapshot } from "./registry-snapshot.js";
export type { Owner, WhoisResult } from "./whois.js";

/*
 * The coordinator: it holds the state and applies each change in the order the policy needs
 * (plan, refuse or commit, then decide the refused records again), handing every question to
 * the part that answers it: OverlapRules (conflicts, their explanation, the nearest free
 * block), refusal-decisions (the fixed point after a change), allocation (pools and blocks),
 * dependants (what a release or update would orphan), whois, and the snapshot reader;
 * GrantIndex and RefusedRecords keep the indexes.
 */

/** The fields that decide a record's grant; everything else is metadata an update may change. */
function decisionKey(spec: AddressRecord): string {
  return stableStringify({ prefix: spec.prefix, carveOut: spec.status === "unavailable", parent: spec.parent });
}

let heldStatusRecords: (registry: NetworkRegistry, name: string) => readonly AddressRecord[] | undefined;

/**
 * A claim's record statuses as the registry holds them, not copies (callers must not change
 * them): each is replaced, never changed in place, so a record whose object is the same as
 * before has the same outcome, and a caller can tell what changed without building the view.
 * Internal to this package (the arbiter's incremental passes).
 */
export function claimStatusRecords(registry: NetworkRegistry, name: string): readonly AddressRecord[] | undefined {
  return heldStatusRecords(registry, name);
}

/**
 * The address-space registry of one estate (one cluster, or several that must not overlap).
 * Pure and synchronous: all state is in memory and serializes with {@link snapshot}.
 *
 * Policy: records of different claims are disjoint unless nesting is declared — a record may
 * name a `parent` it is delegated from (the parent's owner allows it via `delegateTo`), or the
 * owner of the outer record carves the inner range out with an `unavailable` record. Records
 * are decided in claim order; granted records are never revoked by later claims; refused
 * records are decided again, in claim order, whenever the granted records change.
 */
export class NetworkRegistry {
  static {
    heldStatusRecords = (registry, name) => registry.claims.get(name)?.declared.map((r) => r.status);
  }

  private readonly claims = new Map<string, ClaimState>();
  private readonly rules: OverlapRules;
  private readonly stamps: RecordStamps;
  private readonly decisions: DecisionContext;
  private readonly wellKnown: readonly string[];
  private generationCounter = 0;
  private claimCounter = 0;
  /** Declared records without a grant that a change may let in (refusals other than SpecialPurpose, and undecided ones), and the grant changes since they were decided. */
  private readonly refused = new RefusedRecords<RecordState>();
  private readonly grants = new GrantIndex(this.refused, (pool) => this.rules.insideOwnCarveOut(pool));
  /** Claims with carve-outs, whose "carves nothing out" warnings follow their own grants. */
  private readonly carving = new Set<ClaimState>();

  constructor(options: NetworkRegistryOptions = {}) {
    checkRegistryOptions(options);
    this.rules = new OverlapRules(options.policy ?? defaultSpecialPurposePolicy, this.grants, this.claims, this.carving);
    this.stamps = new RecordStamps(options.clock ?? (() => new Date()));
    this.wellKnown = options.wellKnownClaims ?? WELL_KNOWN_CLAIMS;
    this.decisions = { refused: this.refused, rules: this.rules, grants: this.grants, stamps: this.stamps };
  }

  /** Increases on every change; a store can use it for optimistic concurrency. */
  get generation(): number {
    return this.generationCounter;
  }

  /**
   * Register (or update) a claim's declared intent and return it with `status.addressSpace`
   * filled: each record `allocated`, or `unavailable` with a `conflict`. Applying the same spec
   * again changes nothing. An update compares record by record: a record whose prefix, kind
   * and parent are unchanged keeps its grant (its description, reference and delegateTo are
   * updated). Throws `invalid-claim` for malformed input, `claim-mismatch` when a well-known
   * claim would lose or change a record, and `has-dependants` when the update would orphan
   * records delegated from it; a failed call changes nothing.
   */
  claim(input: NetworkClaim): NetworkClaim {
    const { problems, records } = validateClaim(input);
    if (problems.length > 0) {
      throw new NetworkRegistryError(
        "invalid-claim",
        `NetworkClaim ${describeValue((input as { metadata?: { name?: unknown } } | null | undefined)?.metadata?.name)} is invalid: ${problems.join("; ")}`,
      );
    }
    const name = input.metadata.name;
    const specs = records.map((v) => specOf(v.record, v.prefix.toString()));
    const existing = this.claims.get(name);
    const previous = new Map((existing?.declared ?? []).map((r) => [r.validated.prefix.toString(), r]));
    if (existing !== undefined) {
      const current = existing.declared.map((r) => r.spec);
      if (stableStringify(current) === stableStringify(specs)) return this.view(existing);
      if (this.wellKnown.includes(name)) {
        const wanted = new Set(specs.map(stableStringify));
        if (!current.every((r) => wanted.has(stableStringify(r)))) {
          throw new NetworkRegistryError(
            "claim-mismatch",
            `NetworkClaim ${name} already exists with a different spec (${current.map((r) => r.prefix).join(", ") || "empty"}); the first writer wins and the new spec (${specs.map((r) => r.prefix).join(", ") || "empty"}) was not applied (a well-known claim may only add records)`,
          );
        }
      }
    }
    // Plan the update without touching state, so that a refusal leaves everything as it was.
    const kept = new Map<string, { record: RecordState; spec: AddressRecord }>();
    specs.forEach((spec) => {
      const old = previous.get(spec.prefix);
      if (old !== undefined && decisionKey(old.spec) === decisionKey(spec)) kept.set(spec.prefix, { record: old, spec });
    });
    const dropped = [...previous.values()].filter((r) => !kept.has(r.validated.prefix.toString()));
    if (existing !== undefined) assertUpdateKeepsDependants(this.grants.trie, existing, dropped, kept, specs);

    const state = existing ?? newClaimState(name, this.claimCounter++);
    if (existing === undefined) this.claims.set(name, state);
    state.metadata = metadataOf(input.metadata);
    for (const record of dropped) this.dropDeclared(record);
    const date = this.stamps.now();
    const fresh: RecordState[] = [];
    state.declared = records.map((validated, i) => {
      const spec = specs[i]!;
      const keep = kept.get(spec.prefix);
      if (keep !== undefined) {
        this.updateMetadata(keep.record, spec, validated);
        return keep.record;
      }
      const record: RecordState = { claim: state, allocation: false, spec, status: spec, grant: undefined, validated };
      fresh.push(record);
      return record;
    });
    for (const record of fresh) {
      if (record.spec.status === "unavailable") this.grantCarveOut(record, date);
      else this.refuse(record);
    }
    if (state.declared.some((r) => r.spec.status === "unavailable")) this.carving.add(state);
    else this.carving.delete(state);
    this.settle();
    this.generationCounter++;
    return this.view(state);
  }

  /**
   * Check one record for `claimName` against the registry without registering it (dry run).
   * The same rules as {@link claim}; costs one index search when there is no conflict.
   */
  check(claimName: string, record: AddressRecord): RecordCheck {
    checkName(claimName, "claim name");
    const validated = validateClaim({ metadata: { name: claimName }, spec: { addressSpace: [record] } });
    const only = validated.records[0];
    if (validated.problems.length > 0 || only === undefined) {
      throw new NetworkRegistryError("invalid-claim", `record for ${claimName} is invalid: ${validated.problems.join("; ")}`);
    }
    if (record.status === "unavailable") return { status: "unavailable", warnings: [] };
    const outcome = this.rules.evaluate(claimName, only, true);
    return outcome.conflict === undefined
      ? { status: "allocated", warnings: outcome.warnings }
      : { status: "unavailable", conflict: outcome.conflict, warnings: outcome.warnings };
  }

  /**
   * Remove a claim with its records and allocations. Refused when records of other claims are
   * delegated from it (`has-dependants`, naming them), unless `cascade` is set. Returns false
   * when there is no such claim.
   */
  release(name: string, options?: ReleaseOptions): boolean {
    checkName(name, "claim name");
    const cascade = checkReleaseOptions(options);
    const state = this.claims.get(name);
    if (state === undefined) return false;
    const own = [...state.declared, ...state.allocations.values()].flatMap((r) => (r.grant === undefined ? [] : [r.grant]));
    const outside = dependantsOutside(own);
    if (outside.length > 0 && !cascade) {
      throw new NetworkRegistryError(
        "has-dependants",
        `NetworkClaim ${name} cannot be released: ${describeDependants(outside)}; release them first or pass { cascade: true }`,
      );
    }
    for (const [, children] of outside) for (const child of children) this.releaseTree(child);
    for (const record of [...state.allocations.values()]) this.dropAllocation(record);
    for (const record of state.declared) this.dropDeclared(record);
    this.claims.delete(name);
    this.carving.delete(state);
    this.settle();
    this.generationCounter++;
    return true;
  }

  /**
   * Remove one allocation of a claim; its space merges back into its pool. Declared records
   * are changed with {@link claim}. Refused (`has-dependants`) when blocks were allocated from
   * it, unless `cascade` is set. Returns false when the claim holds no such allocation.
   */
  releaseRecord(claimName: string, prefix: string | Prefix, options?: ReleaseOptions): boolean {
    checkName(claimName, "claim name");
    const key = toPrefixArgument(prefix, "prefix").toString();
    const cascade = checkReleaseOptions(options);
    const state = this.claims.get(claimName);
    if (state === undefined) return false;
    const record = state.allocations.get(key);
    if (record === undefined) {
      if (state.declared.some((r) => r.spec.prefix === key)) {
        throw invalidArgument(`${key} is declared in the spec of NetworkClaim ${claimName}; apply the claim without it to give it up`);
      }
      return false;
    }
    const outside = dependantsOutside([record.grant!]);
    if (outside.length > 0 && !cascade) {
      throw new NetworkRegistryError(
        "has-dependants",
        `${claimName} ${key} cannot be released: ${describeDependants(outside)}; release them first or pass { cascade: true }`,
      );
    }
    this.releaseTree(record.grant!);
    this.settle();
    this.generationCounter++;
    return true;
  }

  /** A claim with its status, or undefined. */
  get(name: string): NetworkClaim | undefined {
    checkName(name, "claim name");
    const state = this.claims.get(name);
    return state === undefined ? undefined : this.view(state);
  }

  /** All claims in claim order (the order that decides conflicts). */
  list(): NetworkClaim[] {
    return [...this.claims.values()].map((state) => this.view(state));
  }

  /** Dynamic allocations of one claim, or of all claims in claim order; each claim's in address order. */
  allocations(claimName?: string): Allocation[] {
    if (claimName !== undefined) checkName(claimName, "claim name");
    const states = claimName === undefined ? [...this.claims.values()] : [this.claims.get(claimName)].filter((s) => s !== undefined);
    return states.flatMap((state) =>
      [...state.allocations.values()]
        .sort((a, b) => a.validated.prefix.compare(b.validated.prefix))
        .map((r) => ({ claim: state.name, record: normalizeRecord(r.status) })),
    );
  }

  /** Every granted record (allocated, carved out and allocations), IPv4 first, in address order. */
  records(): { claim: string; record: AddressRecord }[] {
    const result: { claim: string; record: AddressRecord }[] = [];
    for (const entry of this.grants.trie)
      for (const grant of entry.value) result.push({ claim: grant.claim, record: normalizeRecord(grant.status) });
    return result;
  }

  /** Who owns an address or prefix: the exact record, the covering ones and the covered ones. */
  whois(query: string | Prefix): WhoisResult {
    return whois(this.grants.trie, query);
  }

  /**
   * Take a free `/prefixLength` from a pool record and keep it as an allocation of `claim`
   * (its own record, delegated from the pool; the claim's declared spec is not touched).
   * Carve-outs of the pool's owner and every granted record inside the pool are skipped.
   * Throws `invalid-argument`, `pool-not-found`, `not-delegable` or `pool-exhausted`; a
   * failed call changes nothing.
   */
  allocate(request: AllocateRequest): AddressRecord {
    const { strategy, pool: poolPrefix } = checkAllocateRequest(request);
    const { pool, block } = takeBlock(this.grants, request, strategy, poolPrefix);
    let state = this.claims.get(request.claim);
    if (state === undefined) {
      state = newClaimState(request.claim, this.claimCounter++);
      this.claims.set(request.claim, state);
    }
    const record = allocationRecord(state, pool, block, request, this.stamps);
    const grant = record.grant!;
    pool.children.add(grant);
    state.allocations.set(grant.key, record);
    // The block was free, so only the pool itself can share its prefix (a whole-pool delegation),
    // and no other pool's free space changes.
    this.grants.index(grant);
    decideRefused(this.decisions);
    this.generationCounter++;
    return record.status;
  }

  /** Free blocks of a pool (a granted record, or any prefix), in address order. */
  freeBlocks(pool: string | Prefix): Prefix[] {
    return spaceOf(this.grants, toPrefixArgument(pool, "pool")).blocks();
  }

  /**
   * Used and free space of a pool (a granted record, or any prefix). The pool owner's own
   * carve-outs and every granted record inside count as used; other claims' carve-outs do not.
   */
  utilization(pool: string | Prefix): Utilization {
    return spaceOf(this.grants, toPrefixArgument(pool, "pool")).utilization();
  }

  /** Deterministic, JSON-serializable state: the claims in claim order with their status, and the allocations. */
  snapshot(): RegistrySnapshot {
    return {
      apiVersion: NETWORK_CLAIM_API_VERSION,
      kind: "NetworkRegistrySnapshot",
      generation: this.generationCounter,
      claims: this.list(),
      allocations: this.allocations(),
    };
  }

  /**
   * Rebuild a registry from {@link snapshot} output. Everything is validated again: the shape,
   * every record, that granted records obey the overlap and delegation rules and the policy,
   * that parents exist without cycles, and that every status is what the registry would say
   * now (a refused record names its current blocker). Throws `invalid-snapshot` otherwise.
   */
  static restore(snapshot: RegistrySnapshot, options: NetworkRegistryOptions = {}): NetworkRegistry {
    const registry = new NetworkRegistry(options);
    const { claims, grants, refused, carving, rules } = registry;
    restoreState({ claims, grants, refused, carving, rules }, snapshot);
    registry.claimCounter = registry.claims.size;
    registry.generationCounter = snapshot.generation;
    return registry;
  }

  // -------------------------------------------------------------------------------------------

  private view(state: ClaimState): NetworkClaim {
    return {
      apiVersion: NETWORK_CLAIM_API_VERSION,
      kind: NETWORK_CLAIM_KIND,
      metadata: structuredClone(state.metadata),
      spec: { addressSpace: state.declared.map((r) => normalizeRecord(r.spec)) },
      status: { addressSpace: state.declared.map((r) => normalizeRecord(r.status)) },
    };
  }

  private grantCarveOut(record: RecordState, date: string): void {
    record.status = normalizeRecord({ ...record.spec, date, status: "unavailable" });
    record.grant = newGrant(record, "carve-out");
    this.grants.insert(record.grant);
  }

  /** A kept record takes the new spec's metadata; its grant and decision stay. */
  private updateMetadata(record: RecordState, spec: AddressRecord, validated: ValidatedRecord): void {
    // A grant's reference is in the messages of the records it blocks, its delegateTo decides its delegations.
    if (record.grant !== undefined) this.refused.grantFreed(rangeOf(record.grant.prefix));
    record.spec = spec;
    record.validated = validated;
    const { reference, description, delegateTo } = spec;
    setStatus(record, { ...record.status, reference, description, delegateTo });
    if (record.grant !== undefined) record.grant.delegateTo = delegateTo;
  }

  /** Release a grant and everything delegated from it: allocations go, declared records lose their grant. */
  private releaseTree(grant: Grant): void {
    for (const child of [...grant.children]) this.releaseTree(child);
    const record = grant.record;
    if (record.allocation) {
      this.dropAllocation(record);
      return;
    }
    this.grants.remove(grant);
    record.grant = undefined;
    this.refuse(record);
  }

  private dropAllocation(record: RecordState): void {
    if (record.grant !== undefined) this.grants.remove(record.grant);
    record.claim.allocations.delete(record.validated.prefix.toString());
  }

  private dropDeclared(record: RecordState): void {
    this.refused.delete(record);
    if (record.grant !== undefined) this.grants.remove(record.grant);
    record.grant = undefined;
  }

  /** After a change to granted records: decide refused records again and refresh carve-out warnings. */
  private settle(): void {
    decideRefused(this.decisions);
    for (const state of this.carving) {
      for (const record of state.declared.filter((r) => r.spec.status === "unavailable")) {
        const inside = state.declared.some((r) => r.grant?.kind === "allocated" && r.grant.prefix.contains(record.validated.prefix));
        const warnings = inside
          ? undefined
          : [`carve-out ${record.status.prefix} is not inside any allocated record of ${state.name}, so it carves nothing out`];
        if (stableStringify(warnings) !== stableStringify(record.status.warnings)) setStatus(record, { ...record.status, warnings });
      }
    }
  }

  /** A declared record without a grant, to be decided at the next settle. */
  private refuse(record: RecordState): void {
    this.refused.add(record);
  }
}
