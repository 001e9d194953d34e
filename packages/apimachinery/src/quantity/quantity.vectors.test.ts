/**
 * The test tables of apimachinery's pkg/api/resource/quantity_test.go (Apache-2.0), ported row
 * by row. `dec(i, e, format)` stands for upstream's `decQuantity(i, e, format)`: i × 10^e.
 *
 * Rows that exercise apimachinery internals (int64 versus inf.Dec backends, float64 accessors,
 * JSON/CBOR codecs, pflag) have no counterpart here; every value-level row does.
 */
import { describe, expect, it } from "vitest";
import { QUANTITY_FORMAT_MESSAGE, QUANTITY_SUFFIX_MESSAGE, QuantityError } from "./errors.js";
import { Quantity } from "./quantity.js";
import type { QuantityFormat } from "./parse.js";

const MOST_POSITIVE = (1n << 63n) - 1n;
const MOST_NEGATIVE = -(1n << 63n);

function dec(i: bigint, exponent: number, format: QuantityFormat = "DecimalSI"): Quantity {
  return Quantity.ofScaled(i, exponent, format);
}

/** An oracle independent of the parser: a plain decimal string (≤ 9 fraction digits) in nanos. */
function decimalToNanos(text: string): bigint {
  const negative = text.startsWith("-");
  const [whole = "", fraction = ""] = (negative ? text.slice(1) : text).split(".");
  const nanos = BigInt(whole + fraction.padEnd(9, "0"));
  return negative ? -nanos : nanos;
}

function expectSameQuantity(got: Quantity, want: Quantity): void {
  expect(got.nanos).toBe(want.nanos);
  expect(got.format).toBe(want.format);
}

// TestQuantityParse
const PARSE_TABLE: ReadonlyArray<readonly [string, Quantity]> = [
  ["0", dec(0n, 0)],
  ["0n", dec(0n, 0)],
  ["0u", dec(0n, 0)],
  ["0m", dec(0n, 0)],
  ["0Ki", dec(0n, 0, "BinarySI")],
  ["0k", dec(0n, 0)],
  ["0Mi", dec(0n, 0, "BinarySI")],
  ["0M", dec(0n, 0)],
  ["0Gi", dec(0n, 0, "BinarySI")],
  ["0G", dec(0n, 0)],
  ["0Ti", dec(0n, 0, "BinarySI")],
  ["0T", dec(0n, 0)],

  // Quantity less numbers are allowed
  ["1", dec(1n, 0)],

  // Binary suffixes
  ["1Ki", dec(1024n, 0, "BinarySI")],
  ["8Ki", dec(8n * 1024n, 0, "BinarySI")],
  ["7Mi", dec(7n * 1024n ** 2n, 0, "BinarySI")],
  ["6Gi", dec(6n * 1024n ** 3n, 0, "BinarySI")],
  ["5Ti", dec(5n * 1024n ** 4n, 0, "BinarySI")],
  ["4Pi", dec(4n * 1024n ** 5n, 0, "BinarySI")],
  ["3Ei", dec(3n * 1024n ** 6n, 0, "BinarySI")],

  ["10Ti", dec(10n * 1024n ** 4n, 0, "BinarySI")],
  ["100Ti", dec(100n * 1024n ** 4n, 0, "BinarySI")],

  // Decimal suffixes
  ["5n", dec(5n, -9)],
  ["4u", dec(4n, -6)],
  ["3m", dec(3n, -3)],
  ["9", dec(9n, 0)],
  ["8k", dec(8n, 3)],
  ["50k", dec(5n, 4)],
  ["7M", dec(7n, 6)],
  ["6G", dec(6n, 9)],
  ["5T", dec(5n, 12)],
  ["40T", dec(4n, 13)],
  ["300T", dec(3n, 14)],
  ["2P", dec(2n, 15)],
  ["1E", dec(1n, 18)],

  // Decimal exponents
  ["1E-3", dec(1n, -3, "DecimalExponent")],
  ["1e3", dec(1n, 3, "DecimalExponent")],
  ["1E6", dec(1n, 6, "DecimalExponent")],
  ["1e9", dec(1n, 9, "DecimalExponent")],
  ["1E12", dec(1n, 12, "DecimalExponent")],
  ["1e15", dec(1n, 15, "DecimalExponent")],
  ["1E18", dec(1n, 18, "DecimalExponent")],

  // Nonstandard but still parsable
  ["1e14", dec(1n, 14, "DecimalExponent")],
  ["1e13", dec(1n, 13, "DecimalExponent")],
  ["1e3", dec(1n, 3, "DecimalExponent")],
  ["100.035k", dec(100035n, 0)],

  // Things that look like floating point
  ["0.001", dec(1n, -3)],
  ["0.0005k", dec(5n, -1)],
  ["0.005", dec(5n, -3)],
  ["0.05", dec(5n, -2)],
  ["0.5", dec(5n, -1)],
  ["0.00050k", dec(5n, -1)],
  ["0.00500", dec(5n, -3)],
  ["0.05000", dec(5n, -2)],
  ["0.50000", dec(5n, -1)],
  ["0.5e0", dec(5n, -1, "DecimalExponent")],
  ["0.5e-1", dec(5n, -2, "DecimalExponent")],
  ["0.5e-2", dec(5n, -3, "DecimalExponent")],
  ["0.5e0", dec(5n, -1, "DecimalExponent")],
  ["10.035M", dec(10035n, 3)],

  ["1.2e3", dec(12n, 2, "DecimalExponent")],
  ["1.3E+6", dec(13n, 5, "DecimalExponent")],
  ["1.40e9", dec(14n, 8, "DecimalExponent")],
  ["1.53E12", dec(153n, 10, "DecimalExponent")],
  ["1.6e15", dec(16n, 14, "DecimalExponent")],
  ["1.7E18", dec(17n, 17, "DecimalExponent")],

  ["9.01", dec(901n, -2)],
  ["8.1k", dec(81n, 2)],
  ["7.123456M", dec(7123456n, 0)],
  ["6.987654321G", dec(6987654321n, 0)],
  ["5.444T", dec(5444n, 9)],
  ["40.1T", dec(401n, 11)],
  ["300.2T", dec(3002n, 11)],
  ["2.5P", dec(25n, 14)],
  ["1.01E", dec(101n, 16)],

  // Things that saturate/round
  ["3.001n", dec(4n, -9)],
  ["1.1E-9", dec(2n, -9, "DecimalExponent")],
  ["0.0000000001", dec(1n, -9)],
  ["0.0000000005", dec(1n, -9)],
  ["0.00000000050", dec(1n, -9)],
  ["0.5e-9", dec(1n, -9, "DecimalExponent")],
  ["0.9n", dec(1n, -9)],
  ["0.00000012345", dec(124n, -9)],
  ["0.00000012354", dec(124n, -9)],
  ["8Ei", dec(MOST_POSITIVE, 0, "BinarySI")],
  ["9Ei", dec(MOST_POSITIVE, 0, "BinarySI")],
  ["16Ei", dec(MOST_POSITIVE, 0, "BinarySI")],
  ["8192Pi", dec(MOST_POSITIVE, 0, "BinarySI")],
  ["9223372036854775807Ki", dec(MOST_POSITIVE, 0, "BinarySI")],
  ["12E", dec(12n, 18)],

  // We'll accept fractional binary stuff, too.
  ["100.035Ki", dec(10243584n, -2, "BinarySI")],
  ["0.5Mi", dec(512n * 1024n, 0, "BinarySI")],
  ["0.05Gi", dec(536870912n, -1, "BinarySI")],
  ["0.025Ti", dec(274877906944n, -1, "BinarySI")],

  // Things written by trolls
  ["0.000000000001Ki", dec(2n, -9)], // rounds up, changes format
  [".001", dec(1n, -3)],
  [".0001k", dec(100n, -3)],
  ["1.", dec(1n, 0)],
  ["1.G", dec(1n, 9)],
];

describe("apimachinery TestQuantityParse", () => {
  it("rejects the empty string", () => {
    expect(() => Quantity.parse("")).toThrow(QuantityError);
  });

  it.each(PARSE_TABLE)("parses %s to the upstream value and format", (input, want) => {
    expectSameQuantity(Quantity.parse(input), want);
  });

  it.each(PARSE_TABLE)("parses -%s to the negated value and the same format", (input, want) => {
    expectSameQuantity(Quantity.parse(`-${input}`), Quantity.fromNanos(-want.nanos, want.format));
  });

  it.each(PARSE_TABLE)("parses +%s like the unsigned form", (input, want) => {
    expectSameQuantity(Quantity.parse(`+${input}`), want);
  });

  it.each([
    ["1.1.M", "quantity-format"],
    ["1+1.0M", "quantity-format"],
    ["0.1mi", "quantity-suffix"],
    ["0.1am", "quantity-format"],
    ["aoeu", "quantity-format"],
    [".5i", "quantity-suffix"],
    ["1i", "quantity-suffix"],
    ["-3.01i", "quantity-suffix"],
    ["-3.01e-", "quantity-suffix"],
    // trailing whitespace is forbidden
    [" 1", "quantity-format"],
    ["1 ", "quantity-format"],
  ] as const)("rejects %j with %s and names the value", (input, code) => {
    let caught: unknown;
    try {
      Quantity.parse(input);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(QuantityError);
    expect((caught as QuantityError).code).toBe(code);
    expect((caught as QuantityError).message).toContain(JSON.stringify(input));
  });
});

describe("apimachinery TestParseQuantityString (observable part)", () => {
  it.each([
    ["0.025Ti", 274877906944n, -1, "BinarySI"],
    ["1.025Ti", 11269994184704n, -1, "BinarySI"],
    ["-1.025Ti", -11269994184704n, -1, "BinarySI"],
    ["1E-3", 1n, -3, "DecimalExponent"],
  ] as const)("splits %s into sign, digits and suffix", (input, i, e, format) => {
    expectSameQuantity(Quantity.parse(input), dec(i, e, format));
  });

  it("rejects the digitless forms upstream's scanner lets through ('.', '-.')", () => {
    // A deliberate difference from apimachinery, documented in the README.
    for (const input of [".", "-.", "-", "+", "Mi", "e3"]) {
      expect(() => Quantity.parse(input), input).toThrow(expect.objectContaining({ code: "quantity-numeric" }));
    }
  });
});

describe("apimachinery TestQuantityParseZero / CanonicalizeZero", () => {
  it("prints zero as 0", () => {
    expect(Quantity.parse("0").toString()).toBe("0");
    expect(Quantity.parse("1000m").sub(Quantity.parse("1")).toString()).toBe("0");
  });
});

describe("apimachinery TestQuantityAddZeroPreservesSuffix / SubZeroPreservesSuffix", () => {
  it.each(["100m", "1Gi"])("%s keeps its suffix next to a zero", (text) => {
    const value = Quantity.parse(text);
    const zero = Quantity.parse("0");
    expect(value.add(zero).toString()).toBe(text);
    expect(zero.add(value).toString()).toBe(text);
    expect(value.sub(zero).toString()).toBe(text);
    expect(zero.sub(value).toString()).toBe(value.neg().toString());
  });
});

describe("apimachinery TestQuantityCmp", () => {
  it.each([
    ["0", "0", 0],
    ["100m", "50m", 1],
    ["50m", "100m", -1],
    ["10000T", "100Gi", 1],
  ] as const)("cmp(%s, %s) = %i", (x, y, want) => {
    expect(Quantity.parse(x).cmp(Quantity.parse(y))).toBe(want);
  });
});

describe("apimachinery TestQuantityRoundUp", () => {
  it.each([
    ["9.01", -3, dec(901n, -2), true],
    ["9.01", -2, dec(901n, -2), true],
    ["9.01", -1, dec(91n, -1), false],
    ["9.01", 0, dec(10n, 0), false],
    ["9.01", 1, dec(10n, 0), false],
    ["9.01", 2, dec(100n, 0), false],

    ["-9.01", -3, dec(-901n, -2), true],
    ["-9.01", -2, dec(-901n, -2), true],
    ["-9.01", -1, dec(-91n, -1), false],
    ["-9.01", 0, dec(-10n, 0), false],
    ["-9.01", 1, dec(-10n, 0), false],
    ["-9.01", 2, dec(-100n, 0), false],
  ] as const)("roundUp(%s, %i)", (input, scale, want, exact) => {
    const got = Quantity.parse(input).roundUp(scale);
    expect(got.quantity.equals(want)).toBe(true);
    expect(got.exact).toBe(exact);
  });
});

describe("apimachinery TestQuantityCmpInt64AndDec", () => {
  // Upstream rows whose operands are finer than nano (e.g. mostPositive × 10^-16) are left out:
  // a Quantity holds nano precision, which is all parsing can produce.
  it.each([
    [dec(901n, -2), dec(901n, -2), 0],
    [dec(90n, -1), dec(901n, -2), -1],
    [dec(901n, -2), dec(900n, -2), 1],
    [dec(0n, 0), dec(0n, 0), 0],
    [dec(0n, 1), dec(0n, -1), 0],
    [dec(0n, -1), dec(0n, 1), 0],
    [dec(800n, -3), dec(1n, 0), -1],
    [dec(800n, -3), dec(79n, -2), 1],

    [dec(MOST_POSITIVE, 0), dec(1n, -1), 1],
    [dec(MOST_POSITIVE, 1), dec(1n, 0), 1],
    [dec(MOST_POSITIVE, 1), dec(1n, 1), 1],
    [dec(MOST_POSITIVE, 1), dec(0n, 1), 1],

    [dec(MOST_NEGATIVE, 0), dec(0n, 0), -1],

    [dec(10n ** 18n, -17), dec(1n, 1), 0],
    [dec(10n ** 18n, -17), dec(-10n, 0), 1],
    [dec(-(10n ** 18n), -17), dec(-10n, 0), 0],
    [dec(10n ** 18n, -17), dec(1n, 0), 1],
  ] as const)("cmp(%s, %s) = %i, and inverted", (a, b, want) => {
    expect(a.cmp(b)).toBe(want);
    expect(b.cmp(a)).toBe(want === 0 ? 0 : -want);
  });
});

describe("apimachinery TestQuantityNeg / TestNeg", () => {
  it("negates without mutating the source", () => {
    const a = dec(901n, -2);
    const negated = a.neg();
    expect(negated.toString()).toBe("-9010m");
    expect(a.toString()).toBe("9010m");
  });

  it.each([
    [dec(0n, 0), dec(0n, 0)],
    [dec(10n, 0, "BinarySI"), dec(-10n, 0, "BinarySI")],
    [dec(-10n, 0, "BinarySI"), dec(10n, 0, "BinarySI")],
  ] as const)("neg(%s) = %s", (a, want) => {
    expectSameQuantity(a.neg(), want);
  });
});

// TestQuantityString: value, canonical form, and an alternate spelling that must canonicalise to it.
const STRING_TABLE: ReadonlyArray<readonly [Quantity, string, string]> = [
  [dec(1024n * 1024n * 1024n, 0, "BinarySI"), "1Gi", "1024Mi"],
  [dec(300n * 1024n * 1024n, 0, "BinarySI"), "300Mi", "307200Ki"],
  [dec(6n * 1024n, 0, "BinarySI"), "6Ki", ""],
  [dec(1001n * 1024n * 1024n * 1024n, 0, "BinarySI"), "1001Gi", "1025024Mi"],
  [dec(1024n * 1024n * 1024n * 1024n, 0, "BinarySI"), "1Ti", "1024Gi"],
  [dec(5n, 0, "BinarySI"), "5", "5000m"],
  [dec(500n, -3, "BinarySI"), "500m", "0.5"],
  [dec(1n, 9), "1G", "1000M"],
  [dec(1000n, 6), "1G", "0.001T"],
  [dec(1000000n, 3), "1G", ""],
  [dec(1000000000n, 0), "1G", ""],
  [dec(1n, -3), "1m", "1000u"],
  [dec(80n, -3), "80m", ""],
  [dec(1080n, -3), "1080m", "1.08"],
  [dec(108n, -2), "1080m", "1080000000n"],
  [dec(10800n, -4), "1080m", ""],
  [dec(300n, 6), "300M", ""],
  [dec(1n, 12), "1T", ""],
  // DecimalSI has no suffix beyond "E" (10^18); larger exponents fall back to exponent notation.
  [dec(1n, 18), "1E", ""],
  [dec(1n, 21), "1e21", "1000E"],
  [dec(5n, 21), "5e21", "5000E"],
  [dec(1n, 24), "1e24", "1000000E"],
  [dec(1234567n, 6), "1234567M", ""],
  [dec(1234567n, -3, "BinarySI"), "1234567m", ""],
  [dec(3n, 3), "3k", ""],
  [dec(1025n, 0, "BinarySI"), "1025", ""],
  [dec(0n, 0), "0", ""],
  [dec(0n, 0, "BinarySI"), "0", ""],
  [dec(1n, 9, "DecimalExponent"), "1e9", ".001e12"],
  [dec(1n, -3, "DecimalExponent"), "1e-3", "0.001e0"],
  [dec(1n, -9, "DecimalExponent"), "1e-9", "1000e-12"],
  [dec(80n, -3, "DecimalExponent"), "80e-3", ""],
  [dec(300n, 6, "DecimalExponent"), "300e6", ""],
  [dec(1n, 12, "DecimalExponent"), "1e12", ""],
  [dec(1n, 3, "DecimalExponent"), "1e3", ""],
  [dec(3n, 3, "DecimalExponent"), "3e3", ""],
  [dec(3n, 3), "3k", ""],
  [dec(0n, 0, "DecimalExponent"), "0", "00"],
  [dec(1n, -9), "1n", ""],
  [dec(80n, -9), "80n", ""],
  [dec(1080n, -9), "1080n", ""],
  [dec(108n, -8), "1080n", ""],
  [dec(10800n, -10), "1080n", ""],
  [dec(1n, -6), "1u", ""],
  [dec(80n, -6), "80u", ""],
  [dec(1080n, -6), "1080u", ""],
];

describe("apimachinery TestQuantityString", () => {
  it.each(STRING_TABLE)("%s prints as %s, and parsing that gives it back", (value, canonical) => {
    expect(value.toString()).toBe(canonical);
    expect(Quantity.parse(canonical).toString()).toBe(canonical);
  });

  it.each(STRING_TABLE.filter(([, , alternate]) => alternate !== ""))(
    "the alternate spelling of %s (%s) canonicalises to it: %s",
    (_value, canonical, alternate) => {
      expect(Quantity.parse(alternate).toString()).toBe(canonical);
    },
  );

  it.each(STRING_TABLE.filter(([value]) => !value.isZero()))("the negation of %s prints as -%s", (value, canonical) => {
    expect(value.neg().toString()).toBe(`-${canonical}`);
  });
});

describe("apimachinery TestQuantityParseEmit", () => {
  const table = [
    ["1Ki", "1Ki"],
    ["1Mi", "1Mi"],
    ["1Gi", "1Gi"],
    ["1024Mi", "1Gi"],
    ["1000M", "1G"],
    [".001Ki", "1024m"],
    [".000001Ki", "1024u"],
    [".000000001Ki", "1024n"],
    [".000000000001Ki", "2n"],
  ] as const;

  it.each(table)("%s is emitted as %s", (input, want) => {
    expect(Quantity.parse(input).toString()).toBe(want);
  });

  it.each(table)("-%s is emitted as -%s", (input, want) => {
    expect(Quantity.parse(`-${input}`).toString()).toBe(`-${want}`);
  });
});

describe("apimachinery TestMilliNewSet", () => {
  // Upstream's "invalidFormatDefaultsToExponent" rows use DecimalExponent, which is what an
  // unknown format becomes there; TypeScript does not let an unknown format through.
  it.each([
    [1n, "DecimalSI", "1m", true],
    [1000n, "DecimalSI", "1", true],
    [1234000n, "DecimalSI", "1234", true],
    [1024n, "BinarySI", "1024m", false], // Format changes
    [1000000n, "DecimalExponent", "1e3", true],
    [1024n * 1024n, "BinarySI", "1048576m", false], // Format changes
  ] as const)("ofMilli(%s, %s) prints %s", (value, format, want, exact) => {
    const q = Quantity.ofMilli(value, format);
    expect(q.toString()).toBe(want);
    if (exact) expect(Quantity.parse(q.toString()).milliValue()).toBe(value);
  });
});

describe("apimachinery TestNewSet", () => {
  it.each([
    [1n, "DecimalSI", "1"],
    [1000n, "DecimalSI", "1k"],
    [1234000n, "DecimalSI", "1234k"],
    [1024n, "BinarySI", "1Ki"],
    [1000000n, "DecimalExponent", "1e6"],
    [1024n * 1024n, "BinarySI", "1Mi"],
  ] as const)("of(%s, %s) prints %s and round-trips through value()", (value, format, want) => {
    const q = Quantity.of(value, format);
    expect(q.toString()).toBe(want);
    expect(Quantity.parse(q.toString()).value()).toBe(value);
  });
});

describe("apimachinery TestNewScaledSet", () => {
  it.each([
    [1n, -9, "1n"],
    [1000n, -9, "1u"],
    [1n, -6, "1u"],
    [1000n, -6, "1m"],
    [1n, -3, "1m"],
    [1000n, -3, "1"],
    [1n, 0, "1"],
    [0n, -9, "0"],
    [0n, -6, "0"],
    [0n, -3, "0"],
    [0n, 0, "0"],
  ] as const)("ofScaled(%s, %i) prints %s and round-trips through scaledValue", (value, scale, want) => {
    const q = Quantity.ofScaled(value, scale);
    expect(q.toString()).toBe(want);
    expect(Quantity.parse(q.toString()).scaledValue(scale)).toBe(value);
  });
});

describe("apimachinery TestScaledValue", () => {
  it.each([
    [-9, -9, 1n],
    [-9, -6, 1n],
    [-9, -3, 1n],
    [-9, 0, 1n],
    [-6, -9, 1000n],
    [-6, -6, 1n],
    [-6, -3, 1n],
    [-6, 0, 1n],
    [-3, -9, 1000n * 1000n],
    [-3, -6, 1000n],
    [-3, -3, 1n],
    [-3, 0, 1n],
    [0, -9, 1000n * 1000n * 1000n],
    [0, -6, 1000n * 1000n],
    [0, -3, 1000n],
    [0, 0, 1n],
    [2, -2, 100n * 100n],
  ] as const)("1 × 10^%i scaled to 10^%i is %s", (from, to, want) => {
    expect(Quantity.ofScaled(1n, from).scaledValue(to)).toBe(want);
  });
});

describe("apimachinery TestAdd / TestSub", () => {
  it.each([
    [dec(10n, 0), dec(1n, 1), dec(20n, 0)],
    [dec(10n, 0), dec(1n, 0, "BinarySI"), dec(11n, 0)],
    [dec(10n, 0, "BinarySI"), dec(1n, 0), dec(11n, 0, "BinarySI")],
    [Quantity.zero(), dec(50n, 0), dec(50n, 0)],
    [dec(50n, 0), Quantity.zero(), dec(50n, 0)],
    [Quantity.zero(), Quantity.zero(), dec(0n, 0)],
  ] as const)("%s + %s = %s", (a, b, want) => {
    expect(a.add(b).equals(want)).toBe(true);
  });

  it.each([
    [dec(10n, 0), dec(1n, 1), dec(0n, 0)],
    [dec(10n, 0), dec(1n, 0, "BinarySI"), dec(9n, 0)],
    [dec(10n, 0, "BinarySI"), dec(1n, 0), dec(9n, 0, "BinarySI")],
    [Quantity.zero(), dec(50n, 0), dec(-50n, 0)],
    [dec(50n, 0), Quantity.zero(), dec(50n, 0)],
    [Quantity.zero(), Quantity.zero(), dec(0n, 0)],
  ] as const)("%s - %s = %s", (a, b, want) => {
    expect(a.sub(b).equals(want)).toBe(true);
  });
});

describe("apimachinery TestMul", () => {
  // Upstream's `ok` column reports int64 overflow; here every product is exact.
  it.each([
    [dec(10n, 0), 10n, dec(100n, 0)],
    [dec(10n, 0), 1n, dec(10n, 0)],
    [dec(10n, 0, "BinarySI"), 1n, dec(10n, 0, "BinarySI")],
    [Quantity.zero(), 50n, dec(0n, 0)],
    [dec(50n, 0), 0n, dec(0n, 0)],
    [Quantity.zero(), 0n, dec(0n, 0)],

    [dec(10n, 0), -10n, dec(-100n, 0)],
    [dec(-10n, 0), 1n, dec(-10n, 0)],
    [dec(10n, 0, "BinarySI"), -1n, dec(-10n, 0, "BinarySI")],
    [dec(-50n, 0), 0n, dec(0n, 0)],
    [dec(-50n, 0), -50n, dec(2500n, 0)],
    [Quantity.zero(), -50n, dec(0n, 0)],
    [dec(MOST_POSITIVE, 0), 0n, dec(0n, 1)],
    [dec(MOST_POSITIVE, 0), 1n, dec(MOST_POSITIVE, 0)],
    [dec(MOST_POSITIVE, 0), -1n, dec(-MOST_POSITIVE, 0)],
    [dec(MOST_POSITIVE / 2n, 0), 2n, dec((MOST_POSITIVE / 2n) * 2n, 0)],
    [dec(MOST_POSITIVE / -2n, 0), -2n, dec((MOST_POSITIVE / 2n) * 2n, 0)],
    [dec(MOST_POSITIVE, 0), 2n, dec(MOST_POSITIVE * 2n, 0)],
    [dec(MOST_POSITIVE, 0), 10n, dec(MOST_POSITIVE, 1)],
    [dec(MOST_POSITIVE, 0), -10n, dec(-MOST_POSITIVE, 1)],
    [dec(MOST_NEGATIVE, 0), 0n, dec(0n, 1)],
    [dec(MOST_NEGATIVE, 0), 1n, dec(MOST_NEGATIVE, 0)],
    [dec(MOST_NEGATIVE, 0), -1n, dec(MOST_POSITIVE + 1n, 0)],
    [dec(MOST_NEGATIVE / 2n, 0), 2n, dec(MOST_NEGATIVE, 0)],
    [dec(MOST_NEGATIVE / -2n, 0), -2n, dec(MOST_NEGATIVE, 0)],
    [dec(MOST_NEGATIVE, 0), 2n, dec(MOST_NEGATIVE * 2n, 0)],
    [dec(MOST_NEGATIVE, 0), 10n, dec(MOST_NEGATIVE, 1)],
    [dec(MOST_NEGATIVE, 0), -10n, dec(MOST_POSITIVE + 1n, 1)],
  ] as const)("%s × %s = %s", (a, factor, want) => {
    expectSameQuantity(a.mul(factor), want.withFormat(a.format));
  });
});

describe("apimachinery TestNegAndSubAtMostNegative and neighbours", () => {
  it("negating int64's most negative value gives 2^63 exactly", () => {
    const got = dec(MOST_NEGATIVE, 0).neg();
    expect(got.sign()).toBe(1);
    expect(got.toString()).toBe("9223372036854775808");
    expect(got.equals(Quantity.parse("9223372036854775808"))).toBe(true);
    expect(Quantity.zero().sub(dec(MOST_NEGATIVE, 0)).toString()).toBe("9223372036854775808");
  });

  it("1 - mostNegative is 2^63+1", () => {
    const got = dec(1n, 0).sub(dec(MOST_NEGATIVE, 0));
    expect(got.toString()).toBe("9223372036854775809");
    expect(got.equals(Quantity.parse("9223372036854775809"))).toBe(true);
  });

  it("mostNegative+1 negates to mostPositive", () => {
    expect(
      dec(MOST_NEGATIVE + 1n, 0)
        .neg()
        .equals(dec(MOST_POSITIVE, 0)),
    ).toBe(true);
    expect(
      Quantity.zero()
        .sub(dec(MOST_NEGATIVE + 1n, 0))
        .equals(dec(MOST_POSITIVE, 0)),
    ).toBe(true);
  });

  it("keeps the scale when negating and subtracting at milli scale", () => {
    expect(dec(MOST_NEGATIVE, -3).neg().toString()).toBe("9223372036854775808m");
    expect(dec(1n, -3).sub(dec(MOST_NEGATIVE, -3)).toString()).toBe("9223372036854775809m");
    const zeroScaledSub = Quantity.zero().sub(Quantity.ofScaled(MOST_NEGATIVE, -3));
    expect(zeroScaledSub.toString()).toBe("9223372036854775808m");
    expect(zeroScaledSub.sign()).toBe(1);
  });

  it("10 - mostNegative is 2^63+10 (TestSubMostNegativeCrossScale)", () => {
    expect(dec(1n, 1).sub(dec(MOST_NEGATIVE, 0)).toString()).toBe("9223372036854775818");
  });

  it("a zero minuend adopts the subtrahend's format: 2^63 BinarySI is 8Ei (TestZeroSubMostNegativeInheritsFormat)", () => {
    const got = Quantity.zero().sub(dec(MOST_NEGATIVE, 0, "BinarySI"));
    expect(got.format).toBe("BinarySI");
    expect(got.toString()).toBe("8Ei");
    expect(got.cmp(Quantity.parse("9223372036854775808"))).toBe(0);
    // ...while parsing 8Ei caps it at 2^63-1, as upstream does.
    expect(Quantity.parse("8Ei").nanos).toBe(MOST_POSITIVE * 1_000_000_000n);
  });
});

describe("apimachinery TestParseQuantity (18–20 digit boundaries)", () => {
  // [input, exact value as a plain decimal, canonical form when it differs from the input]
  const table: ReadonlyArray<readonly [string, string, string?]> = [
    // min/max 18 digits
    ["-999999999999999999", "-999999999999999999"],
    ["999999999999999999", "999999999999999999"],
    ["-999999999999999999.0", "-999999999999999999", "-999999999999999999"],
    ["999999999999999999.0", "999999999999999999", "999999999999999999"],
    ["-999999999999999999.1", "-999999999999999999.1", "-999999999999999999100m"],
    ["999999999999999999.1", "999999999999999999.1", "999999999999999999100m"],
    // min/max 19 digits
    ["-9999999999999999999", "-9999999999999999999"],
    ["9999999999999999999", "9999999999999999999"],
    ["-1E", "-1000000000000000000"],
    ["1E", "1000000000000000000"],
    ["-1000000000000000000", "-1000000000000000000", "-1E"],
    ["1000000000000000000", "1000000000000000000", "1E"],
    ["-9999999999999999999.0", "-9999999999999999999", "-9999999999999999999"],
    ["9999999999999999999.0", "9999999999999999999", "9999999999999999999"],
    ["-1.0E", "-1000000000000000000", "-1E"],
    ["1.0E", "1000000000000000000", "1E"],
    ["-1000000000000000000.0", "-1000000000000000000", "-1E"],
    ["1000000000000000000.0", "1000000000000000000", "1E"],
    ["-9999999999999999999000m", "-9999999999999999999", "-9999999999999999999"],
    ["9999999999999999999000m", "9999999999999999999", "9999999999999999999"],
    ["-9999999999999999999.1", "-9999999999999999999.1", "-9999999999999999999100m"],
    ["9999999999999999999.1", "9999999999999999999.1", "9999999999999999999100m"],
    ["-1.0000000000000000001E", "-1000000000000000000.1", "-1000000000000000000100m"],
    ["1.0000000000000000001E", "1000000000000000000.1", "1000000000000000000100m"],
    ["-1000000000000000000.1", "-1000000000000000000.1", "-1000000000000000000100m"],
    ["1000000000000000000.1", "1000000000000000000.1", "1000000000000000000100m"],
    ["-1.000000000000000001E", "-1000000000000000001", "-1000000000000000001"],
    ["1.000000000000000001E", "1000000000000000001", "1000000000000000001"],
    ["-1000000000000000001", "-1000000000000000001"],
    ["1000000000000000001", "1000000000000000001"],
    // min/max 20 digits
    ["-10E", "-10000000000000000000"],
    ["10E", "10000000000000000000"],
    ["-10000000000000000000", "-10000000000000000000", "-10E"],
    ["10000000000000000000", "10000000000000000000", "10E"],
    ["-10.0E", "-10000000000000000000", "-10E"],
    ["10.0E", "10000000000000000000", "10E"],
    ["-10000000000000000000.0", "-10000000000000000000", "-10E"],
    ["10000000000000000000.0", "10000000000000000000", "10E"],
    ["-10000000000000000000000m", "-10000000000000000000", "-10E"],
    ["10000000000000000000000m", "10000000000000000000", "10E"],
    ["-10.0000000000000000001E", "-10000000000000000000.1", "-10000000000000000000100m"],
    ["10.0000000000000000001E", "10000000000000000000.1", "10000000000000000000100m"],
    ["-10000000000000000000.1", "-10000000000000000000.1", "-10000000000000000000100m"],
    ["10000000000000000000.1", "10000000000000000000.1", "10000000000000000000100m"],
    ["-10.000000000000000001E", "-10000000000000000001", "-10000000000000000001"],
    ["10.000000000000000001E", "10000000000000000001", "10000000000000000001"],
    ["-10000000000000000001", "-10000000000000000001"],
    ["10000000000000000001", "10000000000000000001"],
    // min/max int64 - 1
    ["-9223372036854775809", "-9223372036854775809"],
    ["9223372036854775806", "9223372036854775806"],
    ["-9223372036854775809.0", "-9223372036854775809", "-9223372036854775809"],
    ["9223372036854775806.0", "9223372036854775806", "9223372036854775806"],
    ["-9223372036854775809000m", "-9223372036854775809", "-9223372036854775809"],
    ["9223372036854775806000m", "9223372036854775806", "9223372036854775806"],
    ["-9223372036854775809.1", "-9223372036854775809.1", "-9223372036854775809100m"],
    ["9223372036854775806.1", "9223372036854775806.1", "9223372036854775806100m"],
    // min/max int64
    ["-9223372036854775808", "-9223372036854775808"],
    ["9223372036854775807", "9223372036854775807"],
    ["-9223372036854775808.0", "-9223372036854775808", "-9223372036854775808"],
    ["9223372036854775807.0", "9223372036854775807", "9223372036854775807"],
    ["-9223372036854775808000m", "-9223372036854775808", "-9223372036854775808"],
    ["9223372036854775807000m", "9223372036854775807", "9223372036854775807"],
    ["-9223372036854775808.1", "-9223372036854775808.1", "-9223372036854775808100m"],
    ["9223372036854775807.1", "9223372036854775807.1", "9223372036854775807100m"],
    // min/max int64 + 1
    ["-9223372036854775807", "-9223372036854775807"],
    ["9223372036854775808", "9223372036854775808"],
    ["-9223372036854775807.0", "-9223372036854775807", "-9223372036854775807"],
    ["9223372036854775808.0", "9223372036854775808", "9223372036854775808"],
    ["-9223372036854775807000m", "-9223372036854775807", "-9223372036854775807"],
    ["9223372036854775808000m", "9223372036854775808", "9223372036854775808"],
    ["-9223372036854775807.1", "-9223372036854775807.1", "-9223372036854775807100m"],
    ["9223372036854775808.1", "9223372036854775808.1", "9223372036854775808100m"],
  ];

  const rows = table.map(([input, value, canonical]) => ({ input, value, canonical: canonical ?? input }));
  it.each(rows)("$input has value $value and reserialises as $canonical", ({ input, value, canonical }) => {
    const q = Quantity.parse(input);
    expect(q.nanos).toBe(decimalToNanos(value));
    expect(q.toString()).toBe(canonical);
  });
});

describe("reference-notes canonical forms", () => {
  it.each([
    ["1.5", "1500m"],
    ["1000m", "1"],
    ["0.1m", "100u"],
    ["100m", "100m"],
    ["1e3", "1e3"],
    ["1.5Gi", "1536Mi"],
    ["0.5Gi", "512Mi"],
    ["1.5Ki", "1536"],
    ["1.1Ki", "1126400m"],
    ["0.5Ki", "512"],
    ["-1", "-1"],
    ["0", "0"],
    ["0Gi", "0"],
    ["0.1", "100m"],
    ["1000000k", "1G"],
    ["+1Ki", "1Ki"],
    ["1E6", "1e6"],
  ])("%s → %s", (input, want) => {
    expect(Quantity.parse(input).toString()).toBe(want);
  });

  it.each([
    ["100m", 1n, 100n],
    ["1.5", 2n, 1500n],
    ["1n", 1n, 1n],
    ["-1.5", -2n, -1500n],
    ["1Gi", 1073741824n, 1073741824000n],
  ] as const)("%s: value() = %s, milliValue() = %s (rounded away from zero)", (input, value, milli) => {
    const q = Quantity.parse(input);
    expect(q.value()).toBe(value);
    expect(q.milliValue()).toBe(milli);
  });

  it("rejects K alone (only k or Ki exist)", () => {
    expect(() => Quantity.parse("1K")).toThrow(expect.objectContaining({ code: "quantity-suffix" }));
  });

  it("refuses exponents it will not materialise", () => {
    expect(() => Quantity.parse("1e10001")).toThrow(expect.objectContaining({ code: "quantity-range" }));
    expect(Quantity.parse("1e-10000").toString()).toBe("1e-9");
    expect(Quantity.parse("1e-10000").nanos).toBe(1n);
  });

  it("keeps every value's canonical form parseable: larger values are out of range, not printed as 1e10002", () => {
    const largest = Quantity.parse("9999e9997");
    expect(Quantity.parse(largest.toString()).equals(largest)).toBe(true);
    expect(() => Quantity.parse("100e10000")).toThrow(expect.objectContaining({ code: "quantity-range" }));
    expect(() => Quantity.parse("1e10000").mul(100n)).toThrow(expect.objectContaining({ code: "quantity-range" }));
    expect(() => Quantity.parse("-1e10000").mul(10n)).toThrow(/parses back/);
    const huge = Quantity.parse("1e10000");
    expect(Quantity.parse(huge.toString()).equals(huge)).toBe(true);
  });

  it("prints binary values past Ei with the Ei suffix instead of dropping the unit", () => {
    expect(Quantity.of(1n << 64n, "BinarySI").toString()).toBe("16Ei");
    expect(Quantity.of(1n << 70n, "BinarySI").toString()).toBe("1024Ei");
  });
});

describe("error hints", () => {
  it.each([
    ["32GB", "G or Gi"],
    ["1K", "k or Ki"],
    ["512mb", "M or Mi"],
  ])("suggests the Kubernetes spelling for %s", (input, suggestion) => {
    expect(() => Quantity.parse(input)).toThrow(`did you mean ${suggestion}?`);
  });
});

describe("binary quantities at and above 8Ei (ParseQuantity's cap at the int64 maximum)", () => {
  // The oracle: the uncapped amount is mantissa × 1024^power; apimachinery keeps min(amount, 2^63−1) units.
  const POWERS = { Ki: 1, Mi: 2, Gi: 3, Ti: 4, Pi: 5, Ei: 6 } as const;
  it.each([
    ["7Ei", 7n, "Ei"],
    ["8Ei", 8n, "Ei"],
    ["16Ei", 16n, "Ei"],
    ["1024Ei", 1024n, "Ei"],
    ["8191Pi", 8191n, "Pi"],
    ["8192Pi", 8192n, "Pi"],
    ["9007199254740992Ki", 9007199254740992n, "Ki"],
  ] as const)("%s holds min(value, 2^63−1) units, for either sign", (input, mantissa, suffix) => {
    const uncapped = mantissa * 1024n ** BigInt(POWERS[suffix]);
    const units = uncapped < MOST_POSITIVE ? uncapped : MOST_POSITIVE;
    const q = Quantity.parse(input);
    expect(q.value()).toBe(units);
    expect(q.milliValue()).toBe(units * 1000n);
    expect(q.asInt64()).toBe(units);
    expect(q.format).toBe("BinarySI");
    expect(Quantity.parse(`-${input}`).value()).toBe(-units);
    expect(Quantity.parse(q.toString()).equals(q)).toBe(true);
  });

  it("prints the capped amount in full (it is not a multiple of 1024), and decimal suffixes are not capped", () => {
    expect(Quantity.parse("8Ei").toString()).toBe("9223372036854775807");
    expect(Quantity.parse("7Ei").toString()).toBe("7Ei");
    expect(Quantity.parse("16E").value()).toBe(16n * 10n ** 18n);
    expect(Quantity.parse("16E").asInt64()).toBeUndefined();
  });

  it("lets sums go past the cap, exactly (only parsing caps)", () => {
    const sum = Quantity.parse("8Ei").add(Quantity.parse("8Ei"));
    expect(sum.value()).toBe(2n * MOST_POSITIVE);
    expect(sum.asInt64()).toBeUndefined();
  });
});

describe("upstream's bare error reasons (what an API server's Status carries)", () => {
  it.each([
    ["abc", QUANTITY_FORMAT_MESSAGE],
    ["1e", QUANTITY_SUFFIX_MESSAGE],
    ["1K", QUANTITY_SUFFIX_MESSAGE],
  ])("%s: %s", (input, reason) => {
    expect(() => Quantity.parse(input)).toThrow(expect.objectContaining({ reason }));
  });
});
