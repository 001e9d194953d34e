import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isNetworkRegistryError } from "./errors.js";
import { IPAddress } from "./address.js";
import { parsePrefix } from "./parse.js";
import { Prefix } from "./prefix.js";
import { NetworkRegistry, type RegistrySnapshot } from "./registry.js";
import { blockOf, ModelError, nearestCandidates, RegistryModel, textOf, type Block, type ModelSpec } from "./registry.model.js";
import { SpecialPurposePolicy } from "./special-purpose.js";
import { IPV4_SPECIAL_PURPOSE, IPV6_SPECIAL_PURPOSE } from "./special-purpose-table.js";
import type { AddressRecord, NetworkClaim } from "./types.js";
import type { IPFamily } from "./words.js";

/*
 * The lifecycle acceptance test: random sequences of claim, update, re-apply, release (with and
 * without cascade), allocate, release of allocations and snapshot/restore, on IPv4 and IPv6,
 * run against the registry and against the independent model in registry.model.ts. After every
 * step the full state and every answer are compared; a refused call must throw the model's
 * error code and leave the registry byte-for-byte unchanged.
 */

/** The overlap rules are tested on their own: every special-purpose range is allowed here. */
const allowAll = new SpecialPurposePolicy(
  [...IPV4_SPECIAL_PURPOSE, ...IPV6_SPECIAL_PURPOSE, { prefix: "0.0.0.0/0" }, { prefix: "::/0" }]
    .filter((r) => !r.prefix.startsWith("::ffff:"))
    .map((r) => ({ prefix: r.prefix, action: "allow" as const })),
);
const clock = () => new Date("2026-01-01T00:00:00.000Z");
const WELL_KNOWN = ["kube-apiserver"];
const NAMES = ["alpha", "beta", "gamma", "kube-apiserver"];
const pods = { group: "", resource: "pods" };

function prefixArbitrary(family: IPFamily): fc.Arbitrary<string> {
  const base =
    family === 4
      ? fc.constantFrom("10.0.0.0", "10.96.0.0", "10.96.128.0", "10.1.2.0")
      : fc.constantFrom("fd00::", "fd00:0:96::", "fd00:0:96:8000::", "fd00:1:2::");
  const length = family === 4 ? fc.integer({ min: 8, max: 26 }) : fc.integer({ min: 16, max: 66 });
  return fc
    .tuple(base, length)
    .map(([address, l]) => Prefix.from(parsePrefix(`${address}/${family === 4 ? 32 : 128}`).first(), l).toString());
}

const specArbitrary = (family: IPFamily) =>
  fc.record({
    prefix: prefixArbitrary(family),
    carveOut: fc.boolean(),
    parentPick: fc.option(fc.nat(60), { nil: undefined }),
    delegateTo: fc.option(fc.subarray([...NAMES, "*"], { maxLength: 2 }), { nil: undefined }),
    description: fc.option(fc.constantFrom("pods", "nodes"), { nil: undefined }),
  });

type GeneratedSpec = ReturnType<typeof specArbitrary> extends fc.Arbitrary<infer T> ? T : never;

const operationArbitrary = (family: IPFamily) =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({
        op: fc.constant("claim" as const),
        name: fc.constantFrom(...NAMES),
        specs: fc.array(specArbitrary(family), { maxLength: 3 }),
      }),
    },
    {
      weight: 3,
      arbitrary: fc.record({
        op: fc.constant("update" as const),
        pick: fc.nat(),
        change: fc.constantFrom("metadata", "add", "remove", "same"),
        spec: specArbitrary(family),
      }),
    },
    { weight: 2, arbitrary: fc.record({ op: fc.constant("release" as const), pick: fc.nat(), cascade: fc.boolean() }) },
    {
      weight: 4,
      arbitrary: fc.record({
        op: fc.constant("allocate" as const),
        name: fc.constantFrom(...NAMES),
        pick: fc.nat(),
        extra: fc.integer({ min: 0, max: 6 }),
        firstFit: fc.boolean(),
      }),
    },
    { weight: 2, arbitrary: fc.record({ op: fc.constant("releaseAllocation" as const), pick: fc.nat(), cascade: fc.boolean() }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant("restore" as const) }) },
    { weight: 1, arbitrary: fc.record({ op: fc.constant("invalid" as const), name: fc.constantFrom(...NAMES) }) },
    {
      weight: 2,
      arbitrary: fc.record({ op: fc.constant("check" as const), name: fc.constantFrom(...NAMES, "newcomer"), spec: specArbitrary(family) }),
    },
  );

type Operation = ReturnType<typeof operationArbitrary> extends fc.Arbitrary<infer T> ? T : never;

/** Turn generated data into a spec; parents point at records the model knows (or at nothing). */
function toSpecs(model: RegistryModel, generated: GeneratedSpec[]): ModelSpec[] {
  const known = model.claims.flatMap((c) => [...c.declared, ...c.allocations]).filter((r) => !r.spec.carveOut);
  const seen = new Set<string>();
  const specs: ModelSpec[] = [];
  for (const g of generated) {
    if (seen.has(g.prefix)) continue;
    seen.add(g.prefix);
    const spec: ModelSpec = { reference: pods, prefix: g.prefix, carveOut: g.carveOut };
    if (!g.carveOut && g.parentPick !== undefined && known.length > 0) {
      const parent = known[g.parentPick % known.length]!;
      spec.parent = { claim: parent.claim, prefix: parent.spec.prefix };
    }
    if (g.delegateTo !== undefined) spec.delegateTo = g.delegateTo;
    if (g.description !== undefined) spec.description = g.description;
    specs.push(spec);
  }
  return specs;
}

function toRecord(spec: ModelSpec): AddressRecord {
  const record: AddressRecord = { reference: spec.reference, prefix: spec.prefix };
  if (spec.description !== undefined) record.description = spec.description;
  if (spec.carveOut) record.status = "unavailable";
  if (spec.parent !== undefined) record.parent = spec.parent;
  if (spec.delegateTo !== undefined) record.delegateTo = spec.delegateTo;
  return record;
}

function toClaim(name: string, specs: ModelSpec[]): NetworkClaim {
  return { metadata: { name }, spec: { addressSpace: specs.map(toRecord) } };
}

/** Run one call on both sides: the same result, or the same error code with the registry unchanged. */
function both<T>(registry: NetworkRegistry, model: RegistryModel, ours: () => T, theirs: () => T): T | undefined {
  const before = JSON.stringify(registry.snapshot());
  let expected: T | undefined;
  let expectedError: string | undefined;
  try {
    expected = theirs();
  } catch (error) {
    if (!(error instanceof ModelError)) throw error;
    expectedError = error.code;
  }
  let actual: T | undefined;
  try {
    actual = ours();
  } catch (error) {
    expect(isNetworkRegistryError(error), String(error)).toBe(true);
    expect((error as { code: string }).code, (error as Error).message).toBe(expectedError);
    expect(JSON.stringify(registry.snapshot())).toBe(before);
    return undefined;
  }
  expect(expectedError, "the registry accepted what the model refuses").toBeUndefined();
  expect(actual).toEqual(expected);
  return actual;
}

/** Check a suggestion: free for the claim by the model's rules, and no free candidate nearer (within a window). */
function assertNearest(model: RegistryModel, claim: string, spec: ModelSpec, suggested: string | undefined): void {
  const block = blockOf(spec.prefix);
  const bound = model.searchBound(block, spec);
  if (block.length < bound.length) {
    expect(suggested).toBeUndefined();
    return;
  }
  const free = (candidate: Block) => model.place(claim, candidate, { ...spec, prefix: textOf(candidate) }) === undefined;
  let first: string | undefined;
  for (const candidate of nearestCandidates(block, bound, 256)) {
    if (free(candidate)) {
      first = textOf(candidate);
      break;
    }
  }
  if (first !== undefined) expect(suggested).toBe(first);
  else if (suggested !== undefined) expect(free(blockOf(suggested)), `${suggested} is not free`).toBe(true);
}

function compare(registry: NetworkRegistry, model: RegistryModel, family: IPFamily, probes: readonly bigint[]): void {
  expect(registry.generation).toBe(model.generation);
  const claims = registry.list();
  expect(claims.map((c) => c.metadata.name)).toEqual(model.claims.map((c) => c.name));
  claims.forEach((claim, i) => {
    const state = model.claims[i]!;
    expect(claim.spec.addressSpace).toEqual(state.declared.map((r) => toRecord(r.spec)));
    claim.status!.addressSpace.forEach((status, k) => {
      const record = state.declared[k]!;
      const at = `${claim.metadata.name} ${status.prefix}`;
      if (record.spec.carveOut) {
        expect(status.status, at).toBe("unavailable");
        expect(status.conflict, at).toBeUndefined();
        expect(status.warnings !== undefined, `${at} carve-out warning`).toBe(model.carvesNothing(record));
        return;
      }
      expect(status.status, at).toBe(record.grantedAt === undefined ? "unavailable" : "allocated");
      if (record.conflict === undefined) {
        expect(status.conflict, at).toBeUndefined();
        return;
      }
      const { reason, claim: blocker, prefix, relation } = status.conflict!;
      expect({ reason, claim: blocker, prefix, relation }, at).toEqual({ relation: undefined, ...record.conflict });
      if (["Overlap", "InsideExclusion", "OutsideParent"].includes(reason))
        assertNearest(model, claim.metadata.name, record.spec, status.conflict!.nearestFree);
    });
  });
  expect(registry.allocations().map((a) => `${a.claim} ${a.record.prefix} ${a.record.parent!.claim} ${a.record.parent!.prefix}`)).toEqual(
    model.claims.flatMap((c) =>
      [...c.allocations]
        .sort((a, b) => (a.block.lo < b.block.lo ? -1 : a.block.lo > b.block.lo ? 1 : a.block.length - b.block.length))
        .map((a) => `${c.name} ${a.spec.prefix} ${a.parent!.claim} ${a.parent!.spec.prefix}`),
    ),
  );
  const granted = (list: { claim: string; record: AddressRecord }[]) =>
    list.map((r) => `${r.claim} ${r.record.prefix} ${r.record.status!}`).sort();
  expect(granted(registry.records())).toEqual(
    model
      .granted()
      .map((r) => `${r.claim} ${r.spec.prefix} ${r.spec.carveOut ? "unavailable" : "allocated"}`)
      .sort(),
  );
  for (const value of probes) {
    const address = new IPAddress(
      family,
      ...(family === 4
        ? ([Number(value), 0, 0, 0] as const)
        : ([
            Number(value >> 96n),
            Number((value >> 64n) & 0xffffffffn),
            Number((value >> 32n) & 0xffffffffn),
            Number(value & 0xffffffffn),
          ] as const)),
    );
    const owner = model.owner({ family, lo: value, hi: value, length: family === 4 ? 32 : 128 });
    const who = registry.whois(address.toString()).mostSpecific;
    expect(who === undefined ? undefined : `${who.claim} ${who.record.prefix}`, `whois ${address.toString()}`).toBe(
      owner === undefined ? undefined : `${owner.claim} ${owner.spec.prefix}`,
    );
  }
  for (const record of model.granted().filter((r) => !r.spec.carveOut)) {
    expect(registry.utilization(record.spec.prefix).used, `used of ${record.spec.prefix}`).toBe(
      model.usedOf(record.spec.prefix)!.toString(),
    );
  }
}

function step(registry: NetworkRegistry, model: RegistryModel, operation: Operation): NetworkRegistry {
  switch (operation.op) {
    case "claim": {
      const specs = toSpecs(model, operation.specs);
      both(
        registry,
        model,
        () => {
          registry.claim(toClaim(operation.name, specs));
        },
        () => {
          model.claim(operation.name, specs);
        },
      );
      return registry;
    }
    case "update": {
      const state = model.claims.filter((c) => c.declared.length > 0)[operation.pick % Math.max(1, model.claims.length)];
      if (state === undefined) return registry;
      const specs = state.declared.map((r) => structuredClone(r.spec));
      const k = operation.pick % specs.length;
      if (operation.change === "metadata") {
        specs[k] = { ...specs[k]!, description: specs[k]!.description === "changed" ? "again" : "changed" };
        if (operation.spec.delegateTo !== undefined) specs[k].delegateTo = operation.spec.delegateTo;
        else delete specs[k].delegateTo;
      } else if (operation.change === "add") {
        specs.push(...toSpecs(model, [operation.spec]).filter((s) => !specs.some((o) => o.prefix === s.prefix)));
      } else if (operation.change === "remove") {
        specs.splice(k, 1);
      }
      both(
        registry,
        model,
        () => {
          registry.claim(toClaim(state.name, specs));
        },
        () => {
          model.claim(state.name, specs);
        },
      );
      return registry;
    }
    case "release": {
      const name = [...NAMES][operation.pick % NAMES.length]!;
      both(
        registry,
        model,
        () => registry.release(name, { cascade: operation.cascade }),
        () => model.release(name, operation.cascade),
      );
      return registry;
    }
    case "allocate": {
      const pools = model.granted().filter((r) => !r.spec.carveOut);
      const pool = pools[operation.pick % Math.max(1, pools.length)];
      if (pool === undefined) return registry;
      const length = Math.min(pool.block.length + operation.extra, pool.block.family === 4 ? 32 : 128);
      const strategy = operation.firstFit ? ("first-fit" as const) : ("best-fit" as const);
      both(
        registry,
        model,
        () => registry.allocate({ claim: operation.name, reference: pods, from: pool.spec.prefix, prefixLength: length, strategy }).prefix,
        () => model.allocate(operation.name, pool.spec.prefix, length, strategy, pods),
      );
      return registry;
    }
    case "releaseAllocation": {
      const records = model.claims.flatMap((c) => [...c.allocations, ...c.declared]);
      const record = records[operation.pick % Math.max(1, records.length)];
      if (record === undefined) return registry;
      both(
        registry,
        model,
        () => registry.releaseRecord(record.claim, record.spec.prefix, { cascade: operation.cascade }),
        () => model.releaseRecord(record.claim, record.spec.prefix, operation.cascade),
      );
      return registry;
    }
    case "restore": {
      const restored = NetworkRegistry.restore(JSON.parse(JSON.stringify(registry.snapshot())) as RegistrySnapshot, {
        policy: allowAll,
        clock,
        wellKnownClaims: WELL_KNOWN,
      });
      expect(restored.snapshot()).toEqual(registry.snapshot());
      return restored;
    }
    case "invalid": {
      const before = JSON.stringify(registry.snapshot());
      expect(() => registry.claim(toClaim(operation.name, [{ reference: pods, prefix: "10.0.0.1/24", carveOut: false }]))).toThrow(
        /host bits set/,
      );
      expect(JSON.stringify(registry.snapshot())).toBe(before);
      return registry;
    }
    case "check": {
      const spec = toSpecs(model, [{ ...operation.spec, carveOut: false }])[0]!;
      const result = registry.check(operation.name, toRecord(spec));
      const conflict = model.place(operation.name, blockOf(spec.prefix), spec);
      expect(result.status).toBe(conflict === undefined ? "allocated" : "unavailable");
      if (conflict !== undefined) {
        const { reason, claim, prefix, relation } = result.conflict!;
        expect({ reason, claim, prefix, relation }).toEqual({ relation: undefined, ...conflict });
        if (["Overlap", "InsideExclusion", "OutsideParent"].includes(reason))
          assertNearest(model, operation.name, spec, result.conflict!.nearestFree);
      }
      return registry;
    }
  }
}

describe("NetworkRegistry lifecycle against an independent model", () => {
  it.each([4, 6] as const)("agrees on every state and answer over random operation sequences (IPv%s)", { timeout: 120_000 }, (family) => {
    const probe =
      family === 4
        ? fc.constantFrom(0x0a000000n, 0x0a600000n, 0x0a608000n, 0x0a010200n, 0x0a0102ffn, 0x0a60ffffn)
        : fc.constantFrom(
            0xfd00n << 112n,
            (0xfd00n << 112n) | (0x96n << 80n),
            (0xfd00n << 112n) | (0x96n << 80n) | (0x8000n << 64n),
            (0xfd00n << 112n) | (1n << 96n) | (2n << 80n),
          );
    fc.assert(
      fc.property(
        fc.array(operationArbitrary(family), { minLength: 1, maxLength: 24 }),
        fc.array(probe, { minLength: 1, maxLength: 3 }),
        (operations, probes) => {
          let registry = new NetworkRegistry({ policy: allowAll, clock, wellKnownClaims: WELL_KNOWN });
          const model = new RegistryModel(WELL_KNOWN);
          for (const operation of operations) {
            registry = step(registry, model, operation);
            compare(registry, model, family, probes);
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});
