import { validateClaim } from "./claim-validation.js";
import { describeValue } from "./describe-value.js";
import { NetworkRegistryError } from "./errors.js";
import type { GrantIndex } from "./grant-index.js";
import { canDelegate, type OverlapRules } from "./overlap-rules.js";
import type { Prefix } from "./prefix.js";
import { normalizeRecord, specOf } from "./records.js";
import type { RefusedRecords } from "./refused-records.js";
import type { Allocation } from "./registry-types.js";
import { compareSamePrefix, metadataOf, newClaimState, newGrant, type ClaimState, type Grant, type RecordState } from "./registry-state.js";
import { stableStringify } from "@kubekit/apimachinery";
import { NETWORK_CLAIM_API_VERSION, type AddressRecord, type NetworkClaim } from "./types.js";

/*
 * Rebuilding a registry from its serialized form. A snapshot comes from outside (a file, a
 * store), so nothing in it is trusted: it is validated as thoroughly as the live registry
 * decides, and that is most of the code, so it lives apart from the registry that uses it.
 */

export interface RegistrySnapshot {
  apiVersion: string;
  kind: "NetworkRegistrySnapshot";
  generation: number;
  /** Declared intent and its outcome, in claim order. */
  claims: NetworkClaim[];
  /** Dynamic allocations, in claim order and then address order. */
  allocations: Allocation[];
}

/** The state of a new, empty registry that {@link restoreState} fills. */
export interface RestoreTarget {
  readonly claims: Map<string, ClaimState>;
  readonly grants: GrantIndex;
  readonly refused: RefusedRecords<RecordState>;
  readonly carving: Set<ClaimState>;
  readonly rules: OverlapRules;
}

/**
 * Fill `target` from `snapshot`, validating everything: the shape, every record, that granted
 * records obey the overlap and delegation rules and the policy, that parents exist without
 * cycles, and that every status is what the registry would say now (a refused record names its
 * current blocker). Throws `invalid-snapshot` otherwise.
 */
export function restoreState(target: RestoreTarget, snapshot: RegistrySnapshot): void {
  const { claims, grants, refused, carving, rules } = target;
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
    grants.insert(grant);
    if (parent !== undefined && parentPrefix !== undefined) parents.push({ grant, claim: parent.claim, prefix: parentPrefix });
  };
  const recorded = new Map<RecordState, AddressRecord>();
  for (const [i, claim] of snapshot.claims.entries()) {
    const { problems, records } = validateClaim(claim);
    if (problems.length > 0) throw fail(`claims[${i}]: ${problems.join("; ")}`);
    const name = claim.metadata.name;
    if (claims.has(name)) throw fail(`claim ${name} appears twice`);
    const statuses: unknown = claim.status?.addressSpace;
    if (!Array.isArray(statuses) || statuses.length !== records.length)
      throw fail(`claim ${name}: status.addressSpace must have one entry per spec record`);
    const state = newClaimState(name, claims.size, metadataOf(claim.metadata));
    claims.set(name, state);
    records.forEach((validated, r) => {
      const key = validated.prefix.toString();
      const spec = specOf(validated.record, key);
      const raw = (statuses as unknown[])[r] as AddressRecord | undefined;
      const status = statusOf(raw, key, spec, (m) => fail(`claim ${name} ${key}: ${m}`));
      const record: RecordState = { claim: state, allocation: false, spec, status, grant: undefined, validated };
      state.declared.push(record);
      if (spec.status === "unavailable") carving.add(state);
      recorded.set(record, status);
      if (status.status === "allocated" || spec.status === "unavailable") {
        record.grant = newGrant(record, spec.status === "unavailable" ? "carve-out" : "allocated");
        add(record.grant, spec.parent, validated.parentPrefix);
      } else if (status.conflict?.reason !== "SpecialPurpose") {
        refused.add(record);
      }
    });
  }
  for (const [i, allocation] of snapshot.allocations.entries()) {
    const state = typeof allocation?.claim === "string" ? claims.get(allocation.claim) : undefined;
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
    record.grant = newGrant(record, "allocated");
    state.allocations.set(key, record);
    add(record.grant, spec.parent, validated.parentPrefix);
  }
  for (const { grant, claim, prefix } of parents) {
    const parent = rules.findGrant(claim, prefix);
    if (parent === undefined) throw fail(`${grant.claim} ${grant.key}: parent ${claim} ${prefix.toString()} is not a granted record`);
    grant.parent = parent;
    parent.children.add(grant);
  }
  assertConsistent(grants, rules, fail);
  // Grants of one prefix are ordered by delegation depth, which is known only now.
  for (const entry of [...grants.trie])
    if (entry.value.length > 1) grants.trie.insert(entry.prefix, [...entry.value].sort(compareSamePrefix));
  // Refused records must say what the registry would say now.
  for (const record of [...claims.values()].flatMap((c) => c.declared.filter((r) => r.grant === undefined))) {
    const outcome = rules.evaluate(record.claim.name, record.validated, true);
    if (outcome.conflict === undefined)
      throw fail(`claim ${record.claim.name} ${record.status.prefix} is recorded as refused, but nothing blocks it`);
    const expected = normalizeRecord({ ...record.status, conflict: outcome.conflict, warnings: outcome.warnings });
    if (stableStringify(expected) !== stableStringify(recorded.get(record))) {
      throw fail(`claim ${record.claim.name} ${record.status.prefix}: the recorded conflict is stale (now: ${outcome.conflict.message})`);
    }
  }
  // Every refusal was just checked against the whole registry.
  refused.forgetChanges();
}

/**
 * The invariant every state of the registry keeps: granted records obey the policy and their
 * parent, parents have no cycles, and two granted records overlap only through delegation or a
 * carve-out of the outer record's owner.
 */
function assertConsistent(grants: GrantIndex, rules: OverlapRules, fail: (message: string) => NetworkRegistryError): void {
  for (const grant of [...grants.trie].flatMap((entry) => entry.value)) {
    const seen = new Set<Grant>();
    for (let g: Grant | undefined = grant; g !== undefined; g = g.parent) {
      if (seen.has(g)) throw fail(`${grant.claim} ${grant.key}: its parents form a cycle`);
      seen.add(g);
    }
  }
  for (const entry of grants.trie) {
    for (const grant of entry.value) {
      if (grant.kind === "carve-out") continue;
      if (rules.policy.actionOf(grant.prefix) === "reject") throw fail(`${grant.claim} ${grant.key} is granted, but the policy rejects it`);
      const parent = grant.parent;
      if (parent !== undefined && !parent.prefix.contains(grant.prefix))
        throw fail(`${grant.claim} ${grant.key} is not inside its parent ${parent.claim} ${parent.key}`);
      if (parent !== undefined && !canDelegate(parent, grant.claim))
        throw fail(`${parent.claim} ${parent.key} does not delegate to ${grant.claim} (${grant.key})`);
      for (const other of grants.trie.overlapping(grant.prefix).flatMap((e) => e.value)) {
        if (other === grant || other.kind === "carve-out") continue;
        const [outer, inner] = other.prefix.length <= grant.prefix.length ? [other, grant] : [grant, other];
        if (!rules.nestingDeclared(outer, inner) && !(outer.prefix.length === inner.prefix.length && rules.nestingDeclared(inner, outer))) {
          throw fail(`${grant.claim} ${grant.key} and ${other.claim} ${other.key} overlap without a delegation or carve-out`);
        }
      }
    }
  }
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
