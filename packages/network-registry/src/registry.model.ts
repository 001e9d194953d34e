/*
 * An independent model of the registry's documented rules, for the lifecycle property test.
 * It is deliberately naive: records are explicit BigInt intervals in flat lists, every question
 * is a linear scan, and the settle rule is the definition itself ("grant the first refused
 * record, in claim order, that nothing blocks; repeat"). It shares no code with the registry
 * beyond the special-purpose table (data, not logic).
 */

import { IPV4_SPECIAL_PURPOSE, IPV6_SPECIAL_PURPOSE } from "./special-purpose-table.js";

export type Family = 4 | 6;

export interface Block {
  family: Family;
  lo: bigint;
  hi: bigint;
  length: number;
}

export interface ModelRef {
  group: string;
  resource: string;
}

export interface ModelSpec {
  reference: ModelRef;
  prefix: string;
  description?: string;
  carveOut: boolean;
  parent?: { claim: string; prefix: string };
  delegateTo?: string[];
}

export interface ModelConflict {
  reason: "Overlap" | "ParentNotFound" | "NotDelegable" | "OutsideParent" | "InsideExclusion";
  claim: string;
  prefix: string;
  relation?: "equal" | "inside" | "contains";
}

export interface ModelRecord {
  claim: string;
  spec: ModelSpec;
  block: Block;
  allocation: boolean;
  /** Order of the grant (ties between equal prefixes go to the older grant). */
  grantedAt: number | undefined;
  parent: ModelRecord | undefined;
  conflict: ModelConflict | undefined;
}

interface ModelClaim {
  name: string;
  declared: ModelRecord[];
  allocations: ModelRecord[];
}

export class ModelError extends Error {
  constructor(readonly code: string) {
    super(code);
  }
}

const bitsOf = (family: Family) => (family === 4 ? 32 : 128);

export function blockOf(text: string): Block {
  const [address, lengthText] = text.split("/") as [string, string];
  const length = Number(lengthText);
  if (address.includes(":")) {
    const [head, tail] = address.split("::") as [string, string | undefined];
    const groups = (s: string | undefined) => (s === undefined || s === "" ? [] : s.split(":").map((g) => BigInt(`0x${g}`)));
    const left = groups(head);
    const right = groups(tail);
    const all = tail === undefined ? left : [...left, ...Array<bigint>(8 - left.length - right.length).fill(0n), ...right];
    const lo = all.reduce((acc, g) => (acc << 16n) | g, 0n);
    return { family: 6, lo, hi: lo + (1n << BigInt(128 - length)) - 1n, length };
  }
  const lo = address.split(".").reduce((acc, o) => (acc << 8n) | BigInt(o), 0n);
  return { family: 4, lo, hi: lo + (1n << BigInt(32 - length)) - 1n, length };
}

export function textOf(block: Block): string {
  if (block.family === 4) {
    const v = block.lo;
    return `${[24n, 16n, 8n, 0n].map((s) => ((v >> s) & 255n).toString()).join(".")}/${block.length}`;
  }
  const groups = [112n, 96n, 80n, 64n, 48n, 32n, 16n, 0n].map((s) => Number((block.lo >> s) & 0xffffn));
  // RFC 5952: the first longest run of two or more zero groups becomes "::".
  let best = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; i++) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      best = i;
      bestLength = j - i;
    }
  }
  const hex = (gs: number[]) => gs.map((g) => g.toString(16)).join(":");
  const text = best < 0 ? hex(groups) : `${hex(groups.slice(0, best))}::${hex(groups.slice(best + bestLength))}`;
  return `${text}/${block.length}`;
}

const contains = (outer: Block, inner: Block) => outer.family === inner.family && outer.lo <= inner.lo && inner.hi <= outer.hi;
const overlaps = (a: Block, b: Block) => a.family === b.family && a.lo <= b.hi && b.lo <= a.hi;
const sizeOf = (b: Block) => b.hi - b.lo + 1n;

/** The union size of blocks (they are CIDR blocks: nested or disjoint). */
function unionSize(blocks: Block[]): bigint {
  const top = blocks.filter(
    (b) => !blocks.some((o) => o !== b && contains(o, b) && !(o.lo === b.lo && o.hi === b.hi && blocks.indexOf(o) > blocks.indexOf(b))),
  );
  return top.reduce((sum, b) => sum + sizeOf(b), 0n);
}

/** Free space of `pool` minus `used`, as maximal aligned blocks in address order. */
function freeBlocks(pool: Block, used: Block[]): Block[] {
  const result: Block[] = [];
  const visit = (b: Block) => {
    if (used.some((u) => contains(u, b))) return;
    if (!used.some((u) => overlaps(u, b))) {
      result.push(b);
      return;
    }
    const half = 1n << BigInt(bitsOf(b.family) - b.length - 1);
    visit({ family: b.family, lo: b.lo, hi: b.lo + half - 1n, length: b.length + 1 });
    visit({ family: b.family, lo: b.lo + half, hi: b.hi, length: b.length + 1 });
  };
  visit(pool);
  return result;
}

const RANGES = [...IPV4_SPECIAL_PURPOSE, ...IPV6_SPECIAL_PURPOSE]
  .filter((r) => !r.prefix.startsWith("::ffff:"))
  .map((r) => blockOf(r.prefix));

export class RegistryModel {
  claims: ModelClaim[] = [];
  generation = 0;
  private grants = 0;

  constructor(private readonly wellKnown: readonly string[]) {}

  private find(name: string): ModelClaim | undefined {
    return this.claims.find((c) => c.name === name);
  }

  granted(): ModelRecord[] {
    return this.claims.flatMap((c) => [...c.declared, ...c.allocations]).filter((r) => r.grantedAt !== undefined);
  }

  /** Equal prefixes: the shallower record in the delegation chain first, then claim order, allocated before carve-outs. */
  private samePrefixOrder(a: ModelRecord, b: ModelRecord): number {
    const depth = (r: ModelRecord) => this.ancestors(r.parent).length;
    const claimIndex = (r: ModelRecord) => this.claims.findIndex((c) => c.name === r.claim);
    return depth(a) - depth(b) || claimIndex(a) - claimIndex(b) || Number(a.spec.carveOut) - Number(b.spec.carveOut);
  }

  private children(record: ModelRecord): ModelRecord[] {
    return this.granted().filter((r) => r.parent === record);
  }

  private carveOutOf(owner: string, target: Block): ModelRecord | undefined {
    return this.granted()
      .filter((r) => r.spec.carveOut && r.claim === owner && contains(r.block, target))
      .sort((a, b) => a.block.length - b.block.length)[0];
  }

  private ancestors(parent: ModelRecord | undefined): ModelRecord[] {
    const chain: ModelRecord[] = [];
    for (let p = parent; p !== undefined; p = p.parent) chain.push(p);
    return chain;
  }

  /** The parent a record names, if granted. */
  parentOf(spec: ModelSpec): ModelRecord | undefined {
    if (spec.parent === undefined) return undefined;
    const target = blockOf(spec.parent.prefix);
    return this.granted().find(
      (r) =>
        !r.spec.carveOut &&
        r.claim === spec.parent!.claim &&
        r.block.lo === target.lo &&
        r.block.length === target.length &&
        r.block.family === target.family,
    );
  }

  /** The first rule a record breaks (see the README's overlap policy), or undefined when it may be granted. */
  place(claim: string, block: Block, spec: ModelSpec): ModelConflict | undefined {
    let parent: ModelRecord | undefined;
    if (spec.parent !== undefined) {
      parent = this.parentOf(spec);
      if (parent === undefined) return { reason: "ParentNotFound", claim: spec.parent.claim, prefix: spec.parent.prefix };
      if (!contains(parent.block, block)) return { reason: "OutsideParent", claim: parent.claim, prefix: parent.spec.prefix };
      const delegable = parent.claim === claim || (parent.spec.delegateTo ?? []).some((d) => d === claim || d === "*");
      if (!delegable) return { reason: "NotDelegable", claim: parent.claim, prefix: parent.spec.prefix };
      const hole = this.carveOutOf(parent.claim, block);
      if (hole !== undefined) return { reason: "InsideExclusion", claim: parent.claim, prefix: hole.spec.prefix };
    }
    const chain = this.ancestors(parent);
    const candidates = this.granted().filter((g) => !g.spec.carveOut && overlaps(g.block, block) && !chain.includes(g));
    // The registry reports the first blocker in its index order: supernets shortest first, then subnets in address order.
    const order = (g: ModelRecord): [number, bigint, number] =>
      g.block.length <= block.length ? [0, 0n, g.block.length] : [1, g.block.lo, g.block.length];
    candidates.sort((a, b) => {
      const x = order(a);
      const y = order(b);
      for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
      return this.samePrefixOrder(a, b);
    });
    for (const g of candidates) {
      const relation = g.block.length === block.length ? "equal" : g.block.length < block.length ? "inside" : "contains";
      if (g.claim !== claim) {
        if (relation !== "contains" && this.carveOutOf(g.claim, block) !== undefined) continue;
        if (relation !== "inside" && this.carveOutOf(claim, g.block) !== undefined) continue;
      }
      return { reason: "Overlap", claim: g.claim, prefix: g.spec.prefix, relation };
    }
    return undefined;
  }

  /** Where a nearest-free search looks: the parent, or the innermost special-purpose range around the prefix. */
  searchBound(block: Block, spec: ModelSpec): Block {
    const parent = this.parentOf(spec);
    if (parent !== undefined) return parent.block;
    const innermost = RANGES.filter((r) => contains(r, block)).sort((a, b) => b.length - a.length)[0];
    if (innermost !== undefined && innermost.length < block.length) return innermost;
    return { family: block.family, lo: 0n, hi: (1n << BigInt(bitsOf(block.family))) - 1n, length: 0 };
  }

  /** Decide refused records again, in claim order, restarting after every grant. */
  private settle(): void {
    for (;;) {
      const waiting = this.claims.flatMap((c) => c.declared).filter((r) => !r.spec.carveOut && r.grantedAt === undefined);
      const next = waiting.find((r) => this.place(r.claim, r.block, r.spec) === undefined);
      if (next === undefined) break;
      next.parent = this.parentOf(next.spec);
      next.grantedAt = this.grants++;
      next.conflict = undefined;
    }
    for (const r of this.claims.flatMap((c) => c.declared)) {
      if (!r.spec.carveOut && r.grantedAt === undefined) r.conflict = this.place(r.claim, r.block, r.spec);
    }
  }

  private record(claim: string, spec: ModelSpec, allocation: boolean): ModelRecord {
    return { claim, spec, block: blockOf(spec.prefix), allocation, grantedAt: undefined, parent: undefined, conflict: undefined };
  }

  claim(name: string, specs: ModelSpec[]): void {
    const existing = this.find(name);
    const key = (s: ModelSpec) => JSON.stringify([s.prefix, s.carveOut, s.parent ?? null]);
    const full = (s: ModelSpec) =>
      JSON.stringify([s.prefix, s.carveOut, s.parent ?? null, s.description ?? null, s.delegateTo ?? null, s.reference]);
    if (existing !== undefined) {
      const current = existing.declared.map((r) => full(r.spec));
      if (JSON.stringify(current) === JSON.stringify(specs.map(full))) return;
      if (this.wellKnown.includes(name) && !current.every((c) => specs.some((s) => full(s) === c))) throw new ModelError("claim-mismatch");
      const keptKeys = new Set(specs.map(key));
      const dropped = existing.declared.filter((r) => !keptKeys.has(key(r.spec)));
      // Dependants: delegations hanging on dropped records, delegates losing permission, records relying on a dropped carve-out.
      for (const r of dropped) if (this.children(r).some((c) => !dropped.includes(c))) throw new ModelError("has-dependants");
      for (const r of existing.declared.filter((d) => keptKeys.has(key(d.spec)))) {
        const spec = specs.find((s) => key(s) === key(r.spec))!;
        for (const c of this.children(r)) {
          if (c.claim !== name && !(spec.delegateTo ?? []).some((d) => d === c.claim || d === "*")) throw new ModelError("has-dependants");
        }
      }
      const keptOuter = existing.declared.filter((d) => keptKeys.has(key(d.spec)) && d.grantedAt !== undefined && !d.spec.carveOut);
      const remainingHoles = specs.filter((s) => s.carveOut).map((s) => blockOf(s.prefix));
      for (const hole of dropped.filter((r) => r.spec.carveOut)) {
        for (const inner of this.granted().filter((g) => !g.spec.carveOut && g.claim !== name && contains(hole.block, g.block))) {
          if (remainingHoles.some((h) => contains(h, inner.block))) continue;
          if (keptOuter.some((o) => contains(o.block, inner.block) && !this.ancestors(inner.parent).includes(o)))
            throw new ModelError("has-dependants");
        }
      }
    }
    const state = existing ?? { name, declared: [], allocations: [] };
    if (existing === undefined) this.claims.push(state);
    state.declared = specs.map((spec) => {
      const old = existing?.declared.find((r) => key(r.spec) === key(spec));
      if (old !== undefined) {
        old.spec = spec;
        return old;
      }
      const record = this.record(name, spec, false);
      if (spec.carveOut) record.grantedAt = this.grants++;
      return record;
    });
    this.settle();
    this.generation++;
  }

  release(name: string, cascade: boolean): boolean {
    const state = this.find(name);
    if (state === undefined) return false;
    const own = [...state.declared, ...state.allocations];
    const outside = own.flatMap((r) => this.children(r)).filter((c) => !own.includes(c));
    if (outside.length > 0 && !cascade) throw new ModelError("has-dependants");
    for (const c of outside) this.releaseTree(c);
    this.claims = this.claims.filter((c) => c !== state);
    this.settle();
    this.generation++;
    return true;
  }

  private releaseTree(record: ModelRecord): void {
    for (const c of this.children(record)) this.releaseTree(c);
    record.grantedAt = undefined;
    record.parent = undefined;
    if (record.allocation) {
      const state = this.find(record.claim)!;
      state.allocations = state.allocations.filter((a) => a !== record);
    }
  }

  releaseRecord(name: string, prefix: string, cascade: boolean): boolean {
    const state = this.find(name);
    if (state === undefined) return false;
    const record = state.allocations.find((a) => a.spec.prefix === prefix);
    if (record === undefined) {
      if (state.declared.some((r) => r.spec.prefix === prefix)) throw new ModelError("invalid-argument");
      return false;
    }
    if (this.children(record).length > 0 && !cascade) throw new ModelError("has-dependants");
    this.releaseTree(record);
    this.settle();
    this.generation++;
    return true;
  }

  /** The pool a claim allocates from at a prefix: its own record first, else the shallowest one that delegates to it. */
  private pool(prefix: string, claim: string): ModelRecord {
    const target = blockOf(prefix);
    const here = this.granted()
      .filter((g) => !g.spec.carveOut && g.block.family === target.family && g.block.lo === target.lo && g.block.length === target.length)
      .sort((a, b) => this.samePrefixOrder(a, b));
    if (here.length === 0) throw new ModelError("pool-not-found");
    const pool = here.find((g) => g.claim === claim) ?? here.find((g) => (g.spec.delegateTo ?? []).some((d) => d === claim || d === "*"));
    if (pool === undefined) throw new ModelError("not-delegable");
    return pool;
  }

  /**
   * What takes space from a pool: granted records inside it, except its ancestors and other
   * claims' carve-outs; all of it when its owner carved out a range around it.
   */
  used(pool: ModelRecord): Block[] {
    const chain = this.ancestors(pool.parent);
    if (this.granted().some((g) => g.spec.carveOut && g.claim === pool.claim && contains(g.block, pool.block))) return [pool.block];
    return this.granted()
      .filter((g) => g !== pool && !chain.includes(g) && contains(pool.block, g.block) && !(g.spec.carveOut && g.claim !== pool.claim))
      .map((g) => g.block);
  }

  /** Utilization's `used` of the first allocated record at a prefix (the pool, not a delegate). */
  usedOf(prefix: string): bigint | undefined {
    const target = blockOf(prefix);
    const pool = this.granted()
      .filter((g) => !g.spec.carveOut && g.block.family === target.family && g.block.lo === target.lo && g.block.length === target.length)
      .sort((a, b) => this.samePrefixOrder(a, b))[0];
    return pool === undefined ? undefined : unionSize(this.used(pool));
  }

  allocate(claim: string, from: string, length: number, strategy: "best-fit" | "first-fit", reference: ModelRef): string {
    const poolBlock = blockOf(from);
    if (length < poolBlock.length || length > bitsOf(poolBlock.family)) throw new ModelError("invalid-argument");
    const pool = this.pool(from, claim);
    if (length === poolBlock.length && pool.claim === claim) throw new ModelError("invalid-argument");
    const fitting = freeBlocks(pool.block, this.used(pool)).filter((b) => b.length <= length);
    if (fitting.length === 0) throw new ModelError("pool-exhausted");
    // first-fit: the lowest address; best-fit: the smallest block that fits, lowest first.
    const chosen = strategy === "first-fit" ? fitting[0]! : [...fitting].sort((a, b) => b.length - a.length || (a.lo < b.lo ? -1 : 1))[0]!;
    const block: Block = {
      family: chosen.family,
      lo: chosen.lo,
      hi: chosen.lo + (1n << BigInt(bitsOf(chosen.family) - length)) - 1n,
      length,
    };
    const prefix = textOf(block);
    // The block must be one the claim could hold by the overlap rules, delegated from the pool.
    if (
      this.place(claim, block, { reference, prefix, carveOut: false, parent: { claim: pool.claim, prefix: pool.spec.prefix } }) !==
      undefined
    )
      throw new ModelError("invalid-argument");
    let state = this.find(claim);
    if (state === undefined) {
      state = { name: claim, declared: [], allocations: [] };
      this.claims.push(state);
    }
    const record = this.record(
      claim,
      { reference, prefix, carveOut: false, parent: { claim: pool.claim, prefix: pool.spec.prefix } },
      true,
    );
    record.parent = pool;
    record.grantedAt = this.grants++;
    state.allocations.push(record);
    this.settle();
    this.generation++;
    return prefix;
  }

  /** The most specific allocated record holding an address (equal prefixes: the delegate over its pool, then the later claim). */
  owner(address: Block): ModelRecord | undefined {
    return this.granted()
      .filter((g) => !g.spec.carveOut && contains(g.block, address))
      .sort((a, b) => b.block.length - a.block.length || this.samePrefixOrder(b, a))[0];
  }

  /** A carve-out carves something out when an allocated declared record of its own claim contains it. */
  carvesNothing(record: ModelRecord): boolean {
    const state = this.find(record.claim)!;
    return !state.declared.some((r) => !r.spec.carveOut && r.grantedAt !== undefined && contains(r.block, record.block));
  }
}

/** Candidates of the same size as `block` inside `bound`, nearest first (ties: the higher one first), at most `limit`. */
export function* nearestCandidates(block: Block, bound: Block, limit: number): Generator<Block> {
  const step = 1n << BigInt(bitsOf(block.family) - block.length);
  const origin = block.lo < bound.lo ? bound.lo : block.lo > bound.hi ? bound.hi - step + 1n : block.lo;
  const at = (lo: bigint): Block => ({ family: block.family, lo, hi: lo + step - 1n, length: block.length });
  const inBound = (lo: bigint) => lo >= bound.lo && lo + step - 1n <= bound.hi;
  const all: bigint[] = [];
  for (let k = 0n; all.length < limit && k <= BigInt(limit); k++) {
    for (const lo of k === 0n ? [origin] : [origin + k * step, origin - k * step]) if (inBound(lo)) all.push(lo);
  }
  const distance = (lo: bigint) => (lo > block.lo ? lo - block.lo : block.lo - lo);
  all.sort((a, b) => (distance(a) === distance(b) ? (a > b ? -1 : 1) : distance(a) < distance(b) ? -1 : 1));
  for (const lo of all) yield at(lo);
}
