import { validateClaim, type ValidatedRecord } from "./claim-validation.js";
import { NetworkRegistryError } from "./errors.js";
import { FreeSpace, type AllocationStrategy, type Utilization } from "./free-space.js";
import { parsePrefix, parsePrefixOrAddress } from "./parse.js";
import { Prefix } from "./prefix.js";
import { describeReference, normalizeRecord, normalizeReference, specOf } from "./records.js";
import { defaultSpecialPurposePolicy, type SpecialPurposePolicy } from "./special-purpose.js";
import { TombstoneMap } from "./tombstone-map.js";
import { PrefixTrie } from "./trie.js";
import {
  NETWORK_CLAIM_API_VERSION, NETWORK_CLAIM_KIND, WELL_KNOWN_CLAIMS,
  type AddressRecord, type Conflict, type NetworkClaim, type NetworkClaimMetadata, type OverlapRelation, type ResourceReference,
} from "./types.js";
import { bigIntToWords } from "./words.js";

export interface NetworkRegistryOptions {
  /** Special-purpose policy (IANA table with caller overrides). */
  policy?: SpecialPurposePolicy;
  /** Time source for record dates; pass a fixed one for reproducible output. */
  clock?: () => Date;
  /** Names whose first claim wins (default: kube-apiserver, kube-controller-manager). */
  wellKnownClaims?: readonly string[];
}

export interface AllocateRequest {
  /** The claim that receives the record; created when missing. */
  claim: string;
  reference: ResourceReference;
  /** The pool: a granted record the claim owns or may delegate from. */
  from: string | Prefix;
  prefixLength: number;
  /** `best-fit` (default) keeps large blocks whole; `first-fit` takes the lowest address. */
  strategy?: AllocationStrategy;
  description?: string;
}

/** One owner in a {@link WhoisResult}. */
export interface Owner {
  claim: string;
  record: AddressRecord;
  /** How the owner's prefix relates to the query. */
  relation: "exact" | "covering" | "covered";
}

export interface WhoisResult {
  query: string;
  /** The most specific allocated record containing the query (the answer to "who owns this IP"). */
  mostSpecific: Owner | undefined;
  exact: Owner[];
  /** Supernets, most specific first. */
  covering: Owner[];
  /** Subnets, in address order. */
  covered: Owner[];
}

/** The outcome of checking one record without registering it. */
export interface RecordCheck {
  status: "allocated" | "unavailable";
  conflict?: Conflict;
  warnings: string[];
}

export interface RegistrySnapshot {
  apiVersion: string;
  kind: "NetworkRegistrySnapshot";
  generation: number;
  claims: NetworkClaim[];
}

interface Grant {
  readonly claim: string;
  readonly prefix: Prefix;
  readonly key: string;
  readonly kind: "allocated" | "carve-out";
  parent: Grant | undefined;
  readonly delegateTo: readonly string[] | undefined;
  readonly status: AddressRecord;
  /** The `parent` value of records allocated from this grant, shared by all of them. */
  asParent?: Readonly<{ claim: string; prefix: string }>;
}

interface RecordState {
  /** Order of the record in its claim (allocation churn must not reorder a claim's records). */
  seq: number;
  spec: AddressRecord;
  status: AddressRecord;
  grant: Grant | undefined;
  validated: ValidatedRecord;
}

interface ClaimState {
  name: string;
  metadata: NetworkClaimMetadata;
  records: TombstoneMap<string, RecordState>;
}

let sequence = 0;

const SEVERITY = { allow: 0, warn: 1, reject: 2 } as const;

const RELATION_TEXT: Record<OverlapRelation, string> = { equal: "is the same range as", inside: "is inside", contains: "contains" };

function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/**
 * The address-space registry of one estate (one cluster, or several that must not overlap).
 * Pure and synchronous: all state is in memory and serializes with {@link snapshot}.
 *
 * Policy: records of different claims are disjoint unless nesting is declared — a record may
 * name a `parent` it is delegated from (the parent's owner allows it via `delegateTo`), or the
 * owner of the outer record carves the inner range out with an `unavailable` record. The first
 * writer wins; granted records are never revoked by later claims.
 */
export class NetworkRegistry {
  private readonly index = new PrefixTrie<Grant[]>();
  private readonly claims = new Map<string, ClaimState>();
  private readonly pools = new Map<Grant, FreeSpace>();
  private readonly policy: SpecialPurposePolicy;
  private readonly clock: () => Date;
  private readonly wellKnown: readonly string[];
  private generationCounter = 0;
  private lastDateMs = Number.NaN;
  private lastDate = "";
  private lastReference: ResourceReference | undefined;
  /** Refused records that a release might let in; re-checked only when there are any. */
  private readonly refused = new Set<RecordState>();

  constructor(options: NetworkRegistryOptions = {}) {
    this.policy = options.policy ?? defaultSpecialPurposePolicy;
    this.clock = options.clock ?? (() => new Date());
    this.wellKnown = options.wellKnownClaims ?? WELL_KNOWN_CLAIMS;
  }

  /** Increases on every change; a store can use it for optimistic concurrency. */
  get generation(): number {
    return this.generationCounter;
  }

  /**
   * Register (or update) a claim and return it with `status.addressSpace` filled: each record
   * `allocated`, or `unavailable` with a `conflict`. Carve-outs (`status: unavailable` in spec)
   * are registered first so the claim's own records may enclose other components' ranges.
   * Throws `invalid-claim` for malformed input and `claim-mismatch` when a well-known claim
   * already exists with a different spec.
   */
  claim(input: NetworkClaim): NetworkClaim {
    const { problems, records } = validateClaim(input);
    if (problems.length > 0) {
      throw new NetworkRegistryError("invalid-claim", `NetworkClaim ${JSON.stringify(input?.metadata?.name)} is invalid: ${problems.join("; ")}`);
    }
    const name = input.metadata.name;
    const specs = records.map((v) => specOf(v.record, v.prefix.toString()));
    let dropped = false;
    let state = this.claims.get(name);
    if (state !== undefined) {
      const current = [...state.records.values()].sort((a, b) => a.seq - b.seq).map((r) => r.spec);
      if (stableStringify(current) === stableStringify(specs)) return this.view(state);
      if (this.wellKnown.includes(name)) {
        throw new NetworkRegistryError(
          "claim-mismatch",
          `NetworkClaim ${name} already exists with a different spec (${current.map((r) => r.prefix).join(", ") || "empty"}); the first writer wins and the new spec (${specs.map((r) => r.prefix).join(", ") || "empty"}) was not applied`,
        );
      }
      // Update: keep records whose spec is unchanged, release the others, then add the new ones.
      const wanted = new Set(specs.map(stableStringify));
      for (const [key, record] of [...state.records.entries()]) {
        if (!wanted.has(stableStringify(record.spec))) {
          this.dropRecord(state, key);
          dropped = true;
        }
      }
    } else {
      state = { name, metadata: { name }, records: new TombstoneMap() };
      this.claims.set(name, state);
    }
    state.metadata = structuredClone(input.metadata);
    const previous = state.records;
    const ordered = new TombstoneMap<string, RecordState>();
    const fresh: RecordState[] = [];
    records.forEach((validated, i) => {
      const key = validated.prefix.toString();
      const kept = previous.get(key);
      if (kept !== undefined) {
        kept.seq = sequence++;
        ordered.set(key, kept);
        return;
      }
      const placeholder: RecordState = { seq: sequence++, spec: specs[i]!, status: specs[i]!, grant: undefined, validated };
      ordered.set(key, placeholder);
      fresh.push(placeholder);
    });
    state.records = ordered;
    const date = this.now();
    for (const record of fresh.filter((r) => r.spec.status === "unavailable")) this.grantCarveOut(state, record, date);
    for (const record of fresh.filter((r) => r.spec.status !== "unavailable")) this.evaluateAndGrant(state, record, date);
    for (const record of fresh.filter((r) => r.spec.status === "unavailable")) {
      const inside = [...state.records.values()].some((r) => r.grant?.kind === "allocated" && r.grant.prefix.contains(record.validated.prefix));
      if (!inside) {
        record.status.warnings = [`carve-out ${record.status.prefix} is not inside any allocated record of ${name}, so it carves nothing out`];
      }
    }
    // Space given up by an update may let other claims' refused records in.
    if (dropped) this.recheckRefused();
    this.generationCounter++;
    return this.view(state);
  }

  /**
   * Check one record for `claimName` against the registry without registering it (dry run).
   * The same rules as {@link claim}; costs one trie walk when there is no conflict.
   */
  check(claimName: string, record: AddressRecord): RecordCheck {
    let only: ValidatedRecord | undefined;
    if (record.parent === undefined && typeof record.reference?.resource === "string" && (record.description?.length ?? 0) <= 255) {
      // Lean path for the common shape; anything unusual goes through full validation.
      only = { record, prefix: parsePrefix(record.prefix), parentPrefix: undefined };
    } else {
      const validated = validateClaim({ metadata: { name: claimName }, spec: { addressSpace: [record] } });
      only = validated.records[0];
      if (validated.problems.length > 0 || only === undefined) {
        throw new NetworkRegistryError("invalid-claim", `record for ${claimName} is invalid: ${validated.problems.join("; ")}`);
      }
    }
    if (record.status === "unavailable") return { status: "unavailable", warnings: [] };
    const outcome = this.evaluate(claimName, only);
    return outcome.conflict === undefined
      ? { status: "allocated", warnings: outcome.warnings }
      : { status: "unavailable", conflict: outcome.conflict, warnings: outcome.warnings };
  }

  /** Remove a claim and all its records; refused records of other claims are re-checked in claim order. */
  release(name: string): boolean {
    const state = this.claims.get(name);
    if (state === undefined) return false;
    for (const key of [...state.records.keys()]) this.dropRecord(state, key);
    this.claims.delete(name);
    this.recheckRefused();
    this.generationCounter++;
    return true;
  }

  /** Remove one record of a claim (e.g. a dynamic allocation); its space merges back into its pool. */
  releaseRecord(claimName: string, prefix: string | Prefix): boolean {
    const state = this.claims.get(claimName);
    if (state === undefined) return false;
    const key = typeof prefix === "string" ? parsePrefix(prefix).toString() : prefix.toString();
    if (!state.records.has(key)) return false;
    this.dropRecord(state, key);
    this.recheckRefused();
    this.generationCounter++;
    return true;
  }

  /** A claim with its status, or undefined. */
  get(name: string): NetworkClaim | undefined {
    const state = this.claims.get(name);
    return state === undefined ? undefined : this.view(state);
  }

  /** All claims in claim order (the order that decides conflicts). */
  list(): NetworkClaim[] {
    return [...this.claims.values()].map((state) => this.view(state));
  }

  /** Every granted record (allocated and carved out), IPv4 first, in address order. */
  records(): { claim: string; record: AddressRecord }[] {
    const result: { claim: string; record: AddressRecord }[] = [];
    for (const entry of this.index) for (const grant of entry.value) result.push({ claim: grant.claim, record: normalizeRecord(grant.status) });
    return result;
  }

  /** Who owns an address or prefix: the exact record, the covering ones and the covered ones. */
  whois(query: string | Prefix): WhoisResult {
    const prefix = typeof query === "string" ? parsePrefixOrAddress(query) : query;
    const exact: Owner[] = [];
    const covering: Owner[] = [];
    const covered: Owner[] = [];
    for (const entry of this.index.overlapping(prefix)) {
      const relation = entry.prefix.length === prefix.length ? "exact" : entry.prefix.length < prefix.length ? "covering" : "covered";
      for (const grant of entry.value) {
        const owner: Owner = { claim: grant.claim, record: normalizeRecord(grant.status), relation };
        (relation === "exact" ? exact : relation === "covering" ? covering : covered).push(owner);
      }
    }
    covering.reverse();
    const mostSpecific = [...exact, ...covering].find((o) => o.record.status === "allocated");
    const isAddress = typeof query === "string" && !query.includes("/");
    return { query: isAddress ? prefix.first().toString() : prefix.toString(), mostSpecific, exact, covering, covered };
  }

  /**
   * Take the lowest aligned free `/prefixLength` from a pool record and record it in `claim`
   * as delegated from the pool. Carve-outs and every granted record inside the pool are skipped.
   * Throws `pool-not-found`, `not-delegable` or `pool-exhausted`.
   */
  allocate(request: AllocateRequest): AddressRecord {
    const poolPrefix = typeof request.from === "string" ? parsePrefix(request.from) : request.from;
    const pool = this.poolGrant(poolPrefix, request.claim);
    if (!Number.isInteger(request.prefixLength) || request.prefixLength < poolPrefix.length || request.prefixLength > poolPrefix.bits) {
      throw new NetworkRegistryError("invalid-argument", `cannot allocate a /${request.prefixLength} from ${poolPrefix.toString()}`);
    }
    if (request.prefixLength === poolPrefix.length && request.claim === pool.claim) {
      throw new NetworkRegistryError("invalid-argument", `${pool.key} already belongs to ${pool.claim}; allocating all of it to the same claim changes nothing`);
    }
    const space = this.poolSpace(pool);
    const block = space.take(request.prefixLength, request.strategy ?? "best-fit");
    if (block === undefined) {
      const usage = space.utilization();
      throw new NetworkRegistryError(
        "pool-exhausted",
        `no free /${request.prefixLength} left in ${pool.key} (${usage.percentUsed}% used; largest free block ${usage.largestFree ?? "none"})`,
      );
    }
    let state = this.claims.get(request.claim);
    if (state === undefined) {
      const { problems } = validateClaim({ metadata: { name: request.claim }, spec: { addressSpace: [] } });
      if (problems.length > 0) {
        space.release(block);
        throw new NetworkRegistryError("invalid-claim", problems.join("; "));
      }
      state = { name: request.claim, metadata: { name: request.claim }, records: new TombstoneMap() };
      this.claims.set(request.claim, state);
    }
    // Built field by field in canonical order and frozen, so the status record can be shared
    // with the caller without copies (this is the allocation hot path).
    const key = block.toString();
    const reference = this.frozenReference(request.reference);
    const parent = (pool.asParent ??= Object.freeze({ claim: pool.claim, prefix: pool.key }));
    const description = request.description?.slice(0, 255);
    const spec: AddressRecord = description === undefined
      ? { reference, prefix: key, parent }
      : { reference, prefix: key, description, parent };
    const status: AddressRecord = description === undefined
      ? { reference, prefix: key, date: this.now(), status: "allocated", parent }
      : { reference, prefix: key, description, date: this.now(), status: "allocated", parent };
    Object.freeze(status);
    const grant: Grant = { claim: state.name, prefix: block, key, kind: "allocated", parent: pool, delegateTo: undefined, status };
    state.records.set(key, { seq: sequence++, spec, status, grant, validated: { record: spec, prefix: block, parentPrefix: pool.prefix } });
    // The block was free, so only the pool itself can share its prefix (a whole-pool delegation).
    const samePrefix = block.length === pool.prefix.length ? this.index.get(block) : undefined;
    this.index.insert(block, samePrefix === undefined ? [grant] : [...samePrefix, grant]);
    this.generationCounter++;
    return status;
  }

  /** Frozen copy of a reference; consecutive allocations for the same reference share one. */
  private frozenReference(reference: ResourceReference): ResourceReference {
    const last = this.lastReference;
    if (
      last !== undefined && last.group === reference.group && last.resource === reference.resource &&
      last.namespace === reference.namespace && last.name === reference.name && last.uid === reference.uid
    ) {
      return last;
    }
    this.lastReference = Object.freeze(normalizeReference(reference));
    return this.lastReference;
  }

  /** ISO-8601 time from the clock, formatted once per millisecond. */
  private now(): string {
    const ms = this.clock().getTime();
    if (ms !== this.lastDateMs) {
      this.lastDateMs = ms;
      this.lastDate = new Date(ms).toISOString();
    }
    return this.lastDate;
  }

  /** Free blocks of a pool (a granted record, or any prefix), in address order. */
  freeBlocks(pool: string | Prefix): Prefix[] {
    return this.spaceOf(pool).blocks();
  }

  /** Used and free space of a pool (a granted record, or any prefix). */
  utilization(pool: string | Prefix): Utilization {
    return this.spaceOf(pool).utilization();
  }

  /** Deterministic, JSON-serializable state: the claims in claim order with their status. */
  snapshot(): RegistrySnapshot {
    return { apiVersion: NETWORK_CLAIM_API_VERSION, kind: "NetworkRegistrySnapshot", generation: this.generationCounter, claims: this.list() };
  }

  /** Rebuild a registry from {@link snapshot} output, keeping every status exactly as recorded. */
  static restore(snapshot: RegistrySnapshot, options: NetworkRegistryOptions = {}): NetworkRegistry {
    if (snapshot?.kind !== "NetworkRegistrySnapshot" || !Array.isArray(snapshot.claims)) {
      throw new NetworkRegistryError("invalid-snapshot", "not a NetworkRegistrySnapshot");
    }
    const registry = new NetworkRegistry(options);
    const pending: { grant: Grant; parent: { claim: string; prefix: string } }[] = [];
    for (const claim of snapshot.claims) {
      const { problems, records } = validateClaim(claim);
      if (problems.length > 0) throw new NetworkRegistryError("invalid-snapshot", `claim ${claim?.metadata?.name}: ${problems.join("; ")}`);
      const state: ClaimState = { name: claim.metadata.name, metadata: structuredClone(claim.metadata), records: new TombstoneMap() };
      const statuses = new Map((claim.status?.addressSpace ?? []).map((s) => [s.prefix, s]));
      for (const validated of records) {
        const key = validated.prefix.toString();
        const recorded = statuses.get(key);
        if (recorded === undefined) throw new NetworkRegistryError("invalid-snapshot", `claim ${state.name}: no status for ${key}`);
        const spec = specOf(validated.record, key);
        const status = normalizeRecord(recorded, key);
        let grant: Grant | undefined;
        if (status.status === "allocated" || (status.status === "unavailable" && status.conflict === undefined)) {
          grant = {
            claim: state.name, prefix: validated.prefix, key, kind: status.status === "allocated" ? "allocated" : "carve-out",
            parent: undefined, delegateTo: spec.delegateTo, status,
          };
          registry.addGrant(grant);
          if (spec.parent !== undefined) pending.push({ grant, parent: spec.parent });
        }
        const recordState: RecordState = { seq: sequence++, spec, status, grant, validated };
        if (grant === undefined && status.conflict !== undefined && status.conflict.reason !== "SpecialPurpose") registry.refused.add(recordState);
        state.records.set(key, recordState);
      }
      registry.claims.set(state.name, state);
    }
    for (const { grant, parent } of pending) {
      grant.parent = registry.findGrant(parent.claim, parsePrefix(parent.prefix));
      if (grant.parent === undefined) {
        throw new NetworkRegistryError("invalid-snapshot", `${grant.claim} ${grant.key}: parent ${parent.claim} ${parent.prefix} is not granted`);
      }
    }
    registry.generationCounter = snapshot.generation ?? 0;
    return registry;
  }

  // -------------------------------------------------------------------------------------------

  private view(state: ClaimState): NetworkClaim {
    const records = [...state.records.values()].sort((a, b) => a.seq - b.seq);
    return {
      apiVersion: NETWORK_CLAIM_API_VERSION,
      kind: NETWORK_CLAIM_KIND,
      metadata: structuredClone(state.metadata),
      spec: { addressSpace: records.map((r) => normalizeRecord(r.spec)) },
      status: { addressSpace: records.map((r) => normalizeRecord(r.status)) },
    };
  }

  private grantCarveOut(state: ClaimState, record: RecordState, date: string): void {
    const key = record.validated.prefix.toString();
    record.status = normalizeRecord({ ...record.spec, date, status: "unavailable" }, key);
    record.grant = { claim: state.name, prefix: record.validated.prefix, key, kind: "carve-out", parent: undefined, delegateTo: undefined, status: record.status };
    this.addGrant(record.grant);
  }

  private evaluateAndGrant(state: ClaimState, record: RecordState, date: string): void {
    const key = record.validated.prefix.toString();
    const outcome = this.evaluate(state.name, record.validated);
    const base = { ...record.spec, date, warnings: outcome.warnings };
    if (outcome.conflict !== undefined) {
      record.status = normalizeRecord({ ...base, status: "unavailable", conflict: outcome.conflict }, key);
      record.grant = undefined;
      if (outcome.conflict.reason !== "SpecialPurpose") this.refused.add(record);
      return;
    }
    this.refused.delete(record);
    record.status = normalizeRecord({ ...base, status: "allocated" }, key);
    record.grant = {
      claim: state.name, prefix: record.validated.prefix, key, kind: "allocated", parent: outcome.parent, delegateTo: record.spec.delegateTo, status: record.status,
    };
    this.addGrant(record.grant);
  }

  /** The overlap policy for one allocated record. */
  private evaluate(claim: string, validated: ValidatedRecord): { conflict?: Conflict; parent?: Grant; warnings: string[] } {
    const prefix = validated.prefix;
    const action = this.policy.actionOf(prefix);
    const warnings = action === "allow" ? [] : [this.policy.check(prefix).message];
    if (action === "reject") {
      return { warnings: [], conflict: { reason: "SpecialPurpose", message: `${warnings[0]}; such ranges cannot be claimed` } };
    }
    // The common case: nothing overlaps and nothing is delegated; one search of the flat index.
    if (validated.parentPrefix === undefined && !this.index.overlapsAny(prefix)) return { warnings };
    const text = prefix.toString();
    let parent: Grant | undefined;
    if (validated.parentPrefix !== undefined) {
      const parentRef = validated.record.parent!;
      parent = this.findGrant(parentRef.claim, validated.parentPrefix);
      const parentText = `${parentRef.claim} ${validated.parentPrefix.toString()}`;
      if (parent === undefined) {
        return { warnings, conflict: { reason: "ParentNotFound", message: `${text} names parent ${parentText}, which is not an allocated record`, claim: parentRef.claim, prefix: validated.parentPrefix.toString() } };
      }
      const nearest = (): string | undefined => this.nearestFree(prefix, parent!.prefix, true)?.toString();
      if (!parent.prefix.contains(prefix)) {
        return { warnings, conflict: { reason: "OutsideParent", message: `${text} is not inside its parent ${parentText}`, claim: parent.claim, prefix: parent.key, ...optional("nearestFree", nearest()) } };
      }
      if (!canDelegate(parent, claim)) {
        return { warnings, conflict: { reason: "NotDelegable", message: `${parentText} does not delegate to ${claim} (add it to the parent's delegateTo)`, claim: parent.claim, prefix: parent.key } };
      }
      const exclusion = this.carveOut(parent.claim, prefix);
      if (exclusion !== undefined) {
        return {
          warnings,
          conflict: { reason: "InsideExclusion", message: `${text} is inside ${exclusion.key}, which ${parent.claim} carved out of ${parent.key}`, claim: parent.claim, prefix: exclusion.key, ...optional("nearestFree", nearest()) },
        };
      }
    }
    for (const entry of this.index.overlapping(prefix)) {
      for (const grant of entry.value) {
        if (grant.kind === "carve-out" || isAncestor(grant, parent)) continue;
        const relation: OverlapRelation = grant.prefix.length === prefix.length ? "equal" : grant.prefix.length < prefix.length ? "inside" : "contains";
        if (grant.claim !== claim) {
          // The outer record's owner has carved the inner range out: nesting is declared.
          if (relation !== "contains" && this.carveOut(grant.claim, prefix) !== undefined) continue;
          if (relation !== "inside" && this.carveOut(claim, grant.prefix) !== undefined) continue;
        }
        const nearest = parent !== undefined ? this.nearestFree(prefix, parent.prefix, true) : this.nearestFree(prefix, this.searchBound(prefix), false);
        const owner = grant.claim === claim ? `${claim}'s own record` : grant.claim;
        const message = `${text} ${RELATION_TEXT[relation]} ${grant.key} allocated to ${owner} (${describeReference(grant.status.reference)})` +
          (nearest === undefined ? "" : `; nearest free /${prefix.length}: ${nearest.toString()}`);
        return {
          warnings,
          conflict: {
            reason: "Overlap", message, relation, claim: grant.claim, prefix: grant.key, reference: grant.status.reference,
            ...optional("nearestFree", nearest?.toString()),
          },
        };
      }
    }
    return parent === undefined ? { warnings } : { warnings, parent };
  }

  private carveOut(owner: string, target: Prefix): Grant | undefined {
    for (const entry of this.index.covering(target)) {
      for (const grant of entry.value) if (grant.kind === "carve-out" && grant.claim === owner) return grant;
    }
    return undefined;
  }

  private findGrant(claim: string, prefix: Prefix): Grant | undefined {
    return this.index.get(prefix)?.find((g) => g.claim === claim && g.kind === "allocated");
  }

  /** Where to look for an alternative: the innermost special-purpose range strictly around the prefix. */
  private searchBound(prefix: Prefix): Prefix {
    const covering = this.policy.check(prefix).findings[0]?.range.prefix;
    if (covering !== undefined) {
      const bound = parsePrefixOrTable(covering);
      if (bound.length < prefix.length) return bound;
    }
    return Prefix.all(prefix.family);
  }

  /** The free block of the same size nearest to `prefix` inside `bound`, or undefined. */
  private nearestFree(prefix: Prefix, bound: Prefix, boundIsParent: boolean): Prefix | undefined {
    const bits = BigInt(prefix.bits);
    const step = 1n << (bits - BigInt(prefix.length));
    const maxAddress = (1n << bits) - 1n;
    const origin = prefix.first().toBigInt();
    // Never suggest a range the policy likes less than the one asked for (no public space for a private range).
    const ceiling = SEVERITY[this.policy.check(prefix).action];
    const at = (value: bigint): Prefix => {
      const [w0, w1, w2, w3] = bigIntToWords(prefix.family, value);
      return new Prefix(prefix.family, w0, w1, w2, w3, prefix.length);
    };
    const blockers = (candidate: Prefix): Grant[] =>
      this.index.overlapping(candidate).flatMap((e) => e.value).filter((g) => !(boundIsParent && g.prefix.contains(bound)));
    const search = (direction: 1 | -1): Prefix | undefined => {
      let start = origin;
      for (let attempt = 0; attempt < 256; attempt++) {
        if (start < 0n || start > maxAddress) return undefined;
        const candidate = at(start);
        if (!bound.contains(candidate)) return undefined;
        const found = blockers(candidate);
        if (found.length === 0) {
          if (SEVERITY[this.policy.check(candidate).action] <= ceiling) return candidate;
          start += BigInt(direction) * step;
          continue;
        }
        if (direction === 1) {
          const end = found.reduce((max, g) => { const last = g.prefix.last().toBigInt(); return last > max ? last : max; }, 0n);
          start = ((end + 1n + step - 1n) / step) * step;
        } else {
          const begin = found.reduce((min, g) => { const first = g.prefix.first().toBigInt(); return first < min ? first : min; }, maxAddress);
          if (begin === 0n) return undefined;
          start = ((begin - 1n) / step) * step;
        }
      }
      return undefined;
    };
    const after = search(1);
    const before = search(-1);
    if (after === undefined) return before;
    if (before === undefined) return after;
    return after.first().toBigInt() - origin <= origin - before.first().toBigInt() ? after : before;
  }

  private poolGrant(prefix: Prefix, claim: string): Grant {
    const grants = (this.index.get(prefix) ?? []).filter((g) => g.kind === "allocated");
    if (grants.length === 0) throw new NetworkRegistryError("pool-not-found", `${prefix.toString()} is not an allocated record, so it cannot be a pool`);
    // A claim's own record first: after a whole-pool delegation the delegate allocates from its copy.
    const pool = grants.find((g) => g.claim === claim) ?? grants.find((g) => canDelegate(g, claim));
    if (pool === undefined) {
      throw new NetworkRegistryError("not-delegable", `${prefix.toString()} belongs to ${grants.map((g) => g.claim).join(", ")} and does not delegate to ${claim}`);
    }
    return pool;
  }

  private poolSpace(pool: Grant): FreeSpace {
    let space = this.pools.get(pool);
    if (space === undefined) {
      const occupied = this.index.coveredBy(pool.prefix).flatMap((e) => e.value.filter((g) => g !== pool && !isAncestor(g, pool.parent)).map((g) => g.prefix));
      space = new FreeSpace(pool.prefix, occupied);
      this.pools.set(pool, space);
    }
    return space;
  }

  private spaceOf(input: string | Prefix): FreeSpace {
    const prefix = typeof input === "string" ? parsePrefix(input) : input;
    const pool = this.index.get(prefix)?.find((g) => g.kind === "allocated");
    if (pool !== undefined) return this.poolSpace(pool);
    if (this.index.covering(prefix).length > 0) return new FreeSpace(prefix, [prefix]);
    return new FreeSpace(prefix, this.index.coveredBy(prefix).map((e) => e.prefix));
  }

  private addGrant(grant: Grant, allocatedFrom?: Grant): void {
    const existing = this.index.get(grant.prefix);
    this.index.insert(grant.prefix, existing === undefined ? [grant] : [...existing, grant]);
    if (allocatedFrom !== undefined) return; // the pool already took the block; no other pool changes
    for (const pool of [...this.pools.keys()]) {
      if (pool.prefix.overlaps(grant.prefix) && !(grant.prefix.length < pool.prefix.length)) this.pools.delete(pool);
    }
  }

  private dropRecord(state: ClaimState, key: string): void {
    const record = state.records.get(key);
    state.records.delete(key);
    if (record !== undefined) this.refused.delete(record);
    const grant = record?.grant;
    if (grant === undefined) return;
    const remaining = (this.index.get(grant.prefix) ?? []).filter((g) => g !== grant);
    if (remaining.length === 0) this.index.remove(grant.prefix);
    else this.index.insert(grant.prefix, remaining);
    for (const [pool, space] of [...this.pools]) {
      if (pool === grant) {
        this.pools.delete(pool);
        continue;
      }
      if (!pool.prefix.contains(grant.prefix)) continue;
      if (pool.prefix.length === grant.prefix.length) {
        this.pools.delete(pool);
        continue;
      }
      // Still occupied by something between the pool and the record: the pool's free space is unchanged.
      const shadowed = this.index.covering(grant.prefix).some(
        (e) => e.prefix.length > pool.prefix.length || (e.prefix.length === pool.prefix.length && e.value.some((g) => g !== pool)),
      );
      if (shadowed) continue;
      if (this.index.coveredBy(grant.prefix).length > 0) this.pools.delete(pool);
      else space.release(grant.prefix);
    }
  }

  /** After a release, give refused records another chance, in claim order. Granted records stay. */
  private recheckRefused(): void {
    if (this.refused.size === 0) return;
    const date = this.now();
    for (const state of this.claims.values()) {
      for (const record of [...state.records.values()].sort((a, b) => a.seq - b.seq)) {
        if (!this.refused.has(record)) continue;
        if (record.grant !== undefined || record.status.conflict === undefined || record.status.conflict.reason === "SpecialPurpose") continue;
        const outcome = this.evaluate(state.name, record.validated);
        if (outcome.conflict === undefined) this.evaluateAndGrant(state, record, date);
      }
    }
  }
}

function canDelegate(grant: Grant, claim: string): boolean {
  return grant.claim === claim || (grant.delegateTo !== undefined && (grant.delegateTo.includes(claim) || grant.delegateTo.includes("*")));
}

function isAncestor(grant: Grant, parent: Grant | undefined): boolean {
  for (let g = parent; g !== undefined; g = g.parent) if (g === grant) return true;
  return false;
}

function optional<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [P in K]?: V };
}

function parsePrefixOrTable(text: string): Prefix {
  try {
    return parsePrefix(text);
  } catch {
    return Prefix.all(text.includes(":") ? 6 : 4);
  }
}
