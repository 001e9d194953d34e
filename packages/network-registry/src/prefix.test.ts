import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseAddress, parsePrefix } from "./parse.js";
import { Prefix } from "./prefix.js";
import { oracleContains, oracleOverlaps, prefixArbitrary, range, addressArbitrary } from "./test-support.js";

describe("Prefix math", () => {
  it("first, last and size", () => {
    const p = parsePrefix("10.96.0.0/12");
    expect(p.first().toString()).toBe("10.96.0.0");
    expect(p.last().toString()).toBe("10.111.255.255");
    expect(p.size()).toBe(1048576n);
    const v6 = parsePrefix("2001:db8::/64");
    expect(v6.last().toString()).toBe("2001:db8::ffff:ffff:ffff:ffff");
    expect(v6.size()).toBe(2n ** 64n);
    expect(parsePrefix("::/0").size()).toBe(2n ** 128n);
  });

  it("split, supernet and subtract", () => {
    expect(parsePrefix("10.0.0.0/23").split().map(String)).toEqual(["10.0.0.0/24", "10.0.1.0/24"]);
    expect(parsePrefix("10.0.0.0/22").split(24).map(String)).toEqual(["10.0.0.0/24", "10.0.1.0/24", "10.0.2.0/24", "10.0.3.0/24"]);
    expect(parsePrefix("2001:db8::/32").split(34).map(String)).toEqual([
      "2001:db8::/34",
      "2001:db8:4000::/34",
      "2001:db8:8000::/34",
      "2001:db8:c000::/34",
    ]);
    expect(parsePrefix("10.1.2.0/24").supernet(8).toString()).toBe("10.0.0.0/8");
    expect(parsePrefix("10.0.0.0/8").subtract(parsePrefix("10.96.0.0/12")).map(String)).toEqual([
      "10.0.0.0/10",
      "10.64.0.0/11",
      "10.112.0.0/12",
      "10.128.0.0/9",
    ]);
    expect(() => parsePrefix("10.0.0.0/8").split(32)).toThrow(/more than 65536/);
  });

  it.each(["v4", "v6"] as const)("contains/overlaps agree with the interval oracle (%s)", (kind) => {
    const family = kind === "v4" ? 4 : 6;
    fc.assert(
      fc.property(prefixArbitrary(family), prefixArbitrary(family), addressArbitrary(family), (a, b, address) => {
        expect(a.contains(b)).toBe(oracleContains(a, b));
        expect(a.overlaps(b)).toBe(oracleOverlaps(a, b));
        expect(a.contains(address)).toBe(oracleContains(a, address));
        expect(Math.sign(a.compare(b))).toBe(Math.sign(Number(range(a)[0] - range(b)[0]) || a.length - b.length));
      }),
      { numRuns: 400 },
    );
  });

  it.each(["v4", "v6"] as const)("subtract covers exactly the remaining addresses (%s)", (kind) => {
    const family = kind === "v4" ? 4 : 6;
    fc.assert(
      fc.property(prefixArbitrary(family), prefixArbitrary(family), (a, b) => {
        const rest = a.subtract(b);
        const total = rest.reduce((sum, p) => sum + p.size(), 0n);
        const overlap = a.overlaps(b) ? (a.contains(b) ? b.size() : a.size()) : 0n;
        expect(total).toBe(a.size() - overlap);
        for (const piece of rest) {
          expect(a.contains(piece)).toBe(true);
          expect(piece.overlaps(b)).toBe(false);
        }
        for (let i = 1; i < rest.length; i++) expect(rest[i - 1]!.compare(rest[i]!)).toBeLessThan(0);
      }),
      { numRuns: 300 },
    );
  });

  it("never mixes families", () => {
    expect(parsePrefix("::/0").contains(parseAddress("10.0.0.1"))).toBe(false);
    expect(parsePrefix("0.0.0.0/0").overlaps(parsePrefix("::/0"))).toBe(false);
    expect(Prefix.all(4).compare(Prefix.all(6))).toBeLessThan(0);
  });
});
