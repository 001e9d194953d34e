import { descriptionProblem, nameProblem, referenceProblem, validateClaim, type ValidatedRecord } from "./claim-validation.js";
import { describeValue } from "./describe-value.js";
import { NetworkRegistryError } from "./errors.js";
import { ALLOCATION_STRATEGIES, FreeSpace, formatPercent, type AllocationStrategy, type Utilization } from "./free-space.js";
import { parsePrefix, parsePrefixOrAddress } from "./parse.js";
import { Prefix } from "./prefix.js";
import { describeReference, normalizeRecord, specOf, type LooseRecord } from "./records.js";
import { defaultSpecialPurposePolicy, SpecialPurposePolicy } from "./special-purpose.js";
import { TombstoneMap } from "./tombstone-map.js";
import { hull, rangeOf, type RefusalWatch } from "./refusal-watch.js";
import { RefusedRecords } from "./refused-records.js";
import { GrantIndex } from "./grant-index.js";
import { RecordStamps } from "./record-stamps.js";
import { compareSamePrefix, isAncestor, type ClaimState, type Grant, type RecordState } from "./registry-state.js";
import {
  NETWORK_CLAIM_API_VERSION,
  NETWORK_CLAIM_KIND,
  WELL_KNOWN_CLAIMS,
  type AddressRecord,
  type Conflict,
  type NetworkClaim,
  type NetworkClaimMetadata,
  type OverlapRelation,
  type ResourceReference,
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

/** Options of {@link NetworkRegistry.release} and {@link NetworkRegistry.releaseRecord}. */
export interface ReleaseOptions {
  /**
   * Also release what was delegated from the released records (like a cascading delete):
   * allocations are removed, declared records of other claims lose their grant and stay
   * refused until their parent is granted again. Without it, such a release is refused.
   */
  cascade?: boolean;
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

/** A dynamic allocation: one record per block taken with {@link NetworkRegistry.allocate}. */
export interface Allocation {
  claim: string;
  record: AddressRecord;
}

export interface RegistrySnapshot {
  apiVersion: string;
  kind: "NetworkRegistrySnapshot";
  generation: number;
  /** Declared intent and its outcome, in claim order. */
  claims: NetworkClaim[];
  /** Dynamic allocations, in claim order and then address order. */
  allocations: Allocation[];
}

interface Evaluation {
  conflict?: Conflict;
  parent?: Grant;
  warnings: string[];
}

/** What placed a candidate prefix: a conflict and the grant behind it, or nothing (free). */
interface Placement {
  conflict?: Conflict;
  blocker?: Grant;
}

const SEVERITY = { allow: 0, warn: 1, reject: 2 } as const;

const RELATION_TEXT: Record<OverlapRelation, string> = { equal: "is the same range as", inside: "is inside", contains: "contains" };

/** How many blocking records the nearest-free search steps over in each direction. */
const NEAREST_FREE_STEPS = 1024;

function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}

/** The fields that decide a record's grant; everything else is metadata an update may change. */
function decisionKey(spec: AddressRecord): string {
  return stableStringify({ prefix: spec.prefix, carveOut: spec.status === "unavailable", parent: spec.parent });
}

function invalidArgument(message: string): NetworkRegistryError {
  return new NetworkRegistryError("invalid-argument", message);
}

function checkName(name: unknown, what: string): string {
  const problem = nameProblem(name, what);
  if (problem !== undefined) throw invalidArgument(problem);
  return name as string;
}

function checkReleaseOptions(options: unknown): boolean {
  if (options === undefined) return false;
  if (typeof options !== "object" || options === null) throw invalidArgument("release options must be an object like { cascade: true }");
  const cascade = (options as ReleaseOptions).cascade;
  if (cascade !== undefined && typeof cascade !== "boolean") throw invalidArgument("release option cascade must be a boolean");
  return cascade === true;
}

function toPrefixArgument(input: unknown, what: string): Prefix {
  if (input instanceof Prefix) return input;
  if (typeof input === "string") return parsePrefix(input);
  throw invalidArgument(`${what} must be a CIDR prefix string or a Prefix, got ${describeValue(input)}`);
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
  private readonly policy: SpecialPurposePolicy;
  private readonly stamps: RecordStamps;
  private readonly wellKnown: readonly string[];
  private generationCounter = 0;
  private claimCounter = 0;
  /** Declared records without a grant that a change may let in (refusals other than SpecialPurpose, and undecided ones), and the grant changes since they were decided. */
  private readonly refused = new RefusedRecords<RecordState>();
  private readonly grants = new GrantIndex(this.refused, (pool) => this.insideOwnCarveOut(pool));
  private readonly tablePrefixes = new Map<string, Prefix>();
  /** Claims with carve-outs, whose "carves nothing out" warnings follow their own grants. */
  private readonly carving = new Set<ClaimState>();

  constructor(options: NetworkRegistryOptions = {}) {
    if (typeof options !== "object" || options === null) throw invalidArgument("NetworkRegistry options must be an object");
    if (options.policy !== undefined && !(options.policy instanceof SpecialPurposePolicy))
      throw invalidArgument("options.policy must be a SpecialPurposePolicy");
    if (options.clock !== undefined && typeof options.clock !== "function")
      throw invalidArgument("options.clock must be a function returning a Date");
    if (
      options.wellKnownClaims !== undefined &&
      (!Array.isArray(options.wellKnownClaims) || options.wellKnownClaims.some((n) => typeof n !== "string"))
    ) {
      throw invalidArgument("options.wellKnownClaims must be a list of claim names");
    }
    this.policy = options.policy ?? defaultSpecialPurposePolicy;
    this.stamps = new RecordStamps(options.clock ?? (() => new Date()));
    this.wellKnown = options.wellKnownClaims ?? WELL_KNOWN_CLAIMS;
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
    if (existing !== undefined) this.assertUpdateKeepsDependants(existing, dropped, kept, specs);

    const state: ClaimState = existing ?? {
      name,
      order: this.claimCounter++,
      metadata: { name },
      declared: [],
      allocations: new TombstoneMap(),
    };
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
    const outcome = this.evaluate(claimName, only, true);
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
    const outside = this.dependantsOutside(own);
    if (outside.length > 0 && !cascade) {
      throw new NetworkRegistryError(
        "has-dependants",
        `NetworkClaim ${name} cannot be released: ${this.describeDependants(outside)}; release them first or pass { cascade: true }`,
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
    const outside = this.dependantsOutside([record.grant!]);
    if (outside.length > 0 && !cascade) {
      throw new NetworkRegistryError(
        "has-dependants",
        `${claimName} ${key} cannot be released: ${this.describeDependants(outside)}; release them first or pass { cascade: true }`,
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
    let prefix: Prefix;
    if (typeof query === "string") prefix = parsePrefixOrAddress(query);
    else if (query instanceof Prefix) prefix = query;
    else throw invalidArgument(`whois takes an address or prefix string or a Prefix, got ${query === null ? "null" : typeof query}`);
    const exact: Owner[] = [];
    const covering: Owner[] = [];
    const covered: Owner[] = [];
    for (const entry of this.grants.trie.overlapping(prefix)) {
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
   * Take a free `/prefixLength` from a pool record and keep it as an allocation of `claim`
   * (its own record, delegated from the pool; the claim's declared spec is not touched).
   * Carve-outs of the pool's owner and every granted record inside the pool are skipped.
   * Throws `invalid-argument`, `pool-not-found`, `not-delegable` or `pool-exhausted`; a
   * failed call changes nothing.
   */
  allocate(request: AllocateRequest): AddressRecord {
    if (typeof request !== "object" || request === null) throw invalidArgument("allocate takes a request object");
    checkName(request.claim, "claim");
    const referenceIssue = referenceProblem(request.reference, "reference");
    if (referenceIssue !== undefined) throw invalidArgument(referenceIssue);
    const descriptionIssue = descriptionProblem(request.description, "description");
    if (descriptionIssue !== undefined) throw invalidArgument(descriptionIssue);
    const strategy = request.strategy ?? "best-fit";
    if (!ALLOCATION_STRATEGIES.includes(strategy)) {
      throw invalidArgument(`unknown allocation strategy ${describeValue(strategy)}; use ${ALLOCATION_STRATEGIES.join(" or ")}`);
    }
    const poolPrefix = toPrefixArgument(request.from, "from");
    if (!Number.isInteger(request.prefixLength) || request.prefixLength < poolPrefix.length || request.prefixLength > poolPrefix.bits) {
      throw invalidArgument(`cannot allocate a /${describeValue(request.prefixLength)} from ${poolPrefix.toString()}`);
    }
    const pool = this.poolGrant(poolPrefix, request.claim);
    if (request.prefixLength === poolPrefix.length && request.claim === pool.claim) {
      throw invalidArgument(`${pool.key} already belongs to ${pool.claim}; allocating all of it to the same claim changes nothing`);
    }
    const space = this.grants.poolSpace(pool);
    const exact = request.prefix === undefined ? undefined : toPrefixArgument(request.prefix, "prefix");
    if (exact !== undefined && (exact.length !== request.prefixLength || !poolPrefix.contains(exact))) {
      throw invalidArgument(`prefix ${exact.toString()} is not a /${request.prefixLength} of ${poolPrefix.toString()}`);
    }
    const block = exact === undefined ? space.take(request.prefixLength, strategy) : space.takeExact(exact);
    if (block === undefined && exact !== undefined) {
      throw new NetworkRegistryError("pool-exhausted", `${exact.toString()} is not free in ${pool.key}`);
    }
    if (block === undefined) {
      const usage = space.utilization();
      throw new NetworkRegistryError(
        "pool-exhausted",
        `no free /${request.prefixLength} left in ${pool.key} (${formatPercent(usage.percentUsed)} used; largest free block ${usage.largestFree ?? "none"})`,
      );
    }
    // A record of the requester around the pool (the pool sits in its carve-out) would overlap any block.
    const outer = this.grants.trie
      .covering(pool.prefix)
      .flatMap((e) => e.value)
      .find((g) => g.claim === request.claim && g.kind === "allocated" && g !== pool && !isAncestor(g, pool.parent));
    if (outer !== undefined) {
      space.release(block);
      throw invalidArgument(
        `${request.claim} cannot hold a block of ${pool.claim} ${pool.key}: its own record ${outer.key} contains the pool (which sits in its carve-out), so the block would overlap it`,
      );
    }
    let state = this.claims.get(request.claim);
    if (state === undefined) {
      state = {
        name: request.claim,
        order: this.claimCounter++,
        metadata: { name: request.claim },
        declared: [],
        allocations: new TombstoneMap(),
      };
      this.claims.set(request.claim, state);
    }
    // Built field by field in canonical order and frozen, so the status record can be shared
    // with the caller without copies (this is the allocation hot path).
    const key = block.toString();
    const reference = this.stamps.frozenReference(request.reference);
    const parent = (pool.asParent ??= Object.freeze({ claim: pool.claim, prefix: pool.key }));
    const description = request.description;
    const spec: AddressRecord =
      description === undefined ? { reference, prefix: key, parent } : { reference, prefix: key, description, parent };
    const status: AddressRecord =
      description === undefined
        ? { reference, prefix: key, date: this.stamps.now(), status: "allocated", parent }
        : { reference, prefix: key, description, date: this.stamps.now(), status: "allocated", parent };
    Object.freeze(status);
    const record: RecordState = {
      claim: state,
      allocation: true,
      spec,
      status,
      grant: undefined,
      validated: { record: spec, prefix: block, parentPrefix: pool.prefix },
    };
    const grant: Grant = {
      claim: state.name,
      prefix: block,
      key,
      kind: "allocated",
      parent: pool,
      delegateTo: undefined,
      status,
      children: new Set(),
      record,
    };
    record.grant = grant;
    pool.children.add(grant);
    state.allocations.set(key, record);
    // The block was free, so only the pool itself can share its prefix (a whole-pool delegation),
    // and no other pool's free space changes.
    this.grants.index(grant);
    this.decideRefused();
    this.generationCounter++;
    return status;
  }

  /** Free blocks of a pool (a granted record, or any prefix), in address order. */
  freeBlocks(pool: string | Prefix): Prefix[] {
    return this.spaceOf(toPrefixArgument(pool, "pool")).blocks();
  }

  /**
   * Used and free space of a pool (a granted record, or any prefix). The pool owner's own
   * carve-outs and every granted record inside count as used; other claims' carve-outs do not.
   */
  utilization(pool: string | Prefix): Utilization {
    return this.spaceOf(toPrefixArgument(pool, "pool")).utilization();
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
    const fail = (message: string) => new NetworkRegistryError("invalid-snapshot", `invalid NetworkRegistrySnapshot: ${message}`);
    if (typeof snapshot !== "object" || snapshot === null || snapshot.kind !== "NetworkRegistrySnapshot")
      throw fail("kind must be NetworkRegistrySnapshot");
    if (snapshot.apiVersion !== NETWORK_CLAIM_API_VERSION)
      throw fail(`apiVersion must be ${NETWORK_CLAIM_API_VERSION}, got ${describeValue(snapshot.apiVersion)}`);
    if (!Number.isSafeInteger(snapshot.generation) || snapshot.generation < 0) throw fail("generation must be a non-negative integer");
    if (!Array.isArray(snapshot.claims)) throw fail("claims must be a list");
    if (!Array.isArray(snapshot.allocations)) throw fail("allocations must be a list");
    const parents: { grant: Grant; claim: string; prefix: Prefix }[] = [];
    const add = (grant: Grant, parent: AddressRecord["parent"], parentPrefix: Prefix | undefined) => {
      registry.grants.insert(grant);
      if (parent !== undefined && parentPrefix !== undefined) parents.push({ grant, claim: parent.claim, prefix: parentPrefix });
    };
    const recorded = new Map<RecordState, AddressRecord>();
    for (const [i, claim] of snapshot.claims.entries()) {
      const { problems, records } = validateClaim(claim);
      if (problems.length > 0) throw fail(`claims[${i}]: ${problems.join("; ")}`);
      const name = claim.metadata.name;
      if (registry.claims.has(name)) throw fail(`claim ${name} appears twice`);
      const statuses: unknown = claim.status?.addressSpace;
      if (!Array.isArray(statuses) || statuses.length !== records.length)
        throw fail(`claim ${name}: status.addressSpace must have one entry per spec record`);
      const state: ClaimState = {
        name,
        order: registry.claimCounter++,
        metadata: metadataOf(claim.metadata),
        declared: [],
        allocations: new TombstoneMap(),
      };
      registry.claims.set(name, state);
      records.forEach((validated, r) => {
        const key = validated.prefix.toString();
        const spec = specOf(validated.record, key);
        const raw = (statuses as unknown[])[r] as AddressRecord | undefined;
        const status = statusOf(raw, key, spec, (m) => fail(`claim ${name} ${key}: ${m}`));
        const record: RecordState = { claim: state, allocation: false, spec, status, grant: undefined, validated };
        state.declared.push(record);
        if (spec.status === "unavailable") registry.carving.add(state);
        recorded.set(record, status);
        if (status.status === "allocated" || spec.status === "unavailable") {
          record.grant = registry.newGrant(record, spec.status === "unavailable" ? "carve-out" : "allocated");
          add(record.grant, spec.parent, validated.parentPrefix);
        } else if (status.conflict?.reason !== "SpecialPurpose") {
          registry.refused.add(record);
        }
      });
    }
    for (const [i, allocation] of snapshot.allocations.entries()) {
      const state = typeof allocation?.claim === "string" ? registry.claims.get(allocation.claim) : undefined;
      if (state === undefined)
        throw fail(
          `allocations[${i}]: claim ${describeValue((allocation as { claim?: unknown } | null | undefined)?.claim)} is not in the snapshot`,
        );
      const { problems, records } = validateClaim({ metadata: { name: state.name }, spec: { addressSpace: [allocation.record] } });
      const validated = records[0];
      if (problems.length > 0 || validated === undefined) throw fail(`allocations[${i}]: ${problems.join("; ")}`);
      const key = validated.prefix.toString();
      const spec = specOf(validated.record, key);
      if (spec.parent === undefined || spec.status === "unavailable" || spec.delegateTo !== undefined)
        throw fail(`allocation ${state.name} ${key} must name its pool as parent and nothing else`);
      if (state.allocations.has(key) || state.declared.some((r) => r.spec.prefix === key && r.grant?.kind === "allocated"))
        throw fail(`claim ${state.name} holds ${key} twice`);
      const status = statusOf(allocation.record, key, spec, (m) => fail(`allocation ${state.name} ${key}: ${m}`));
      if (status.status !== "allocated") throw fail(`allocation ${state.name} ${key} must be allocated`);
      const record: RecordState = { claim: state, allocation: true, spec, status, grant: undefined, validated };
      record.grant = registry.newGrant(record, "allocated");
      state.allocations.set(key, record);
      add(record.grant, spec.parent, validated.parentPrefix);
    }
    for (const { grant, claim, prefix } of parents) {
      const parent = registry.findGrant(claim, prefix);
      if (parent === undefined) throw fail(`${grant.claim} ${grant.key}: parent ${claim} ${prefix.toString()} is not a granted record`);
      grant.parent = parent;
      parent.children.add(grant);
    }
    registry.assertConsistent(fail);
    // Grants of one prefix are ordered by delegation depth, which is known only now.
    for (const entry of [...registry.grants.trie])
      if (entry.value.length > 1) registry.grants.trie.insert(entry.prefix, [...entry.value].sort(compareSamePrefix));
    // Refused records must say what the registry would say now.
    for (const record of [...registry.claims.values()].flatMap((c) => c.declared.filter((r) => r.grant === undefined))) {
      const outcome = registry.evaluate(record.claim.name, record.validated, true);
      if (outcome.conflict === undefined)
        throw fail(`claim ${record.claim.name} ${record.status.prefix} is recorded as refused, but nothing blocks it`);
      const expected = normalizeRecord({ ...record.status, conflict: outcome.conflict, warnings: outcome.warnings });
      if (stableStringify(expected) !== stableStringify(recorded.get(record))) {
        throw fail(`claim ${record.claim.name} ${record.status.prefix}: the recorded conflict is stale (now: ${outcome.conflict.message})`);
      }
    }
    // Every refusal was just checked against the whole registry.
    registry.refused.forgetChanges();
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

  private newGrant(record: RecordState, kind: Grant["kind"]): Grant {
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

  private setStatus(record: RecordState, status: LooseRecord): void {
    record.status = normalizeRecord(status);
    if (record.grant !== undefined) record.grant.status = record.status;
  }

  private grantCarveOut(record: RecordState, date: string): void {
    record.status = normalizeRecord({ ...record.spec, date, status: "unavailable" });
    record.grant = this.newGrant(record, "carve-out");
    this.grants.insert(record.grant);
  }

  /** A kept record takes the new spec's metadata; its grant and decision stay. */
  private updateMetadata(record: RecordState, spec: AddressRecord, validated: ValidatedRecord): void {
    // A grant's reference is in the messages of the records it blocks, its delegateTo decides its delegations.
    if (record.grant !== undefined) this.refused.grantFreed(rangeOf(record.grant.prefix));
    record.spec = spec;
    record.validated = validated;
    const { reference, description, delegateTo } = spec;
    this.setStatus(record, { ...record.status, reference, description, delegateTo });
    if (record.grant !== undefined) record.grant.delegateTo = delegateTo;
  }

  /**
   * Refuse an update that would orphan delegations, take a delegate's permission away, or
   * drop a carve-out another claim's record relies on.
   */
  private assertUpdateKeepsDependants(
    state: ClaimState,
    dropped: readonly RecordState[],
    kept: ReadonlyMap<string, { record: RecordState; spec: AddressRecord }>,
    specs: readonly AddressRecord[],
  ): void {
    const droppedGrants = dropped.flatMap((r) => (r.grant === undefined ? [] : [r.grant]));
    const problems: string[] = [];
    const orphans = this.dependantsOutside(droppedGrants);
    if (orphans.length > 0) problems.push(this.describeDependants(orphans));
    for (const { record, spec } of kept.values()) {
      const grant = record.grant;
      if (grant === undefined) continue;
      const allowed = (claim: string) => claim === state.name || (spec.delegateTo ?? []).some((d) => d === claim || d === "*");
      const lost = [...grant.children].filter((c) => !allowed(c.claim));
      if (lost.length > 0) problems.push(`${grant.key} would no longer delegate to ${lost.map((c) => `${c.claim} ${c.key}`).join(", ")}`);
    }
    const remainingCarveOuts = specs.filter((s) => s.status === "unavailable").map((s) => parsePrefix(s.prefix));
    const remainingOuter = [...kept.values()].flatMap(({ record }) => (record.grant?.kind === "allocated" ? [record.grant] : []));
    for (const carve of droppedGrants.filter((g) => g.kind === "carve-out")) {
      for (const entry of this.grants.trie.coveredBy(carve.prefix)) {
        for (const inner of entry.value) {
          if (inner.kind !== "allocated" || inner.claim === state.name || remainingCarveOuts.some((c) => c.contains(inner.prefix)))
            continue;
          const outer = remainingOuter.find((o) => o.prefix.contains(inner.prefix) && !isAncestor(o, inner.parent));
          if (outer !== undefined)
            problems.push(`${inner.claim} ${inner.key} sits inside ${outer.key} only because ${carve.key} is carved out`);
        }
      }
    }
    if (problems.length > 0) {
      throw new NetworkRegistryError(
        "has-dependants",
        `NetworkClaim ${state.name} cannot be updated: ${problems.join("; ")}; release them first`,
      );
    }
  }

  /** Granted records delegated from `grants` that are not among them, grouped by the grant they hang on. */
  private dependantsOutside(grants: readonly Grant[]): [Grant, Grant[]][] {
    const set = new Set(grants);
    const result: [Grant, Grant[]][] = [];
    for (const grant of grants) {
      const outside = [...grant.children].filter((c) => !set.has(c));
      if (outside.length > 0) result.push([grant, outside.sort((a, b) => this.compareGrants(a, b))]);
    }
    return result;
  }

  private compareGrants(a: Grant, b: Grant): number {
    const byClaim = a.record.claim.order - b.record.claim.order;
    return byClaim !== 0 ? byClaim : a.prefix.compare(b.prefix);
  }

  private describeDependants(groups: readonly [Grant, Grant[]][]): string {
    return groups
      .map(([grant, children]) => `${grant.key} has delegations (${children.map((c) => `${c.claim} ${c.key}`).join(", ")})`)
      .join("; ");
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
    this.decideRefused();
    for (const state of this.carving) {
      for (const record of state.declared.filter((r) => r.spec.status === "unavailable")) {
        const inside = state.declared.some((r) => r.grant?.kind === "allocated" && r.grant.prefix.contains(record.validated.prefix));
        const warnings = inside
          ? undefined
          : [`carve-out ${record.status.prefix} is not inside any allocated record of ${state.name}, so it carves nothing out`];
        if (stableStringify(warnings) !== stableStringify(record.status.warnings)) this.setStatus(record, { ...record.status, warnings });
      }
    }
  }

  /** A declared record without a grant, to be decided at the next settle. */
  private refuse(record: RecordState): void {
    this.refused.add(record);
  }

  /**
   * Decide records without a grant again, in claim order, until nothing more is granted: after
   * each grant the scan restarts, so an earlier claim always goes first. Records that stay
   * refused get a conflict that names the current blocker and a current suggestion. Only records
   * a change since the last decision can affect are decided (see {@link RefusalWatch}), so the
   * cost of a change grows with the refusals around it, not with all refusals.
   */
  private decideRefused(): void {
    if (this.refused.size === 0) {
      this.refused.forgetChanges();
      return;
    }
    const date = this.stamps.now();
    const candidates = new Set<RecordState>();
    this.refused.collect(candidates);
    let pending = [...candidates].sort(compareRecords);
    for (let i = 0; i < pending.length;) {
      const record = pending[i]!;
      const outcome = this.evaluate(record.claim.name, record.validated, false);
      if (outcome.conflict === undefined) {
        this.grantRecord(record, outcome, date);
        pending.splice(i, 1);
        if (this.refused.collect(candidates)) pending = [...candidates].filter((r) => this.refused.has(r)).sort(compareRecords);
        i = 0;
      } else {
        i++;
      }
    }
    for (const record of pending) {
      const outcome = this.evaluate(record.claim.name, record.validated, true);
      const status = normalizeRecord({
        ...record.spec,
        date: record.status.date,
        status: "unavailable",
        conflict: outcome.conflict,
        warnings: outcome.warnings,
      });
      const { date: _old, ...before } = record.status;
      const { date: _new, ...after } = status;
      if (record.status.date === undefined || stableStringify(before) !== stableStringify(after))
        this.setStatus(record, { ...status, date });
      if (outcome.conflict?.reason === "SpecialPurpose") this.refused.delete(record);
      else record.watch = this.watchOf(record, outcome.parent, outcome.conflict?.nearestFree);
    }
  }

  /** The ranges a refused record's outcome depends on (see {@link RefusalWatch}). */
  private watchOf(record: RecordState, parent: Grant | undefined, nearest: string | undefined): RefusalWatch {
    const { prefix, parentPrefix } = record.validated;
    const own = [rangeOf(prefix), ...(parentPrefix === undefined ? [] : [rangeOf(parentPrefix)])];
    const searched = rangeOf(parent?.prefix ?? parentPrefix ?? this.searchBound(prefix));
    const visited = nearest === undefined ? searched : hull(own[0]!, rangeOf(parsePrefix(nearest)));
    return { added: [...own, visited], freed: [...own, searched] };
  }

  private grantRecord(record: RecordState, outcome: Evaluation, date: string): void {
    this.refused.delete(record);
    record.status = normalizeRecord({ ...record.spec, date, status: "allocated", warnings: outcome.warnings });
    record.grant = this.newGrant(record, "allocated");
    record.grant.parent = outcome.parent;
    outcome.parent?.children.add(record.grant);
    this.grants.insert(record.grant);
  }

  /** The overlap policy for one allocated record. */
  private evaluate(claim: string, validated: ValidatedRecord, withNearest: boolean): Evaluation {
    const prefix = validated.prefix;
    const action = this.policy.actionOf(prefix);
    const warnings = action === "allow" ? [] : [this.policy.check(prefix).message];
    if (action === "reject") {
      return { warnings: [], conflict: { reason: "SpecialPurpose", message: `${warnings[0]}; such ranges cannot be claimed` } };
    }
    // The common case: nothing overlaps and nothing is delegated; one search of the flat index.
    if (validated.parentPrefix === undefined && !this.grants.trie.overlapsAny(prefix)) return { warnings };
    let parent: Grant | undefined;
    if (validated.parentPrefix !== undefined) {
      const parentRef = validated.record.parent!;
      parent = this.findGrant(parentRef.claim, validated.parentPrefix);
      if (parent === undefined) {
        return {
          warnings,
          conflict: {
            reason: "ParentNotFound",
            message: `${prefix.toString()} names parent ${parentRef.claim} ${validated.parentPrefix.toString()}, which is not an allocated record`,
            claim: parentRef.claim,
            prefix: validated.parentPrefix.toString(),
          },
        };
      }
    }
    const placed = this.place(claim, prefix, parent);
    if (placed.conflict === undefined) return parent === undefined ? { warnings } : { warnings, parent };
    const conflict = placed.conflict;
    if (withNearest && conflict.reason !== "NotDelegable") {
      const nearest = this.nearestFree(claim, prefix, parent)?.toString();
      if (nearest !== undefined) {
        conflict.nearestFree = nearest;
        if (conflict.reason === "Overlap") conflict.message += `; nearest free /${prefix.length}: ${nearest}`;
      }
    }
    return { warnings, conflict };
  }

  /** Where a prefix stands with its parent already resolved: free, or the first rule it breaks and the record behind it. */
  private place(claim: string, prefix: Prefix, parent: Grant | undefined): Placement {
    const text = prefix.toString();
    if (parent !== undefined) {
      const parentText = `${parent.claim} ${parent.key}`;
      if (!parent.prefix.contains(prefix)) {
        return {
          conflict: {
            reason: "OutsideParent",
            message: `${text} is not inside its parent ${parentText}`,
            claim: parent.claim,
            prefix: parent.key,
          },
        };
      }
      if (!canDelegate(parent, claim)) {
        return {
          conflict: {
            reason: "NotDelegable",
            message: `${parentText} does not delegate to ${claim} (add it to the parent's delegateTo)`,
            claim: parent.claim,
            prefix: parent.key,
          },
        };
      }
      const exclusion = this.carveOut(parent.claim, prefix);
      if (exclusion !== undefined) {
        return {
          blocker: exclusion,
          conflict: {
            reason: "InsideExclusion",
            message: `${text} is inside ${exclusion.key}, which ${parent.claim} carved out of ${parent.key}`,
            claim: parent.claim,
            prefix: exclusion.key,
          },
        };
      }
    }
    if (!this.grants.trie.overlapsAny(prefix)) return {};
    for (const entry of this.grants.trie.overlapping(prefix)) {
      for (const grant of entry.value) {
        if (grant.kind === "carve-out" || isAncestor(grant, parent)) continue;
        const relation: OverlapRelation =
          grant.prefix.length === prefix.length ? "equal" : grant.prefix.length < prefix.length ? "inside" : "contains";
        if (grant.claim !== claim) {
          // The outer record's owner has carved the inner range out: nesting is declared.
          if (relation !== "contains" && this.carveOut(grant.claim, prefix) !== undefined) continue;
          if (relation !== "inside" && this.carveOut(claim, grant.prefix) !== undefined) continue;
        }
        const owner = grant.claim === claim ? `${claim}'s own record` : grant.claim;
        return {
          blocker: grant,
          conflict: {
            reason: "Overlap",
            message: `${text} ${RELATION_TEXT[relation]} ${grant.key} allocated to ${owner} (${describeReference(grant.status.reference)})`,
            relation,
            claim: grant.claim,
            prefix: grant.key,
            reference: grant.status.reference,
          },
        };
      }
    }
    return {};
  }

  private carveOut(owner: string, target: Prefix): Grant | undefined {
    const state = this.claims.get(owner);
    if (state === undefined || !this.carving.has(state)) return undefined; // most claims carve nothing out
    for (const entry of this.grants.trie.covering(target)) {
      for (const grant of entry.value) if (grant.kind === "carve-out" && grant.claim === owner) return grant;
    }
    return undefined;
  }

  private findGrant(claim: string, prefix: Prefix): Grant | undefined {
    return this.grants.trie.get(prefix)?.find((g) => g.claim === claim && g.kind === "allocated");
  }

  /** Where to look for an alternative: the innermost special-purpose range strictly around the prefix. */
  private searchBound(prefix: Prefix): Prefix {
    const covering = this.policy.check(prefix).findings[0]?.range.prefix;
    if (covering !== undefined) {
      const bound = this.tablePrefix(covering);
      if (bound.length < prefix.length) return bound;
    }
    return Prefix.all(prefix.family);
  }

  /** A special-purpose table prefix, parsed once. */
  private tablePrefix(text: string): Prefix {
    let prefix = this.tablePrefixes.get(text);
    if (prefix === undefined) {
      prefix = parsePrefixOrTable(text);
      this.tablePrefixes.set(text, prefix);
    }
    return prefix;
  }

  /**
   * The free block of the same size nearest to `prefix` (ties go to the higher one) that the
   * claim could have: inside the parent, or inside the innermost IANA range around the prefix,
   * never in a range the policy likes less. Each step jumps over the record that blocks the
   * candidate, so the cost grows with the records in the way, not with the distance.
   */
  private nearestFree(claim: string, prefix: Prefix, parent: Grant | undefined): Prefix | undefined {
    const bound = parent?.prefix ?? this.searchBound(prefix);
    if (prefix.length < bound.length) return undefined;
    const family = prefix.family;
    const step = 1n << BigInt(prefix.bits - prefix.length);
    const boundFirst = bound.first().toBigInt();
    const boundLast = bound.last().toBigInt();
    const requested = prefix.first().toBigInt();
    const origin = requested < boundFirst ? boundFirst : requested > boundLast ? boundLast - step + 1n : requested;
    const ceiling = SEVERITY[this.policy.actionOf(prefix)];
    const at = (value: bigint): Prefix => {
      const [w0, w1, w2, w3] = bigIntToWords(family, value);
      return new Prefix(family, w0, w1, w2, w3, prefix.length);
    };
    const distance = (x: bigint) => (x > requested ? x - requested : requested - x);
    /** The nearest acceptable start in one direction, no farther than `limit` from the request. */
    const search = (direction: 1 | -1, limit: bigint | undefined): bigint | undefined => {
      let start = origin;
      for (let steps = 0; steps < NEAREST_FREE_STEPS; steps++) {
        if (start < boundFirst || start + step - 1n > boundLast) return undefined;
        if (limit !== undefined && distance(start) > limit) return undefined;
        const candidate = at(start);
        const { blocker, conflict } = this.place(claim, candidate, parent);
        // A refusal that no position fixes (the parent does not delegate to the claim): nothing to suggest.
        if (conflict !== undefined && blocker === undefined) return undefined;
        if (blocker === undefined) {
          if (SEVERITY[this.policy.actionOf(candidate)] <= ceiling) return start;
          // Jump over the innermost range around the candidate that the policy likes less.
          const verdict = this.policy.check(candidate);
          const worse = verdict.findings
            .filter((f) => SEVERITY[f.range.action] > ceiling)
            .map((f) => this.tablePrefix(f.range.prefix))
            .filter((p) => p.contains(candidate));
          const skip = worse.sort((a, b) => a.length - b.length)[0];
          start = skip === undefined ? start + BigInt(direction) * step : jump(skip, direction);
          continue;
        }
        start = this.jumpOver(blocker, candidate, start, step, direction);
      }
      return undefined;
    };
    const jump = (range: Prefix, direction: 1 | -1): bigint =>
      direction === 1 ? range.last().toBigInt() + 1n : range.first().toBigInt() - step;
    const after = search(1, undefined);
    // Only a strictly nearer block below can win (ties go to the higher one).
    const before = search(-1, after === undefined ? undefined : distance(after) - 1n);
    if (before !== undefined) return at(before);
    return after === undefined ? undefined : at(after);
  }

  /** The next candidate start past a blocking record, in `direction`; never past a hole its owner carved out. */
  private jumpOver(blocker: Grant, candidate: Prefix, start: bigint, step: bigint, direction: 1 | -1): bigint {
    if (blocker.prefix.length >= candidate.length) return start + BigInt(direction) * step;
    let next = direction === 1 ? blocker.prefix.last().toBigInt() + 1n : blocker.prefix.first().toBigInt() - step;
    if (blocker.kind === "allocated") {
      // Candidates inside a carve-out of the blocker's owner may be free although the blocker contains them.
      for (const record of this.claims.get(blocker.claim)?.declared ?? []) {
        const hole = record.grant;
        if (hole?.kind !== "carve-out" || hole.prefix.length > candidate.length || !blocker.prefix.contains(hole.prefix)) continue;
        const first = hole.prefix.first().toBigInt();
        const last = hole.prefix.last().toBigInt();
        if (direction === 1 && first > start && first < next) next = first;
        if (direction === -1 && last < start && last - step + 1n > next) next = last - step + 1n;
      }
    }
    return next;
  }

  private poolGrant(prefix: Prefix, claim: string): Grant {
    const grants = (this.grants.trie.get(prefix) ?? []).filter((g) => g.kind === "allocated");
    if (grants.length === 0)
      throw new NetworkRegistryError("pool-not-found", `${prefix.toString()} is not an allocated record, so it cannot be a pool`);
    // A claim's own record first: after a whole-pool delegation the delegate allocates from its copy.
    const pool = grants.find((g) => g.claim === claim) ?? grants.find((g) => canDelegate(g, claim));
    if (pool === undefined) {
      throw new NetworkRegistryError(
        "not-delegable",
        `${prefix.toString()} belongs to ${grants.map((g) => g.claim).join(", ")} and does not delegate to ${claim}`,
      );
    }
    return pool;
  }

  /** A pool inside its owner's own carve-out has no space to give (as for a declared delegation: InsideExclusion). */
  private insideOwnCarveOut(pool: Grant): boolean {
    if (!this.carving.has(pool.record.claim)) return false;
    return this.grants.trie.covering(pool.prefix).some((e) => e.value.some((g) => g.kind === "carve-out" && g.claim === pool.claim));
  }

  private spaceOf(prefix: Prefix): FreeSpace {
    const pool = this.grants.trie.get(prefix)?.find((g) => g.kind === "allocated");
    if (pool !== undefined) return this.grants.poolSpace(pool);
    if (this.grants.trie.covering(prefix).some((e) => e.value.some((g) => g.kind === "allocated"))) return new FreeSpace(prefix, [prefix]);
    return new FreeSpace(
      prefix,
      this.grants.trie
        .coveredBy(prefix)
        .filter((e) => e.value.some((g) => g.kind === "allocated"))
        .map((e) => e.prefix),
    );
  }

  /**
   * The invariant every state of the registry keeps (checked on restore): granted records obey
   * the policy and their parent, parents have no cycles, and two granted records overlap only
   * through delegation or a carve-out of the outer record's owner.
   */
  private assertConsistent(fail: (message: string) => NetworkRegistryError): void {
    const grants = [...this.grants.trie].flatMap((entry) => entry.value);
    for (const grant of grants) {
      const seen = new Set<Grant>();
      for (let g: Grant | undefined = grant; g !== undefined; g = g.parent) {
        if (seen.has(g)) throw fail(`${grant.claim} ${grant.key}: its parents form a cycle`);
        seen.add(g);
      }
    }
    for (const entry of this.grants.trie) {
      for (const grant of entry.value) {
        if (grant.kind === "carve-out") continue;
        if (this.policy.actionOf(grant.prefix) === "reject")
          throw fail(`${grant.claim} ${grant.key} is granted, but the policy rejects it`);
        const parent = grant.parent;
        if (parent !== undefined && !parent.prefix.contains(grant.prefix))
          throw fail(`${grant.claim} ${grant.key} is not inside its parent ${parent.claim} ${parent.key}`);
        if (parent !== undefined && !canDelegate(parent, grant.claim))
          throw fail(`${parent.claim} ${parent.key} does not delegate to ${grant.claim} (${grant.key})`);
        for (const other of this.grants.trie.overlapping(grant.prefix).flatMap((e) => e.value)) {
          if (other === grant || other.kind === "carve-out") continue;
          const [outer, inner] = other.prefix.length <= grant.prefix.length ? [other, grant] : [grant, other];
          if (!this.nestingDeclared(outer, inner) && !(outer.prefix.length === inner.prefix.length && this.nestingDeclared(inner, outer))) {
            throw fail(`${grant.claim} ${grant.key} and ${other.claim} ${other.key} overlap without a delegation or carve-out`);
          }
        }
      }
    }
  }

  private nestingDeclared(outer: Grant, inner: Grant): boolean {
    return isAncestor(outer, inner.parent) || (outer.claim !== inner.claim && this.carveOut(outer.claim, inner.prefix) !== undefined);
  }
}

/** The metadata a claim keeps (validated by validateClaim): its name, labels and annotations. */
function metadataOf(metadata: NetworkClaimMetadata): NetworkClaimMetadata {
  const result: NetworkClaimMetadata = { name: metadata.name };
  if (metadata.labels !== undefined) result.labels = { ...metadata.labels };
  if (metadata.annotations !== undefined) result.annotations = { ...metadata.annotations };
  return result;
}

/** Claim order, then spec order. */
function compareRecords(a: RecordState, b: RecordState): number {
  if (a.claim !== b.claim) return a.claim.order - b.claim.order;
  return a.claim.declared.indexOf(a) - b.claim.declared.indexOf(b);
}

/** A recorded status, checked against its spec: the spec's fields, an outcome, and a conflict only when refused. */
function statusOf(
  raw: AddressRecord | undefined,
  key: string,
  spec: AddressRecord,
  fail: (message: string) => NetworkRegistryError,
): AddressRecord {
  if (typeof raw !== "object" || raw === null || raw.prefix !== key) throw fail("the status entry does not match the spec record");
  if (raw.status !== "allocated" && raw.status !== "unavailable") throw fail("status must be allocated or unavailable");
  if (typeof raw.date !== "string" || Number.isNaN(Date.parse(raw.date))) throw fail("status date must be an ISO-8601 time");
  const status = normalizeRecord(raw, key);
  const { date: _date, status: outcome, conflict, warnings: _warnings, ...fields } = status;
  if (stableStringify(fields) !== stableStringify({ ...spec, status: undefined })) throw fail("status disagrees with spec");
  if (spec.status === "unavailable" && (outcome !== "unavailable" || conflict !== undefined))
    throw fail("a carve-out's status must be unavailable without a conflict");
  if (spec.status !== "unavailable" && (outcome === "allocated") === (conflict !== undefined))
    throw fail("a record is either allocated or refused with a conflict");
  return status;
}

function canDelegate(grant: Grant, claim: string): boolean {
  return grant.claim === claim || (grant.delegateTo !== undefined && (grant.delegateTo.includes(claim) || grant.delegateTo.includes("*")));
}

function parsePrefixOrTable(text: string): Prefix {
  try {
    return parsePrefix(text);
  } catch {
    return Prefix.all(text.includes(":") ? 6 : 4);
  }
}
