import { Prefix } from "./prefix.js";

export type AllocationStrategy = "first-fit" | "best-fit";

/** Free and used space of a pool. Sizes are BigInt so IPv6 pools count exactly. */
export interface Utilization {
  pool: string;
  size: bigint;
  used: bigint;
  free: bigint;
  /** Used share, 0..100. */
  percentUsed: number;
  /** The largest free block (lowest address among equals). */
  largestFree: string | undefined;
  /** Number of free blocks per prefix length (the maximal aligned blocks the free space splits into). */
  freeBlocksByLength: Record<number, number>;
}

function search(list: Prefix[], target: Prefix): number {
  let low = 0;
  let high = list.length - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const order = list[mid]!.compare(target);
    if (order === 0) return mid;
    if (order < 0) low = mid + 1;
    else high = mid - 1;
  }
  return -(low + 1);
}

/**
 * The free space of one pool as a buddy system: per prefix length, the sorted list of maximal
 * aligned free blocks. Taking a /L is O(L) list peeks plus O(log n) inserts; releasing
 * coalesces with free buddies on the way up.
 */
export class FreeSpace {
  readonly pool: Prefix;
  private readonly lists: Prefix[][];

  /** `occupied`: every used prefix inside the pool, in address order (nesting allowed). */
  constructor(pool: Prefix, occupied: readonly Prefix[]) {
    this.pool = pool;
    this.lists = Array.from({ length: pool.bits + 1 }, () => []);
    const top: Prefix[] = [];
    for (const prefix of occupied) {
      if (!pool.contains(prefix)) continue;
      const previous = top[top.length - 1];
      if (previous === undefined || !previous.contains(prefix)) top.push(prefix);
    }
    this.fill(pool, top, 0, top.length);
  }

  private fill(block: Prefix, occupied: readonly Prefix[], from: number, to: number): void {
    if (from === to) {
      this.lists[block.length]!.push(block);
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
    if (length < this.pool.length || length > this.pool.bits) return undefined;
    let chosen = -1;
    if (strategy === "best-fit") {
      for (let l = length; l >= this.pool.length; l--) {
        if (this.lists[l]!.length > 0) {
          chosen = l;
          break;
        }
      }
    } else {
      let best: Prefix | undefined;
      for (let l = this.pool.length; l <= length; l++) {
        const head = this.lists[l]![0];
        if (head !== undefined && (best === undefined || head.compare(best) < 0)) {
          best = head;
          chosen = l;
        }
      }
    }
    if (chosen < 0) return undefined;
    let block = this.lists[chosen]!.shift()!;
    while (block.length < length) {
      this.insert(block.child(1));
      block = block.child(0);
    }
    return block;
  }

  /** Take a specific block if it is entirely free; returns whether it was. */
  takeExact(prefix: Prefix): boolean {
    for (let l = prefix.length; l >= this.pool.length; l--) {
      const ancestor = l === prefix.length ? prefix : prefix.supernet(l);
      const list = this.lists[l]!;
      const at = search(list, ancestor);
      if (at < 0) continue;
      list.splice(at, 1);
      let block = ancestor;
      while (block.length < prefix.length) {
        const bit = prefix.bit(block.length) as 0 | 1;
        this.insert(block.child(bit === 0 ? 1 : 0));
        block = block.child(bit);
      }
      return true;
    }
    return false;
  }

  /** Return a block, merging it with free buddies. */
  release(prefix: Prefix): void {
    let block = prefix;
    while (block.length > this.pool.length) {
      const list = this.lists[block.length]!;
      const at = search(list, block.sibling());
      if (at < 0) break;
      list.splice(at, 1);
      block = block.supernet();
    }
    this.insert(block);
  }

  /** Free blocks in address order. */
  blocks(): Prefix[] {
    return this.lists.flat().sort((a, b) => a.compare(b));
  }

  utilization(): Utilization {
    let free = 0n;
    let largestFree: Prefix | undefined;
    const freeBlocksByLength: Record<number, number> = {};
    this.lists.forEach((list, length) => {
      if (list.length === 0) return;
      freeBlocksByLength[length] = list.length;
      free += BigInt(list.length) << BigInt(this.pool.bits - length);
      largestFree ??= list[0];
    });
    const size = this.pool.size();
    const used = size - free;
    return {
      pool: this.pool.toString(),
      size,
      used,
      free,
      percentUsed: Number((used * 10_000n) / size) / 100,
      largestFree: largestFree?.toString(),
      freeBlocksByLength,
    };
  }

  private insert(block: Prefix): void {
    const list = this.lists[block.length]!;
    const at = search(list, block);
    if (at < 0) list.splice(-(at + 1), 0, block);
  }
}
