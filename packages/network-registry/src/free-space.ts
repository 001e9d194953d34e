import { describeValue } from "./describe-value.js";
import { NetworkRegistryError } from "./errors.js";
import { Prefix } from "./prefix.js";
import { TombstoneMap } from "./tombstone-map.js";
import { PrefixTrie } from "./trie.js";

export type AllocationStrategy = "first-fit" | "best-fit";

/** The allocation strategies, for validating input. */
export const ALLOCATION_STRATEGIES: readonly AllocationStrategy[] = ["best-fit", "first-fit"];

/**
 * Free and used space of a pool. Address counts are decimal strings (IPv6 counts exceed 2^53),
 * so the object serialises to JSON as is; `BigInt(usage.used)` gives the exact number.
 */
export interface Utilization {
  pool: string;
  size: string;
  used: string;
  free: string;
  /** Used share, 0..100, as a float: a single /64 in a /8 is a tiny positive number, never 0. */
  percentUsed: number;
  /** The largest free block (lowest address among equals). */
  largestFree: string | undefined;
  /** Number of free blocks per prefix length (the maximal aligned blocks the free space splits into). */
  freeBlocksByLength: Record<number, number>;
}

/** A share for people: two decimals, or two significant digits when it is below 0.01 % (never a false 0). */
export function formatPercent(percent: number): string {
  return percent === 0 || percent >= 0.01 ? `${Math.round(percent * 100) / 100}%` : `${percent.toPrecision(2)}%`;
}

function blockKey(block: Prefix): number | string {
  return block.family === 4 ? block.w0 : `${block.w0}:${block.w1}:${block.w2}:${block.w3}`;
}

/**
 * The free blocks of one length: a binary min-heap by address for "lowest first", plus a map
 * of live blocks for O(1) membership. Removal is lazy (the heap entry is skipped when popped);
 * all copies of a key are the same block, so a stale copy is never wrong.
 */
class BlockSet {
  private heap: Prefix[] = [];
  readonly live = new TombstoneMap<number | string, Prefix>();

  get size(): number {
    return this.live.size;
  }

  has(block: Prefix): boolean {
    return this.live.has(blockKey(block));
  }

  add(block: Prefix): void {
    const key = blockKey(block);
    if (this.live.has(key)) return;
    this.live.set(key, block);
    const heap = this.heap;
    heap.push(block);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (heap[parent]!.compare(block) <= 0) break;
      heap[i] = heap[parent]!;
      i = parent;
    }
    heap[i] = block;
    if (heap.length > 64 && heap.length > 4 * this.live.size) this.compact();
  }

  delete(block: Prefix): boolean {
    return this.live.delete(blockKey(block));
  }

  /** The lowest live block, without removing it. */
  peek(): Prefix | undefined {
    const heap = this.heap;
    while (heap.length > 0) {
      const top = heap[0]!;
      if (this.live.has(blockKey(top))) return top;
      this.popHeap();
    }
    return undefined;
  }

  /** Remove and return the lowest live block. */
  shift(): Prefix | undefined {
    const top = this.peek();
    if (top === undefined) return undefined;
    this.popHeap();
    this.live.delete(blockKey(top));
    return top;
  }

  private popHeap(): void {
    const heap = this.heap;
    const last = heap.pop()!;
    if (heap.length === 0) return;
    let i = 0;
    const n = heap.length;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      const child = right < n && heap[right]!.compare(heap[left]!) < 0 ? right : left;
      if (heap[child]!.compare(last) >= 0) break;
      heap[i] = heap[child]!;
      i = child;
    }
    heap[i] = last;
  }

  private compact(): void {
    this.heap = [...this.live.values()].sort((a, b) => a.compare(b));
  }
}

/**
 * The free space of one pool as a buddy system: per prefix length, the set of maximal aligned
 * free blocks. Taking a /L peeks at most one heap per length and splits one block; releasing
 * coalesces with free buddies on the way up. No cost grows with the number of allocations
 * beyond the heaps' O(log n).
 */
export class FreeSpace {
  readonly pool: Prefix;
  private readonly sets: BlockSet[];
  /** The same free blocks in a trie, to refuse a release of space that is (partly) free. */
  private readonly freeIndex = new PrefixTrie<true>();

  /** `occupied`: every used prefix inside the pool, in any order (nesting allowed; outside ones are ignored). */
  constructor(pool: Prefix, occupied: readonly Prefix[]) {
    if (!(pool instanceof Prefix) || !Array.isArray(occupied) || !occupied.every((p) => p instanceof Prefix)) {
      throw new NetworkRegistryError("invalid-argument", "FreeSpace needs a Prefix pool and a list of occupied Prefixes");
    }
    this.pool = pool;
    this.sets = Array.from({ length: pool.bits + 1 }, () => new BlockSet());
    const top: Prefix[] = [];
    for (const prefix of [...occupied].sort((a, b) => a.compare(b))) {
      if (!pool.contains(prefix)) continue;
      const previous = top[top.length - 1];
      if (previous === undefined || !previous.contains(prefix)) top.push(prefix);
    }
    this.fill(pool, top, 0, top.length);
  }

  private fill(block: Prefix, occupied: readonly Prefix[], from: number, to: number): void {
    if (from === to) {
      this.addFree(block);
      return;
    }
    if (occupied[from]!.contains(block)) return;
    const low = block.child(0);
    let split = from;
    while (split < to && low.contains(occupied[split]!)) split++;
    this.fill(low, occupied, from, split);
    this.fill(block.child(1), occupied, split, to);
  }

  /** Take the lowest aligned free /length (first-fit) or the lowest in the smallest block that fits (best-fit). */
  take(length: number, strategy: AllocationStrategy = "best-fit"): Prefix | undefined {
    if (!ALLOCATION_STRATEGIES.includes(strategy)) {
      throw new NetworkRegistryError(
        "invalid-argument",
        `unknown allocation strategy ${describeValue(strategy)}; use ${ALLOCATION_STRATEGIES.join(" or ")}`,
      );
    }
    if (!Number.isInteger(length) || length < this.pool.length || length > this.pool.bits) {
      throw new NetworkRegistryError("invalid-argument", `cannot take a /${describeValue(length)} from ${this.pool.toString()}`);
    }
    let chosen = -1;
    if (strategy === "best-fit") {
      for (let l = length; l >= this.pool.length; l--) {
        if (this.sets[l]!.size > 0) {
          chosen = l;
          break;
        }
      }
    } else {
      let best: Prefix | undefined;
      for (let l = this.pool.length; l <= length; l++) {
        const head = this.sets[l]!.peek();
        if (head !== undefined && (best === undefined || head.compare(best) < 0)) {
          best = head;
          chosen = l;
        }
      }
    }
    if (chosen < 0) return undefined;
    let block = this.sets[chosen]!.shift()!;
    this.freeIndex.remove(block);
    while (block.length < length) {
      this.addFree(block.child(1));
      block = block.child(0);
    }
    return block;
  }

  /**
   * Take exactly `block` when all of it is free (splitting the free block that holds it), else
   * return undefined and change nothing. For replaying a block decided earlier.
   */
  takeExact(block: Prefix): Prefix | undefined {
    if (!(block instanceof Prefix) || !this.pool.contains(block)) return undefined;
    const holder = this.freeIndex.covering(block)[0]?.prefix;
    if (holder === undefined) return undefined;
    this.sets[holder.length]!.delete(holder);
    this.freeIndex.remove(holder);
    let current = holder;
    while (current.length < block.length) {
      const low = current.child(0);
      const inLow = low.contains(block);
      this.addFree(inLow ? current.child(1) : low);
      current = inLow ? low : current.child(1);
    }
    return block;
  }

  /**
   * Return a used block, merging it with free buddies. Throws `invalid-argument` for a prefix
   * outside the pool or one that is already (partly) free, so a double release cannot corrupt
   * the free space.
   */
  release(prefix: Prefix): void {
    if (!(prefix instanceof Prefix) || !this.pool.contains(prefix)) {
      throw new NetworkRegistryError(
        "invalid-argument",
        `cannot release ${prefix instanceof Prefix ? prefix.toString() : describeValue(prefix)}: it is not inside the pool ${this.pool.toString()}`,
      );
    }
    if (this.freeIndex.overlapsAny(prefix)) {
      throw new NetworkRegistryError(
        "invalid-argument",
        `cannot release ${prefix.toString()}: it is already free (in part or whole) in ${this.pool.toString()}`,
      );
    }
    let block = prefix;
    while (block.length > this.pool.length) {
      const sibling = block.sibling();
      if (!this.sets[block.length]!.delete(sibling)) break;
      this.freeIndex.remove(sibling);
      block = block.supernet();
    }
    this.addFree(block);
  }

  private addFree(block: Prefix): void {
    this.sets[block.length]!.add(block);
    this.freeIndex.insert(block, true);
  }

  /** Free blocks in address order. */
  blocks(): Prefix[] {
    return this.sets.flatMap((set) => [...set.live.values()]).sort((a, b) => a.compare(b));
  }

  utilization(): Utilization {
    let free = 0n;
    let largestFree: Prefix | undefined;
    const freeBlocksByLength: Record<number, number> = {};
    this.sets.forEach((set, length) => {
      if (set.size === 0) return;
      freeBlocksByLength[length] = set.size;
      free += BigInt(set.size) << BigInt(this.pool.bits - length);
      largestFree ??= set.peek();
    });
    const size = this.pool.size();
    const used = size - free;
    return {
      pool: this.pool.toString(),
      size: size.toString(),
      used: used.toString(),
      free: free.toString(),
      // Both counts are at most 2^128, well inside a double's range; the ratio keeps 15 digits.
      percentUsed: (Number(used) / Number(size)) * 100,
      largestFree: largestFree?.toString(),
      freeBlocksByLength,
    };
  }
}
