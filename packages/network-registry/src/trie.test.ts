import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { IPAddress } from "./address.js";
import { parsePrefix } from "./parse.js";
import { Prefix } from "./prefix.js";
import { oracleContains, oracleOverlaps, prefixArbitrary, addressArbitrary } from "./test-support.js";
import { PrefixTrie } from "./trie.js";
import type { IPFamily } from "./words.js";

describe("PrefixTrie", () => {
  it("answers the questions of a small routing table", () => {
    const trie = new PrefixTrie<string>();
    trie.insert("10.0.0.0/8", "pods");
    trie.insert("10.96.0.0/12", "services");
    trie.insert("10.96.0.0/24", "dns");
    trie.insert("2001:db8::/64", "v6 services");
    expect(trie.size).toBe(4);
    expect(trie.lookup("10.96.0.10")?.value).toBe("dns");
    expect(trie.lookup("10.97.0.1")?.value).toBe("services");
    expect(trie.lookup("10.1.0.1")?.value).toBe("pods");
    expect(trie.lookup("11.0.0.1")).toBeUndefined();
    expect(trie.lookup("2001:db8::1")?.prefix.toString()).toBe("2001:db8::/64");
    expect(trie.covering("10.96.0.0/16").map((e) => e.value)).toEqual(["pods", "services"]);
    expect(trie.coveredBy("10.96.0.0/12").map((e) => e.value)).toEqual(["services", "dns"]);
    expect(trie.overlapping("10.96.0.0/16").map((e) => e.value)).toEqual(["pods", "services", "dns"]);
    expect(trie.get("10.96.0.0/12")).toBe("services");
    expect(trie.get("10.96.0.0/13")).toBeUndefined();
    expect([...trie].map((e) => e.prefix.toString())).toEqual(["10.0.0.0/8", "10.96.0.0/12", "10.96.0.0/24", "2001:db8::/64"]);
    expect(trie.remove("10.96.0.0/12")).toBe(true);
    expect(trie.remove("10.96.0.0/12")).toBe(false);
    expect(trie.lookup("10.97.0.1")?.value).toBe("pods");
    expect(trie.lookup("10.96.0.1")?.value).toBe("dns");
  });

  it("stores the default route", () => {
    const trie = new PrefixTrie<number>();
    trie.insert(Prefix.all(4), 0);
    expect(trie.lookup("1.2.3.4")?.value).toBe(0);
    expect(trie.lookup("::1")).toBeUndefined();
    expect(trie.remove("0.0.0.0/0")).toBe(true);
    expect(trie.size).toBe(0);
  });

  const operation = (family: IPFamily) =>
    fc.oneof(
      { weight: 3, arbitrary: prefixArbitrary(family).map((prefix) => ({ kind: "insert" as const, prefix })) },
      { weight: 1, arbitrary: prefixArbitrary(family).map((prefix) => ({ kind: "remove" as const, prefix })) },
    );

  it.each([4, 6] as const)("matches a brute-force oracle for IPv%s", (family) => {
    fc.assert(
      fc.property(
        fc.array(operation(family), { maxLength: 60 }),
        fc.array(addressArbitrary(family), { minLength: 1, maxLength: 8 }),
        fc.array(prefixArbitrary(family), { minLength: 1, maxLength: 8 }),
        (operations, addresses, queries) => {
          const trie = new PrefixTrie<number>();
          const oracle = new Map<string, { prefix: Prefix; value: number }>();
          // Removal of a previously inserted prefix must be exercised, not only random misses.
          operations.forEach((op, i) => {
            const key = op.prefix.toString();
            if (op.kind === "insert") {
              trie.insert(op.prefix, i);
              oracle.set(key, { prefix: op.prefix, value: i });
            } else {
              const victim = [...oracle.keys()][i % Math.max(1, oracle.size)];
              const target = i % 2 === 0 && victim !== undefined ? victim : key;
              expect(trie.remove(target)).toBe(oracle.delete(target));
            }
          });
          const all = [...oracle.values()].sort((a, b) => a.prefix.compare(b.prefix));
          const keys = (entries: { prefix: Prefix }[]) => entries.map((e) => e.prefix.toString());
          expect(trie.size).toBe(all.length);
          expect(keys([...trie])).toEqual(keys(all));
          // Enough lookups switch the trie to its flattened index: both paths must agree with the oracle.
          for (const round of ["trie walk", "flat index"]) {
            if (round === "flat index") {
              for (let k = 0; k < 40 + all.length; k++) trie.lookup(addresses[0]!);
            }
            const probes = [...addresses, ...all.flatMap((e) => [e.prefix.first(), e.prefix.last()])];
            for (const address of probes) {
              const expected = all.filter((e) => oracleContains(e.prefix, address)).sort((a, b) => b.prefix.length - a.prefix.length)[0];
              expect(trie.lookup(address)?.value, `${round} ${address.toString()}`).toBe(expected?.value);
              if (family === 4) expect(trie.lookup4(address.w0)?.value).toBe(expected?.value);
            }
            for (const query of queries) expect(trie.overlapsAny(query)).toBe(all.some((e) => oracleOverlaps(e.prefix, query)));
          }
          for (const query of [...queries, ...all.slice(0, 4).map((e) => e.prefix)]) {
            expect(keys(trie.covering(query))).toEqual(keys(all.filter((e) => oracleContains(e.prefix, query))));
            expect(keys(trie.coveredBy(query))).toEqual(keys(all.filter((e) => oracleContains(query, e.prefix))));
            const overlapping = all.filter((e) => oracleOverlaps(e.prefix, query));
            expect(keys(trie.overlapping(query))).toEqual(keys(overlapping));
            expect(trie.overlapsAny(query)).toBe(overlapping.length > 0);
            expect(trie.get(query)).toBe(oracle.get(query.toString())?.value);
          }
        },
      ),
      { numRuns: 150 },
    );
  });

  it("returns canonical prefixes in entries", () => {
    const trie = new PrefixTrie<null>();
    trie.insert(parsePrefix("2001:db8:0:1::/64"), null);
    expect(trie.lookup(new IPAddress(6, 0x20010db8, 1, 0, 5))?.prefix.toString()).toBe("2001:db8:0:1::/64");
  });
});
