import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Quantity } from "./quantity.js";
import type { QuantityFormat } from "./parse.js";

const RUNS = { numRuns: 300 };
const NANO = 1_000_000_000n;
/** Below the BinarySI parse cap (2^63-1 units), so printing and re-parsing never clamps. */
const MAX_NANOS = ((1n << 63n) - 1n) * NANO;

const format = fc.constantFrom<QuantityFormat>("DecimalSI", "BinarySI", "DecimalExponent");

/** Values shaped like real resources: whole units, milli, binary multiples, and arbitrary nanos. */
const nanos = fc.oneof(
  fc.bigInt({ min: -MAX_NANOS, max: MAX_NANOS }),
  fc.bigInt({ min: -(10n ** 12n), max: 10n ** 12n }).map((units) => units * 1_000_000n),
  fc
    .tuple(fc.bigInt({ min: -1023n, max: 1023n }), fc.integer({ min: 0, max: 5 }))
    .map(([mantissa, power]) => mantissa * 1024n ** BigInt(power) * NANO),
);

const quantity = fc.tuple(nanos, format).map(([n, f]) => Quantity.fromNanos(n, f));

/** Texts in every accepted spelling: signs, leading/trailing fraction dots, every suffix family. */
const quantityText = fc
  .tuple(
    fc.constantFrom("", "+", "-"),
    fc.stringMatching(/^[0-9]{1,12}$/),
    fc.option(fc.stringMatching(/^[0-9]{0,12}$/), { nil: undefined }),
    fc.oneof(
      fc.constantFrom("", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"),
      fc
        .tuple(fc.constantFrom("e", "E"), fc.constantFrom("", "+", "-"), fc.integer({ min: 0, max: 30 }))
        .map(([e, sign, exponent]) => `${e}${sign}${exponent}`),
    ),
  )
  .map(([sign, whole, fraction, suffix]) => `${sign}${whole}${fraction === undefined ? "" : `.${fraction}`}${suffix}`);

describe("Quantity properties", () => {
  it("parse ∘ toString is the identity on values, and printing the result again gives the same text", () => {
    fc.assert(
      fc.property(quantity, (q) => {
        const text = q.toString();
        const back = Quantity.parse(text);
        expect(back.nanos).toBe(q.nanos);
        // A BinarySI value printed without a binary suffix re-parses as DecimalSI (as upstream), and
        // may then print shorter ("15625000" → "15625k"); from there on the text is a fixed point.
        if (q.format !== "BinarySI" || /[KMGTPE]i$/.test(text)) expect(back.toString()).toBe(text);
        expect(Quantity.parse(back.toString()).toString()).toBe(back.toString());
        // The family survives whenever the text carries a suffix of that family.
        if (/[KMGTPE]i$/.test(text)) expect(back.format).toBe("BinarySI");
        if (/e-?[0-9]+$/.test(text)) expect(back.format).toBe("DecimalExponent");
      }),
      RUNS,
    );
  });

  it("canonical form is idempotent for every accepted spelling", () => {
    fc.assert(
      fc.property(quantityText, (text) => {
        const once = Quantity.parse(text).toString();
        const twice = Quantity.parse(once).toString();
        expect(twice).toBe(once);
        expect(Quantity.parse(once).nanos).toBe(Quantity.parse(text).nanos);
      }),
      RUNS,
    );
  });

  it("canonical strings have no fraction, no plus sign and no leading zeros", () => {
    fc.assert(
      fc.property(quantityText, (text) => {
        expect(Quantity.parse(text).toString()).toMatch(/^(0|-?[1-9][0-9]*([numkMGTPE]|[KMGTPE]i|e-?[1-9][0-9]*)?)$/);
      }),
      RUNS,
    );
  });

  it("plain decimals parse to the exact nano count, rounded away from zero past nine decimals", () => {
    fc.assert(
      fc.property(fc.boolean(), fc.stringMatching(/^[0-9]{1,20}$/), fc.stringMatching(/^[0-9]{0,15}$/), (negative, whole, fraction) => {
        const magnitude = BigInt(whole + fraction.slice(0, 9).padEnd(9, "0"));
        const rest = fraction.slice(9);
        const rounded = /[1-9]/.test(rest) ? magnitude + 1n : magnitude;
        const got = Quantity.parse(`${negative ? "-" : ""}${whole}.${fraction}`);
        expect(got.nanos).toBe(negative ? -rounded : rounded);
      }),
      RUNS,
    );
  });

  it("binary suffixes multiply by powers of 1024", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 1n << 40n }), fc.integer({ min: 1, max: 6 }), (mantissa, power) => {
        const suffix = ["Ki", "Mi", "Gi", "Ti", "Pi", "Ei"][power - 1] as string;
        const exact = mantissa * 1024n ** BigInt(power);
        const capped = exact > (1n << 63n) - 1n ? (1n << 63n) - 1n : exact;
        expect(Quantity.parse(`${mantissa}${suffix}`).nanos).toBe(capped * NANO);
      }),
      RUNS,
    );
  });

  it("addition is commutative and associative, with zero as identity", () => {
    fc.assert(
      fc.property(quantity, quantity, quantity, (a, b, c) => {
        expect(a.add(b).equals(b.add(a))).toBe(true);
        expect(
          a
            .add(b)
            .add(c)
            .equals(a.add(b.add(c))),
        ).toBe(true);
        expect(a.add(Quantity.zero()).equals(a)).toBe(true);
        if (!a.isZero()) expect(a.add(Quantity.zero()).format).toBe(a.format);
      }),
      RUNS,
    );
  });

  it("subtraction undoes addition, and a - a is zero", () => {
    fc.assert(
      fc.property(quantity, quantity, (a, b) => {
        expect(a.add(b).sub(b).equals(a)).toBe(true);
        expect(a.sub(a).isZero()).toBe(true);
        expect(a.sub(b).equals(b.sub(a).neg())).toBe(true);
      }),
      RUNS,
    );
  });

  it("multiplication by integers distributes over addition and composes", () => {
    fc.assert(
      fc.property(quantity, quantity, fc.bigInt({ min: -1000n, max: 1000n }), fc.bigInt({ min: -1000n, max: 1000n }), (a, b, k, j) => {
        expect(
          a
            .add(b)
            .mul(k)
            .equals(a.mul(k).add(b.mul(k))),
        ).toBe(true);
        expect(
          a
            .mul(k)
            .mul(j)
            .equals(a.mul(k * j)),
        ).toBe(true);
        expect(a.mul(1n).equals(a)).toBe(true);
        expect(a.mul(-1n).equals(a.neg())).toBe(true);
      }),
      RUNS,
    );
  });

  it("cmp is a total order consistent with subtraction, and min/max pick from it", () => {
    fc.assert(
      fc.property(quantity, quantity, (a, b) => {
        expect(a.cmp(b)).toBe(a.sub(b).sign());
        expect(b.cmp(a)).toBe(-a.cmp(b) || 0);
        expect(a.min(b).cmp(a.max(b))).toBeLessThanOrEqual(0);
        expect([a.nanos, b.nanos]).toContain(a.min(b).nanos);
        expect(a.min(b).add(a.max(b)).equals(a.add(b))).toBe(true);
      }),
      RUNS,
    );
  });

  it("value() and milliValue() round away from zero by less than one unit", () => {
    fc.assert(
      fc.property(quantity, (q) => {
        const milli = q.milliValue() * 1_000_000n;
        const unit = q.value() * NANO;
        if (q.sign() >= 0) {
          expect(milli >= q.nanos && milli - q.nanos < 1_000_000n).toBe(true);
          expect(unit >= q.nanos && unit - q.nanos < NANO).toBe(true);
        } else {
          expect(milli <= q.nanos && q.nanos - milli < 1_000_000n).toBe(true);
          expect(unit <= q.nanos && q.nanos - unit < NANO).toBe(true);
        }
      }),
      RUNS,
    );
  });

  it("floorTo and ceilTo bracket the value with multiples of the step", () => {
    const step = fc.constantFrom("1m", "10m", "1", "1Ki", "1Mi", "4Mi", "1Gi").map((s) => Quantity.parse(s));
    fc.assert(
      fc.property(quantity, step, (q, s) => {
        const down = q.floorTo(s);
        const up = q.ceilTo(s);
        expect(down.nanos % s.nanos).toBe(0n);
        expect(up.nanos % s.nanos).toBe(0n);
        expect(down.cmp(q)).toBeLessThanOrEqual(0);
        expect(up.cmp(q)).toBeGreaterThanOrEqual(0);
        expect(up.sub(down).nanos === 0n || up.sub(down).nanos === s.nanos).toBe(true);
      }),
      RUNS,
    );
  });

  it("divFloor brackets the exact quotient at nano precision", () => {
    fc.assert(
      fc.property(quantity, fc.bigInt({ min: 1n, max: 10n ** 6n }), (q, k) => {
        const quotient = q.divFloor(k);
        expect(quotient.mul(k).cmp(q)).toBeLessThanOrEqual(0);
        expect(quotient.add(Quantity.fromNanos(1n)).mul(k).cmp(q)).toBeGreaterThan(0);
      }),
      RUNS,
    );
  });
});

describe("Quantity conveniences", () => {
  it("tryParse returns undefined instead of throwing", () => {
    expect(Quantity.tryParse("1Gi")?.toString()).toBe("1Gi");
    expect(Quantity.tryParse("1GB")).toBeUndefined();
  });

  it("abs, isQuantity and inspection", async () => {
    const { inspect } = await import("node:util");
    expect(Quantity.parse("-1.5Gi").abs().toString()).toBe("1536Mi");
    expect(Quantity.isQuantity(Quantity.zero())).toBe(true);
    expect(Quantity.isQuantity("1Gi")).toBe(false);
    expect(inspect({ memory: Quantity.parse("1.5Gi") })).toBe("{ memory: Quantity <1536Mi> }");
  });

  it("rejects non-integer or unbounded scales and non-positive divisors and steps", () => {
    expect(() => Quantity.ofScaled(1n, 0.5)).toThrow(/integer exponent/);
    expect(() => Quantity.parse("1").scaledValue(1e9)).toThrow(/within ±10000/);
    expect(() => Quantity.parse("1").divFloor(0n)).toThrow(/positive integer/);
    expect(() => Quantity.parse("1").floorTo(Quantity.zero())).toThrow(/must be positive/);
  });
});
