import { FreeSpace } from "./free-space.js";
import { rangeOf } from "./refusal-watch.js";
import type { RefusedRecords } from "./refused-records.js";
import { compareSamePrefix, countsIn, type Grant, type RecordState } from "./registry-state.js";
import { PrefixTrie } from "./trie.js";

/*
 * Where the grants are (a trie by prefix, grants of one prefix in {@link compareSamePrefix}
 * order) and what each pool has left (its free space, built on first use and kept in step with
 * the grants inside it). Every change is reported to the refused records it may concern.
 */
export class GrantIndex {
  readonly trie = new PrefixTrie<Grant[]>();
  readonly #pools = new Map<Grant, FreeSpace>();
  readonly #refused: RefusedRecords<RecordState>;
  readonly #insideOwnCarveOut: (pool: Grant) => boolean;

  constructor(refused: RefusedRecords<RecordState>, insideOwnCarveOut: (pool: Grant) => boolean) {
    this.#refused = refused;
    this.#insideOwnCarveOut = insideOwnCarveOut;
  }

  /** The free space of a pool (an allocated grant others allocate from). */
  poolSpace(pool: Grant): FreeSpace {
    let space = this.#pools.get(pool);
    if (space === undefined) {
      const occupied = this.trie.coveredBy(pool.prefix).flatMap((e) => e.value.filter((g) => countsIn(pool, g)).map((g) => g.prefix));
      space = new FreeSpace(pool.prefix, this.#insideOwnCarveOut(pool) ? [pool.prefix] : occupied);
      this.#pools.set(pool, space);
    }
    return space;
  }

  /** Store a grant in the index; grants of one prefix are kept in {@link compareSamePrefix} order. */
  index(grant: Grant): void {
    if (grant.kind === "carve-out") this.#refused.grantFreed(rangeOf(grant.prefix));
    else this.#refused.grantAdded(rangeOf(grant.prefix));
    const existing = this.trie.get(grant.prefix);
    this.trie.insert(grant.prefix, existing === undefined ? [grant] : [...existing, grant].sort(compareSamePrefix));
  }

  /** Indexes a grant that takes space from the pools around it (their free space is built anew). */
  insert(grant: Grant): void {
    this.index(grant);
    for (const pool of [...this.#pools.keys()]) {
      if (pool.prefix.overlaps(grant.prefix)) this.#pools.delete(pool);
    }
  }

  /** Removes a grant; the pools it was inside get its space back. */
  remove(grant: Grant): void {
    this.#refused.grantFreed(rangeOf(grant.prefix));
    grant.parent?.children.delete(grant);
    const remaining = (this.trie.get(grant.prefix) ?? []).filter((g) => g !== grant);
    if (remaining.length === 0) this.trie.remove(grant.prefix);
    else this.trie.insert(grant.prefix, remaining);
    for (const [pool, space] of [...this.#pools]) {
      if (
        pool === grant ||
        pool.prefix.equals(grant.prefix) ||
        (grant.kind === "carve-out" && grant.claim === pool.claim && grant.prefix.contains(pool.prefix))
      ) {
        this.#pools.delete(pool);
        continue;
      }
      if (!pool.prefix.contains(grant.prefix) || !countsIn(pool, grant) || this.#insideOwnCarveOut(pool)) continue;
      // Still occupied by something between the pool and the record: the pool's free space is unchanged.
      const shadowed = this.trie
        .covering(grant.prefix)
        .some((e) => e.prefix.length >= pool.prefix.length && e.value.some((g) => g !== grant && countsIn(pool, g)));
      if (shadowed) continue;
      if (this.trie.coveredBy(grant.prefix).length > 0) this.#pools.delete(pool);
      else space.release(grant.prefix);
    }
  }
}
