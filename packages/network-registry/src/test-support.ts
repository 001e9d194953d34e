import fc from "fast-check";
import { IPAddress } from "./address.js";
import { Prefix } from "./prefix.js";
import type { IPFamily } from "./words.js";

/*
 * Shared generators and brute-force oracles for the property tests. Addresses come from a few
 * base values so that random prefixes nest and collide often.
 */

const word = fc.oneof(
  fc.constant(0),
  fc.constant(0xffffffff),
  fc.constantFrom(0x0a000000, 0x0a600000, 0xc0a80000),
  fc.nat({ max: 0xffffffff }),
);

export function addressArbitrary(family: IPFamily): fc.Arbitrary<IPAddress> {
  if (family === 4) return word.map((w) => new IPAddress(4, w));
  return fc.tuple(fc.constantFrom(0x20010db8, 0xfd000000, 0), word, word, word).map(([a, b, c, d]) => new IPAddress(6, a, b, c, d));
}

export function prefixArbitrary(family: IPFamily): fc.Arbitrary<Prefix> {
  const max = family === 4 ? 32 : 128;
  const lengths =
    family === 4
      ? fc.integer({ min: 0, max })
      : fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 28, max: 72 }), fc.integer({ min: 0, max }));
  return fc.tuple(addressArbitrary(family), lengths).map(([address, length]) => Prefix.from(address, length));
}

/** The BigInt range [first, last] of a prefix: the oracle's view. */
export function range(prefix: Prefix): [bigint, bigint] {
  const first = prefix.first().toBigInt();
  return [first, first + prefix.size() - 1n];
}

export function oracleContains(outer: Prefix, inner: Prefix | IPAddress): boolean {
  if (outer.family !== inner.family) return false;
  const [a, b] = range(outer);
  const [c, d] = inner instanceof Prefix ? range(inner) : [inner.toBigInt(), inner.toBigInt()];
  return a <= c && d <= b;
}

export function oracleOverlaps(x: Prefix, y: Prefix): boolean {
  if (x.family !== y.family) return false;
  const [a, b] = range(x);
  const [c, d] = range(y);
  return a <= d && c <= b;
}
