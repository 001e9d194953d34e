import { NetworkRegistryError } from "./errors.js";
import { FreeSpace, formatPercent, type AllocationStrategy } from "./free-space.js";
import type { GrantIndex } from "./grant-index.js";
import { canDelegate } from "./overlap-rules.js";
import type { Prefix } from "./prefix.js";
import type { RecordStamps } from "./record-stamps.js";
import { invalidArgument, toPrefixArgument } from "./registry-arguments.js";
import { isAncestor, type ClaimState, type Grant, type RecordState } from "./registry-state.js";
import type { AllocateRequest } from "./registry-types.js";
import type { AddressRecord } from "./types.js";

/*
 * Dynamic allocation: choosing the pool a request draws from, taking a block of its free
 * space, and building the allocation's record. The registry decides when; this is how, kept
 * apart because it is the hot path and has its own rules (pools, exhaustion, exact blocks).
 */

/** The pool a claim allocates from at `prefix`: its own record first, else one that delegates to it. */
export function poolGrant(grants: GrantIndex, prefix: Prefix, claim: string): Grant {
  const candidates = (grants.trie.get(prefix) ?? []).filter((g) => g.kind === "allocated");
  if (candidates.length === 0)
    throw new NetworkRegistryError("pool-not-found", `${prefix.toString()} is not an allocated record, so it cannot be a pool`);
  // A claim's own record first: after a whole-pool delegation the delegate allocates from its copy.
  const pool = candidates.find((g) => g.claim === claim) ?? candidates.find((g) => canDelegate(g, claim));
  if (pool === undefined) {
    throw new NetworkRegistryError(
      "not-delegable",
      `${prefix.toString()} belongs to ${candidates.map((g) => g.claim).join(", ")} and does not delegate to ${claim}`,
    );
  }
  return pool;
}

/**
 * Take the block a request asks for from its pool's free space. Throws `not-delegable`,
 * `pool-not-found`, `pool-exhausted` or `invalid-argument`, leaving the free space as it was.
 */
export function takeBlock(
  grants: GrantIndex,
  request: AllocateRequest,
  strategy: AllocationStrategy,
  poolPrefix: Prefix,
): { pool: Grant; block: Prefix } {
  const pool = poolGrant(grants, poolPrefix, request.claim);
  if (request.prefixLength === poolPrefix.length && request.claim === pool.claim) {
    throw invalidArgument(`${pool.key} already belongs to ${pool.claim}; allocating all of it to the same claim changes nothing`);
  }
  const space = grants.poolSpace(pool);
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
  const outer = grants.trie
    .covering(pool.prefix)
    .flatMap((e) => e.value)
    .find((g) => g.claim === request.claim && g.kind === "allocated" && g !== pool && !isAncestor(g, pool.parent));
  if (outer !== undefined) {
    space.release(block);
    throw invalidArgument(
      `${request.claim} cannot hold a block of ${pool.claim} ${pool.key}: its own record ${outer.key} contains the pool (which sits in its carve-out), so the block would overlap it`,
    );
  }
  return { pool, block };
}

/** The record and grant of a block taken from `pool` for `state`, not yet linked or indexed. */
export function allocationRecord(
  state: ClaimState,
  pool: Grant,
  block: Prefix,
  request: AllocateRequest,
  stamps: RecordStamps,
): RecordState {
  // Built field by field in canonical order and frozen, so the status record can be shared
  // with the caller without copies (this is the allocation hot path).
  const key = block.toString();
  const reference = stamps.frozenReference(request.reference);
  const parent = (pool.asParent ??= Object.freeze({ claim: pool.claim, prefix: pool.key }));
  const description = request.description;
  const spec: AddressRecord =
    description === undefined ? { reference, prefix: key, parent } : { reference, prefix: key, description, parent };
  const status: AddressRecord =
    description === undefined
      ? { reference, prefix: key, date: stamps.now(), status: "allocated", parent }
      : { reference, prefix: key, description, date: stamps.now(), status: "allocated", parent };
  Object.freeze(status);
  const record: RecordState = {
    claim: state,
    allocation: true,
    spec,
    status,
    grant: undefined,
    validated: { record: spec, prefix: block, parentPrefix: pool.prefix },
  };
  record.grant = {
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
  return record;
}

/** The free space of a granted pool, or of any prefix: what granted records inside leave free. */
export function spaceOf(grants: GrantIndex, prefix: Prefix): FreeSpace {
  const pool = grants.trie.get(prefix)?.find((g) => g.kind === "allocated");
  if (pool !== undefined) return grants.poolSpace(pool);
  if (grants.trie.covering(prefix).some((e) => e.value.some((g) => g.kind === "allocated"))) return new FreeSpace(prefix, [prefix]);
  return new FreeSpace(
    prefix,
    grants.trie
      .coveredBy(prefix)
      .filter((e) => e.value.some((g) => g.kind === "allocated"))
      .map((e) => e.prefix),
  );
}
