import { IPAddress } from "./address.js";
import { NetworkRegistryError } from "./errors.js";
import { parseAddress, parsePrefix } from "./parse.js";
import { Prefix } from "./prefix.js";
import { FlatIndex4, FlatIndex6 } from "./flat-index.js";
import { bitAt, commonPrefixLength, isWord, wordMask } from "./words.js";
import { describeValue } from "./describe-value.js";

/** One stored prefix and its value, as returned by {@link PrefixTrie} queries. */
export interface PrefixEntry<T> {
  readonly prefix: Prefix;
  readonly value: T;
}

/**
 * A node of the path-compressed binary trie. Masks are precomputed so that "does this node
 * contain the address" is one AND per word; `entry` is kept ready so lookups allocate nothing.
 */
class TrieNode<T> {
  prefix: Prefix;
  length: number;
  w0: number;
  w1: number;
  w2: number;
  w3: number;
  m0: number;
  m1: number;
  m2: number;
  m3: number;
  entry: PrefixEntry<T> | undefined = undefined;
  zero: TrieNode<T> | undefined = undefined;
  one: TrieNode<T> | undefined = undefined;

  constructor(prefix: Prefix) {
    this.prefix = prefix;
    this.length = prefix.length;
    this.w0 = prefix.w0;
    this.w1 = prefix.w1;
    this.w2 = prefix.w2;
    this.w3 = prefix.w3;
    this.m0 = wordMask(prefix.length, 0) | 0;
    this.m1 = wordMask(prefix.length, 1) | 0;
    this.m2 = wordMask(prefix.length, 2) | 0;
    this.m3 = wordMask(prefix.length, 3) | 0;
  }

  matches(a: Prefix | IPAddress): boolean {
    return (
      ((a.w0 ^ this.w0) & this.m0) === 0 &&
      ((a.w1 ^ this.w1) & this.m1) === 0 &&
      ((a.w2 ^ this.w2) & this.m2) === 0 &&
      ((a.w3 ^ this.w3) & this.m3) === 0
    );
  }
}

function nextBit(p: Prefix | IPAddress, position: number): number {
  return bitAt(p.w0, p.w1, p.w2, p.w3, position);
}

function toPrefix(input: string | Prefix): Prefix {
  if (typeof input === "string") return parsePrefix(input);
  if (input instanceof Prefix) return input;
  throw new NetworkRegistryError("invalid-argument", `expected a prefix string or a Prefix, got ${describeValue(input)}`);
}

function toAddress(input: string | IPAddress): IPAddress {
  if (typeof input === "string") return parseAddress(input);
  if (input instanceof IPAddress) return input;
  throw new NetworkRegistryError("invalid-argument", `expected an address string or an IPAddress, got ${describeValue(input)}`);
}

/**
 * A path-compressed binary trie of prefixes with one root per address family (the design of
 * Kubernetes' `pkg/util/iptree`). Every operation costs O(prefix length) plus the size of its
 * output. Methods accept canonical strings or parsed {@link Prefix} / {@link IPAddress} values.
 *
 * Longest-prefix lookups on a read-mostly trie switch to a flattened interval index (binary
 * search over a typed array), built lazily once enough lookups follow a change to pay for it;
 * until then they walk the trie.
 */
export class PrefixTrie<T> {
  private readonly root4 = new TrieNode<T>(Prefix.all(4));
  private readonly root6 = new TrieNode<T>(Prefix.all(6));
  private count = 0;
  private flat4: FlatIndex4<PrefixEntry<T>> | undefined;
  private flat6: FlatIndex6<PrefixEntry<T>> | undefined;
  private reads4 = 0;
  private reads6 = 0;

  /** Lookups after a change before the flat index is (re)built: amortizes the O(n) build. */
  private get rebuildThreshold(): number {
    return 32 + (this.count >>> 4);
  }

  private changed(family: 4 | 6): void {
    if (family === 4) {
      this.flat4 = undefined;
      this.reads4 = 0;
    } else {
      this.flat6 = undefined;
      this.reads6 = 0;
    }
  }

  private index4(): FlatIndex4<PrefixEntry<T>> | undefined {
    if (this.flat4 === undefined && ++this.reads4 > this.rebuildThreshold) this.flat4 = new FlatIndex4(this.root4);
    return this.flat4;
  }

  private index6(): FlatIndex6<PrefixEntry<T>> | undefined {
    if (this.flat6 === undefined && ++this.reads6 > this.rebuildThreshold) this.flat6 = new FlatIndex6(this.root6);
    return this.flat6;
  }

  /** Number of stored prefixes. */
  get size(): number {
    return this.count;
  }

  /** Store `value` under `prefix`, replacing any previous value. */
  insert(input: string | Prefix, value: T): void {
    const prefix = toPrefix(input);
    this.changed(prefix.family);
    const entry: PrefixEntry<T> = Object.freeze({ prefix, value });
    let parent: TrieNode<T> | undefined;
    let node: TrieNode<T> | undefined = prefix.family === 4 ? this.root4 : this.root6;
    for (;;) {
      if (node === undefined) {
        const leaf = new TrieNode<T>(prefix);
        leaf.entry = entry;
        this.attach(parent!, leaf);
        this.count++;
        return;
      }
      const common = Math.min(
        commonPrefixLength(node.w0, node.w1, node.w2, node.w3, prefix.w0, prefix.w1, prefix.w2, prefix.w3),
        node.length,
        prefix.length,
      );
      if (common === node.length && common === prefix.length) {
        if (node.entry === undefined) this.count++;
        node.entry = entry;
        return;
      }
      if (common === node.length) {
        parent = node;
        node = nextBit(prefix, node.length) === 0 ? node.zero : node.one;
        continue;
      }
      // The new prefix and this node part ways at bit `common`: put a node there.
      const split = new TrieNode<T>(common === prefix.length ? prefix : Prefix.from(prefix.first(), common));
      if (common === prefix.length) split.entry = entry;
      if (nextBit(node.prefix, common) === 0) split.zero = node;
      else split.one = node;
      if (common < prefix.length) {
        const leaf = new TrieNode<T>(prefix);
        leaf.entry = entry;
        if (nextBit(prefix, common) === 0) split.zero = leaf;
        else split.one = leaf;
      }
      this.attach(parent!, split);
      this.count++;
      return;
    }
  }

  /** Remove `prefix`; returns whether it was stored. */
  remove(input: string | Prefix): boolean {
    const prefix = toPrefix(input);
    let grandparent: TrieNode<T> | undefined;
    let parent: TrieNode<T> | undefined;
    let node: TrieNode<T> | undefined = prefix.family === 4 ? this.root4 : this.root6;
    while (node !== undefined && node.length < prefix.length && node.matches(prefix)) {
      grandparent = parent;
      parent = node;
      node = nextBit(prefix, node.length) === 0 ? node.zero : node.one;
    }
    if (node === undefined || node.length !== prefix.length || node.entry === undefined || !node.matches(prefix)) return false;
    this.changed(prefix.family);
    node.entry = undefined;
    this.count--;
    if (parent === undefined) return true; // a family root stays
    const only = node.zero === undefined ? node.one : node.one === undefined ? node.zero : undefined;
    if (node.zero !== undefined && node.one !== undefined) return true;
    this.replaceChild(parent, node, only);
    // A valueless glue node left with one child is no longer needed.
    if (grandparent !== undefined && parent.entry === undefined) {
      const remaining = parent.zero === undefined ? parent.one : parent.one === undefined ? parent.zero : undefined;
      if (remaining !== undefined || (parent.zero === undefined && parent.one === undefined)) {
        this.replaceChild(grandparent, parent, remaining);
      }
    }
    return true;
  }

  /** The value stored under exactly `prefix`. */
  get(input: string | Prefix): T | undefined {
    const prefix = toPrefix(input);
    let node: TrieNode<T> | undefined = prefix.family === 4 ? this.root4 : this.root6;
    while (node !== undefined && node.length < prefix.length) {
      if (!node.matches(prefix)) return undefined;
      node = nextBit(prefix, node.length) === 0 ? node.zero : node.one;
    }
    if (node === undefined || node.length !== prefix.length || !node.matches(prefix)) return undefined;
    return node.entry?.value;
  }

  /** True when exactly `prefix` is stored. */
  has(input: string | Prefix): boolean {
    const prefix = toPrefix(input);
    return this.exactNode(prefix)?.entry !== undefined;
  }

  /** Longest-prefix match: the most specific stored prefix containing `address`. */
  lookup(input: string | IPAddress): PrefixEntry<T> | undefined {
    const address = toAddress(input);
    if (address.family === 4) return this.lookup4(address.w0);
    const flat = this.index6();
    if (flat !== undefined) return flat.lookup(address.w0, address.w1, address.w2, address.w3);
    let best: PrefixEntry<T> | undefined;
    let node: TrieNode<T> | undefined = this.root6;
    while (node !== undefined && node.matches(address)) {
      if (node.entry !== undefined) best = node.entry;
      if (node.length === 128) break;
      node = nextBit(address, node.length) === 0 ? node.zero : node.one;
    }
    return best;
  }

  /** IPv4 longest-prefix match on a 32-bit unsigned address (no parsing, no allocation). */
  lookup4(address: number): PrefixEntry<T> | undefined {
    if (!isWord(address))
      throw new NetworkRegistryError("invalid-argument", `lookup4 takes an unsigned 32-bit IPv4 address, got ${describeValue(address)}`);
    const flat = this.index4();
    if (flat !== undefined) return flat.lookup(address);
    let best: PrefixEntry<T> | undefined;
    let node: TrieNode<T> | undefined = this.root4;
    while (node !== undefined && ((address ^ node.w0) & node.m0) === 0) {
      if (node.entry !== undefined) best = node.entry;
      const length: number = node.length;
      if (length === 32) break;
      node = ((address >>> (31 - length)) & 1) === 0 ? node.zero : node.one;
    }
    return best;
  }

  /** Stored supernets of `prefix`, including an equal one, shortest first. */
  covering(input: string | Prefix): PrefixEntry<T>[] {
    const prefix = toPrefix(input);
    const result: PrefixEntry<T>[] = [];
    let node: TrieNode<T> | undefined = prefix.family === 4 ? this.root4 : this.root6;
    while (node !== undefined && node.length <= prefix.length && node.matches(prefix)) {
      if (node.entry !== undefined) result.push(node.entry);
      if (node.length === prefix.length) break;
      node = nextBit(prefix, node.length) === 0 ? node.zero : node.one;
    }
    return result;
  }

  /** Stored subnets of `prefix`, including an equal one, in address order. */
  coveredBy(input: string | Prefix): PrefixEntry<T>[] {
    const prefix = toPrefix(input);
    const result: PrefixEntry<T>[] = [];
    const top = this.subtreeOf(prefix);
    if (top !== undefined) collect(top, result);
    return result;
  }

  /** Every stored prefix overlapping `prefix` (supernets, equal, subnets), in address order. */
  overlapping(input: string | Prefix): PrefixEntry<T>[] {
    const prefix = toPrefix(input);
    const result = this.covering(prefix);
    const top = this.subtreeOf(prefix);
    if (top !== undefined) collect(top, result, top.length === prefix.length ? top : undefined);
    return result;
  }

  /** True when any stored prefix overlaps `prefix` (no output is built). */
  overlapsAny(input: string | Prefix): boolean {
    const prefix = toPrefix(input);
    if (prefix.family === 4) {
      const flat = this.index4();
      if (flat !== undefined) return flat.overlaps(prefix.w0, (prefix.w0 | ~wordMask(prefix.length, 0)) >>> 0);
    } else {
      const flat = this.index6();
      if (flat !== undefined) {
        const last = prefix.last();
        return flat.overlaps([prefix.w0, prefix.w1, prefix.w2, prefix.w3], [last.w0, last.w1, last.w2, last.w3]);
      }
    }
    let node: TrieNode<T> | undefined = prefix.family === 4 ? this.root4 : this.root6;
    while (node !== undefined && node.length <= prefix.length && node.matches(prefix)) {
      if (node.entry !== undefined) return true;
      if (node.length === prefix.length) return hasEntry(node);
      node = nextBit(prefix, node.length) === 0 ? node.zero : node.one;
    }
    return node !== undefined && node.length > prefix.length && prefix.contains(node.prefix) && hasEntry(node);
  }

  /** All entries in address order, IPv4 first; within an address, shorter prefixes first. */
  *entries(): IterableIterator<PrefixEntry<T>> {
    for (const root of [this.root4, this.root6]) {
      const stack: TrieNode<T>[] = [root];
      while (stack.length > 0) {
        const node = stack.pop()!;
        if (node.entry !== undefined) yield node.entry;
        if (node.one !== undefined) stack.push(node.one);
        if (node.zero !== undefined) stack.push(node.zero);
      }
    }
  }

  [Symbol.iterator](): IterableIterator<PrefixEntry<T>> {
    return this.entries();
  }

  /** Remove everything. */
  clear(): void {
    this.changed(4);
    this.changed(6);
    for (const root of [this.root4, this.root6]) {
      root.entry = undefined;
      root.zero = undefined;
      root.one = undefined;
    }
    this.count = 0;
  }

  private exactNode(prefix: Prefix): TrieNode<T> | undefined {
    let node: TrieNode<T> | undefined = prefix.family === 4 ? this.root4 : this.root6;
    while (node !== undefined && node.length < prefix.length) {
      if (!node.matches(prefix)) return undefined;
      node = nextBit(prefix, node.length) === 0 ? node.zero : node.one;
    }
    return node !== undefined && node.length === prefix.length && node.matches(prefix) ? node : undefined;
  }

  /** The highest node whose prefix lies inside `prefix`. */
  private subtreeOf(prefix: Prefix): TrieNode<T> | undefined {
    let node: TrieNode<T> | undefined = prefix.family === 4 ? this.root4 : this.root6;
    while (node !== undefined && node.length < prefix.length) {
      if (!node.matches(prefix)) return undefined;
      node = nextBit(prefix, node.length) === 0 ? node.zero : node.one;
    }
    return node !== undefined && prefix.contains(node.prefix) ? node : undefined;
  }

  private attach(parent: TrieNode<T>, child: TrieNode<T>): void {
    if (nextBit(child.prefix, parent.length) === 0) parent.zero = child;
    else parent.one = child;
  }

  private replaceChild(parent: TrieNode<T>, old: TrieNode<T>, replacement: TrieNode<T> | undefined): void {
    if (parent.zero === old) parent.zero = replacement;
    else if (parent.one === old) parent.one = replacement;
    else throw new NetworkRegistryError("invalid-argument", "internal error: trie parent link lost");
  }
}

function hasEntry<T>(node: TrieNode<T>): boolean {
  if (node.entry !== undefined) return true;
  return (node.zero !== undefined && hasEntry(node.zero)) || (node.one !== undefined && hasEntry(node.one));
}

/** Pre-order (address order) collection of a subtree, optionally skipping the subtree root's entry. */
function collect<T>(top: TrieNode<T>, result: PrefixEntry<T>[], skipEntryOf?: TrieNode<T>): void {
  const stack: TrieNode<T>[] = [top];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (node.entry !== undefined && node !== skipEntryOf) result.push(node.entry);
    if (node.one !== undefined) stack.push(node.one);
    if (node.zero !== undefined) stack.push(node.zero);
  }
}
