import { commonPrefixLength } from "./words.js";

/*
 * Read-optimized snapshots of a PrefixTrie for longest-prefix match. The trie's prefixes are
 * flattened into disjoint address intervals, each mapped to its most specific owner; a lookup is
 * then a binary search over a typed array instead of a pointer chase through ~20 scattered
 * nodes (each a likely cache miss at 100k prefixes). IPv4 adds a 2^16-entry bucket table on the
 * top 16 bits, so most searches cover a handful of intervals.
 */

/** The minimal view of a trie node the flatteners need. */
export interface FlatSource<E> {
  readonly w0: number;
  readonly w1: number;
  readonly w2: number;
  readonly w3: number;
  readonly length: number;
  readonly entry: E | undefined;
  readonly zero: FlatSource<E> | undefined;
  readonly one: FlatSource<E> | undefined;
}

export class FlatIndex4<E> {
  private readonly starts: Uint32Array;
  private readonly owners: (E | undefined)[];
  private readonly buckets: Int32Array;

  constructor(root: FlatSource<E>) {
    const starts: number[] = [];
    const owners: (E | undefined)[] = [];
    const push = (start: number, owner: E | undefined): void => {
      const n = starts.length;
      if (n > 0 && starts[n - 1] === start) {
        owners[n - 1] = owner;
        if (n > 1 && owners[n - 2] === owner) {
          starts.pop();
          owners.pop();
        }
        return;
      }
      if (n > 0 && owners[n - 1] === owner) return;
      starts.push(start);
      owners.push(owner);
    };
    const walk = (node: FlatSource<E>, inherited: E | undefined): void => {
      const own = node.entry ?? inherited;
      push(node.w0, own);
      const last = node.w0 + 2 ** (32 - node.length) - 1;
      for (const child of [node.zero, node.one]) {
        if (child === undefined) continue;
        walk(child, own);
        const end = child.w0 + 2 ** (32 - child.length);
        if (end <= last) push(end, own);
      }
    };
    walk(root, undefined);
    this.starts = Uint32Array.from(starts);
    this.owners = owners;
    this.buckets = new Int32Array(65_537);
    let i = 0;
    for (let b = 0; b <= 65_536; b++) {
      const boundary = b * 65_536;
      while (i < starts.length && starts[i]! < boundary) i++;
      this.buckets[b] = i;
    }
  }

  /** Index of the interval holding `address`. */
  private find(address: number): number {
    const b = address >>> 16;
    let lo = this.buckets[b]! - 1;
    if (lo < 0) lo = 0;
    let hi = this.buckets[b + 1]! - 1;
    const starts = this.starts;
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      if (starts[mid]! <= address) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  lookup(address: number): E | undefined {
    return this.owners[this.find(address)];
  }

  /** True when any stored prefix overlaps [first, last]. */
  overlaps(first: number, last: number): boolean {
    const i = this.find(first);
    if (this.owners[i] !== undefined) return true;
    // Neighbouring intervals always have different owners, so the next one is owned.
    return i + 1 < this.starts.length && this.starts[i + 1]! <= last;
  }
}

/** Adds 2^(128 - length) to four words; undefined on overflow past the end of the space. */
function nextAfter(w: readonly [number, number, number, number], length: number): [number, number, number, number] | undefined {
  const out: [number, number, number, number] = [w[0], w[1], w[2], w[3]];
  let word = (length - 1) >>> 5;
  let add = 2 ** (31 - ((length - 1) & 31));
  if (length === 0) return undefined;
  while (word >= 0) {
    const sum = out[word]! + add;
    if (sum < 2 ** 32) {
      out[word] = sum;
      return out;
    }
    out[word] = sum - 2 ** 32;
    add = 1;
    word--;
  }
  return undefined;
}

export class FlatIndex6<E> {
  // One typed array per word: a search step compares w0 first and rarely reads the others.
  private readonly s0: Uint32Array;
  private readonly s1: Uint32Array;
  private readonly s2: Uint32Array;
  private readonly s3: Uint32Array;
  private readonly owners: (E | undefined)[];
  private readonly count: number;

  constructor(root: FlatSource<E>) {
    const words: [number[], number[], number[], number[]] = [[], [], [], []];
    const owners: (E | undefined)[] = [];
    const push = (w0: number, w1: number, w2: number, w3: number, owner: E | undefined): void => {
      const n = owners.length;
      if (n > 0 && words[0][n - 1] === w0 && words[1][n - 1] === w1 && words[2][n - 1] === w2 && words[3][n - 1] === w3) {
        owners[n - 1] = owner;
        if (n > 1 && owners[n - 2] === owner) {
          for (const list of words) list.pop();
          owners.pop();
        }
        return;
      }
      if (n > 0 && owners[n - 1] === owner) return;
      words[0].push(w0);
      words[1].push(w1);
      words[2].push(w2);
      words[3].push(w3);
      owners.push(owner);
    };
    const walk = (node: FlatSource<E>, inherited: E | undefined): void => {
      const own = node.entry ?? inherited;
      push(node.w0, node.w1, node.w2, node.w3, own);
      const nodeEnd = nextAfter([node.w0, node.w1, node.w2, node.w3], node.length);
      for (const child of [node.zero, node.one]) {
        if (child === undefined) continue;
        walk(child, own);
        const end = nextAfter([child.w0, child.w1, child.w2, child.w3], child.length);
        if (end === undefined) continue;
        const insideNode =
          nodeEnd === undefined ||
          end[0] < nodeEnd[0] ||
          (end[0] === nodeEnd[0] &&
            (end[1] < nodeEnd[1] || (end[1] === nodeEnd[1] && (end[2] < nodeEnd[2] || (end[2] === nodeEnd[2] && end[3] < nodeEnd[3])))));
        if (insideNode) push(end[0], end[1], end[2], end[3], own);
      }
    };
    walk(root, undefined);
    this.s0 = Uint32Array.from(words[0]);
    this.s1 = Uint32Array.from(words[1]);
    this.s2 = Uint32Array.from(words[2]);
    this.s3 = Uint32Array.from(words[3]);
    this.owners = owners;
    this.count = owners.length;
    // Bucket on the 16 bits right after the prefix all interval starts share (the estate's
    // common prefix, e.g. fd00::/16), so a search only spans the intervals of one bucket.
    const n = this.count;
    let shared = 128;
    if (n > 2) {
      const lastStart = n - 1;
      shared = commonPrefixLength(
        this.s0[1]!,
        this.s1[1]!,
        this.s2[1]!,
        this.s3[1]!,
        this.s0[lastStart]!,
        this.s1[lastStart]!,
        this.s2[lastStart]!,
        this.s3[lastStart]!,
      );
    }
    this.window = Math.min(shared, 112);
    this.base = [this.s0[1] ?? 0, this.s1[1] ?? 0, this.s2[1] ?? 0, this.s3[1] ?? 0];
    this.buckets = new Int32Array(65_537);
    let i = 1;
    for (let b = 0; b <= 65_536; b++) {
      while (i < n && (b === 65_536 || this.bucketOf(this.s0[i]!, this.s1[i]!, this.s2[i]!, this.s3[i]!) < b)) i++;
      this.buckets[b] = i;
    }
  }

  private readonly window: number;
  private readonly base: [number, number, number, number];
  private readonly buckets: Int32Array;

  /** -1 below the shared prefix, 65536 above it, else the 16 bits after it. */
  private bucketOf(a0: number, a1: number, a2: number, a3: number): number {
    const c = this.window;
    const [b0, b1, b2, b3] = this.base;
    const common = commonPrefixLength(a0, a1, a2, a3, b0, b1, b2, b3);
    if (common < c) {
      const bit = 31 - (common & 31);
      const word = common < 32 ? a0 : common < 64 ? a1 : common < 96 ? a2 : a3;
      return ((word >>> bit) & 1) === 0 ? -1 : 65_536;
    }
    const index = c >>> 5;
    const offset = c & 31;
    const w = index === 0 ? a0 : index === 1 ? a1 : index === 2 ? a2 : a3;
    if (offset <= 16) return (w >>> (16 - offset)) & 0xffff;
    const next = index === 0 ? a1 : index === 1 ? a2 : a3;
    return ((w << (offset - 16)) | (next >>> (48 - offset))) & 0xffff;
  }

  private find(a0: number, a1: number, a2: number, a3: number): number {
    const { s0, s1, s2, s3 } = this;
    let lo = 0;
    let hi = this.count - 1;
    const bucket = this.bucketOf(a0, a1, a2, a3);
    if (bucket < 0) {
      hi = 0;
    } else if (bucket < 65_536) {
      lo = Math.max(0, this.buckets[bucket]! - 1);
      hi = this.buckets[bucket + 1]! - 1;
    } else {
      lo = Math.max(0, this.buckets[65_536]! - 1);
    }
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1;
      const m0 = s0[mid]!;
      let le: boolean;
      if (m0 !== a0) le = m0 < a0;
      else {
        const m1 = s1[mid]!;
        if (m1 !== a1) le = m1 < a1;
        else {
          const m2 = s2[mid]!;
          le = m2 !== a2 ? m2 < a2 : s3[mid]! <= a3;
        }
      }
      if (le) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  lookup(a0: number, a1: number, a2: number, a3: number): E | undefined {
    return this.owners[this.find(a0, a1, a2, a3)];
  }

  overlaps(first: readonly [number, number, number, number], last: readonly [number, number, number, number]): boolean {
    const i = this.find(first[0], first[1], first[2], first[3]);
    if (this.owners[i] !== undefined) return true;
    if (i + 1 >= this.count) return false;
    return this.find(last[0], last[1], last[2], last[3]) > i;
  }
}
