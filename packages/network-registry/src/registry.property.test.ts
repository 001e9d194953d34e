import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parsePrefix } from "./parse.js";
import { Prefix } from "./prefix.js";
import { NetworkRegistry } from "./registry.js";
import { SpecialPurposePolicy } from "./special-purpose.js";
import { IPV4_SPECIAL_PURPOSE, IPV6_SPECIAL_PURPOSE } from "./special-purpose-table.js";
import { oracleContains, oracleOverlaps, range } from "./test-support.js";
import type { AddressRecord, NetworkClaim } from "./types.js";
import type { IPFamily } from "./words.js";

/** The overlap rules are tested on their own: every special-purpose range is allowed here. */
const allowAll = new SpecialPurposePolicy(
  [...IPV4_SPECIAL_PURPOSE, ...IPV6_SPECIAL_PURPOSE, { prefix: "0.0.0.0/0" }, { prefix: "::/0" }]
    .filter((r) => !r.prefix.startsWith("::ffff:"))
    .map((r) => ({ prefix: r.prefix, action: "allow" as const })),
);
const clock = () => new Date("2026-01-01T00:00:00.000Z");
const CLAIMS = ["alpha", "beta", "gamma", "delta"];

/** Prefixes drawn from a few nested bases so that overlaps, nesting and equality are frequent. */
function nestedPrefix(family: IPFamily): fc.Arbitrary<Prefix> {
  const base =
    family === 4
      ? fc.constantFrom("10.0.0.0", "10.96.0.0", "10.96.128.0", "10.1.2.0")
      : fc.constantFrom("fd00::", "fd00:0:96::", "fd00:0:96:8000::", "fd00:1:2::");
  const length = family === 4 ? fc.integer({ min: 8, max: 24 }) : fc.integer({ min: 16, max: 64 });
  return fc.tuple(base, length).map(([address, l]) => Prefix.from(parsePrefix(`${address}/${family === 4 ? 32 : 128}`).first(), l));
}

interface GeneratedRecord {
  prefix: Prefix;
  carveOut: boolean;
  parentPick: number | undefined;
  delegateTo: string[] | undefined;
}

function claimsArbitrary(family: IPFamily) {
  const record = fc.record({
    prefix: nestedPrefix(family),
    carveOut: fc.boolean(),
    parentPick: fc.option(fc.nat(40), { nil: undefined }),
    delegateTo: fc.option(fc.subarray([...CLAIMS, "*"], { maxLength: 2 }), { nil: undefined }),
  });
  return fc.array(fc.tuple(fc.constantFrom(...CLAIMS), fc.array(record, { minLength: 1, maxLength: 4 })), { minLength: 1, maxLength: 8 });
}

/** Turn generated data into claims; parents point at earlier generated records. */
function buildClaims(generated: [string, GeneratedRecord[]][]): NetworkClaim[] {
  const earlier: { claim: string; prefix: string }[] = [];
  return generated.map(([name, records]) => {
    const seen = new Set<string>();
    const addressSpace: AddressRecord[] = [];
    for (const r of records) {
      const prefix = r.prefix.toString();
      if (seen.has(prefix)) continue;
      seen.add(prefix);
      const record: AddressRecord = { reference: { group: "", resource: "pods" }, prefix };
      if (r.carveOut) record.status = "unavailable";
      else if (r.parentPick !== undefined && earlier.length > 0) record.parent = earlier[r.parentPick % earlier.length]!;
      if (r.delegateTo !== undefined) record.delegateTo = r.delegateTo;
      addressSpace.push(record);
    }
    for (const r of addressSpace) earlier.push({ claim: name, prefix: r.prefix });
    return { metadata: { name }, spec: { addressSpace } };
  });
}

interface OracleGrant {
  claim: string;
  prefix: Prefix;
  carveOut: boolean;
  parent: OracleGrant | undefined;
  delegateTo: string[] | undefined;
}

/** Brute force: a flat list and linear scans over BigInt intervals, written from the rules in the README. */
function oracle(claims: NetworkClaim[]): Map<string, string> {
  const granted: OracleGrant[] = [];
  const outcome = new Map<string, string>();
  const carvedBy = (owner: string, target: Prefix) =>
    granted.some((g) => g.carveOut && g.claim === owner && oracleContains(g.prefix, target));
  const delegable = (g: OracleGrant, claim: string) => g.claim === claim || (g.delegateTo ?? []).some((d) => d === claim || d === "*");
  const names = new Set<string>();
  for (const c of claims) {
    const name = c.metadata.name;
    if (names.has(name)) {
      // Re-claiming a name updates it; keep the oracle simple by only generating first claims.
      continue;
    }
    names.add(name);
    const records = c.spec.addressSpace;
    for (const r of records.filter((r) => r.status === "unavailable")) {
      granted.push({ claim: name, prefix: parsePrefix(r.prefix), carveOut: true, parent: undefined, delegateTo: undefined });
      outcome.set(`${name} ${r.prefix}`, "unavailable");
    }
    for (const r of records.filter((r) => r.status !== "unavailable")) {
      const prefix = parsePrefix(r.prefix);
      let verdict = "allocated";
      let parent: OracleGrant | undefined;
      if (r.parent !== undefined) {
        const ref = r.parent;
        parent = granted.find((g) => !g.carveOut && g.claim === ref.claim && g.prefix.toString() === ref.prefix);
        if (parent === undefined) verdict = "ParentNotFound";
        else if (!oracleContains(parent.prefix, prefix)) verdict = "OutsideParent";
        else if (!delegable(parent, name)) verdict = "NotDelegable";
        else if (granted.some((g) => g.carveOut && g.claim === parent!.claim && oracleContains(g.prefix, prefix)))
          verdict = "InsideExclusion";
      }
      if (verdict === "allocated") {
        const chain: OracleGrant[] = [];
        for (let p = parent; p !== undefined; p = p.parent) chain.push(p);
        for (const g of granted) {
          if (g.carveOut || chain.includes(g) || !oracleOverlaps(g.prefix, prefix)) continue;
          if (g.claim !== name && oracleContains(g.prefix, prefix) && carvedBy(g.claim, prefix)) continue;
          if (g.claim !== name && oracleContains(prefix, g.prefix) && carvedBy(name, g.prefix)) continue;
          verdict = "Overlap";
          break;
        }
      }
      if (verdict === "allocated") granted.push({ claim: name, prefix, carveOut: false, parent, delegateTo: r.delegateTo });
      outcome.set(`${name} ${r.prefix}`, verdict);
    }
  }
  return outcome;
}

function outcomes(registry: NetworkRegistry): Map<string, string> {
  const result = new Map<string, string>();
  for (const c of registry.list()) {
    for (const r of c.status!.addressSpace) result.set(`${c.metadata.name} ${r.prefix}`, r.conflict?.reason ?? r.status!);
  }
  return result;
}

/** The safety property: two allocated records overlap only through delegation or a carve-out. */
function assertNoUndeclaredOverlap(registry: NetworkRegistry, released: NetworkClaim[] = []): void {
  const flatten = (claims: NetworkClaim[]) =>
    claims.flatMap((c) => c.status!.addressSpace.map((r) => ({ claim: c.metadata.name, record: r, prefix: parsePrefix(r.prefix) })));
  const all = flatten(registry.list());
  // A released parent leaves its delegations in place; the chain still runs through it.
  const history = flatten(released).filter((x) => x.record.status === "allocated");
  const allocated = all.filter((x) => x.record.status === "allocated");
  const carveOuts = all.filter((x) => x.record.status === "unavailable" && x.record.conflict === undefined);
  const byKey = new Map([...history, ...allocated].map((x) => [`${x.claim} ${x.record.prefix}`, x]));
  const ancestors = (x: (typeof allocated)[number]) => {
    const chain = new Set<string>();
    for (let p = x.record.parent; p !== undefined; p = byKey.get(`${p.claim} ${p.prefix}`)?.record.parent)
      chain.add(`${p.claim} ${p.prefix}`);
    return chain;
  };
  for (const a of allocated) {
    for (const b of allocated) {
      if (a === b || !oracleOverlaps(a.prefix, b.prefix)) continue;
      // Equal prefixes may nest either way round.
      const orientations = a.prefix.equals(b.prefix)
        ? [
            [a, b],
            [b, a],
          ]
        : oracleContains(a.prefix, b.prefix)
          ? [[a, b]]
          : [[b, a]];
      const declared = orientations.some(([outer, inner]) => {
        const delegated = ancestors(inner!).has(`${outer!.claim} ${outer!.record.prefix}`);
        const carved =
          outer!.claim !== inner!.claim && carveOuts.some((c) => c.claim === outer!.claim && oracleContains(c.prefix, inner!.prefix));
        return delegated || carved;
      });
      expect(declared, `${a.claim} ${a.record.prefix} and ${b.claim} ${b.record.prefix} overlap`).toBe(true);
    }
  }
}

describe("NetworkRegistry against a brute-force oracle", () => {
  it.each([4, 6] as const)("decides every record like the oracle and never allows an undeclared overlap (IPv%s)", (family) => {
    fc.assert(
      fc.property(claimsArbitrary(family), fc.nat(), (generated, releasePick) => {
        const firstClaims = buildClaims(generated).filter((c, i, all) => all.findIndex((d) => d.metadata.name === c.metadata.name) === i);
        const registry = new NetworkRegistry({ policy: allowAll, clock });
        for (const c of firstClaims) registry.claim(c);
        expect(outcomes(registry)).toEqual(oracle(firstClaims));
        assertNoUndeclaredOverlap(registry);
        // The result depends on claim order only: a replay gives the same snapshot.
        const replay = new NetworkRegistry({ policy: allowAll, clock });
        for (const c of firstClaims) replay.claim(c);
        expect(replay.snapshot()).toEqual(registry.snapshot());
        // Releasing a claim never revokes another claim's granted record and keeps the invariant.
        const victim = firstClaims[releasePick % firstClaims.length]!.metadata.name;
        const before = outcomes(registry);
        const released = registry.get(victim)!;
        let orphans = false;
        try {
          registry.release(victim);
        } catch (error) {
          expect((error as { code?: string }).code).toBe("has-dependants");
          expect(registry.snapshot()).toEqual(replay.snapshot());
          orphans = registry.release(victim, { cascade: true });
        }
        // Without delegations from it, releasing a claim revokes nothing of the others.
        if (!orphans) for (const [key, value] of outcomes(registry)) if (before.get(key) === "allocated") expect(value).toBe("allocated");
        assertNoUndeclaredOverlap(registry, [released]);
      }),
      { numRuns: 120 },
    );
  });
});

describe("allocation against a brute-force oracle", () => {
  const cases = [
    { family: 4 as const, pool: "10.0.0.0/16", lengths: [18, 26] as const, statics: ["10.0.4.0/22", "10.0.64.0/20", "10.0.130.0/24"] },
    {
      family: 6 as const,
      pool: "fd00::/48",
      lengths: [50, 56] as const,
      statics: ["fd00:0:400::/54", "fd00:0:8000::/52", "fd00:0:c100::/56"],
    },
  ];

  it.each(cases)("first-fit takes the lowest free aligned block; free space is exact (IPv$family)", ({ pool, lengths, statics }) => {
    const poolPrefix = parsePrefix(pool);
    fc.assert(
      fc.property(
        fc.subarray(statics),
        fc.array(
          fc.oneof(
            fc.record({
              kind: fc.constant("allocate" as const),
              length: fc.integer({ min: lengths[0], max: lengths[1] }),
              firstFit: fc.boolean(),
            }),
            fc.record({ kind: fc.constant("release" as const), pick: fc.nat() }),
          ),
          { maxLength: 40 },
        ),
        (chosenStatics, operations) => {
          const registry = new NetworkRegistry({ policy: allowAll, clock });
          const carve = chosenStatics[0];
          registry.claim({
            metadata: { name: "owner" },
            spec: {
              addressSpace: [
                { reference: { group: "", resource: "pods" }, prefix: pool, delegateTo: ["*"] },
                ...(carve === undefined
                  ? []
                  : [{ reference: { group: "", resource: "services" }, prefix: carve, status: "unavailable" as const }]),
              ],
            },
          });
          for (const [i, prefix] of chosenStatics.slice(1).entries()) {
            registry.claim({
              metadata: { name: `static-${i}` },
              spec: { addressSpace: [{ reference: { group: "", resource: "nodes" }, prefix, parent: { claim: "owner", prefix: pool } }] },
            });
          }
          const occupied = (): Prefix[] =>
            registry
              .records()
              .map((r) => parsePrefix(r.record.prefix))
              .filter((p) => !p.equals(poolPrefix) && poolPrefix.contains(p));
          const mine: string[] = [];
          for (const op of operations) {
            if (op.kind === "release") {
              const victim = mine.splice(op.pick % Math.max(1, mine.length), 1)[0];
              if (victim !== undefined) expect(registry.releaseRecord("worker", victim)).toBe(true);
              continue;
            }
            const used = occupied();
            const step = 1n << BigInt(poolPrefix.bits - op.length);
            const [start, end] = range(poolPrefix);
            let lowest: bigint | undefined;
            for (let at = start; at <= end; at += step) {
              if (
                used.every((u) => {
                  const [a, b] = range(u);
                  return b < at || a > at + step - 1n;
                })
              ) {
                lowest = at;
                break;
              }
            }
            let got: string | undefined;
            try {
              got = registry.allocate({
                claim: "worker",
                reference: { group: "", resource: "nodes" },
                from: pool,
                prefixLength: op.length,
                strategy: op.firstFit ? "first-fit" : "best-fit",
              }).prefix;
            } catch {
              got = undefined;
            }
            expect(got === undefined).toBe(lowest === undefined);
            if (got === undefined) continue;
            const block = parsePrefix(got);
            expect(block.length).toBe(op.length);
            expect(used.some((u) => u.overlaps(block))).toBe(false);
            if (op.firstFit) expect(block.first().toBigInt()).toBe(lowest);
            mine.push(got);
          }
          // Free space equals the pool minus the union of everything inside it.
          const top = occupied()
            .sort((a, b) => a.compare(b))
            .filter((p, i, all) => !all.slice(0, i).some((q) => q.contains(p)));
          const used = top.reduce((sum, p) => sum + p.size(), 0n);
          const usage = registry.utilization(pool);
          expect(BigInt(usage.used)).toBe(used);
          expect(registry.freeBlocks(pool).reduce((sum, p) => sum + p.size(), 0n)).toBe(poolPrefix.size() - used);
          assertNoUndeclaredOverlap(registry);
        },
      ),
      { numRuns: 80 },
    );
  });
});
