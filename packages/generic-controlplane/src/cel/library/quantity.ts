import { CelScalar, celError, celFunc, celMethod } from "@bufbuild/cel";
import { OpaqueType } from "./opaque.js";

/**
 * Kubernetes' quantity library (apiserver `library/quantity.go`): `quantity('1.5Gi')`,
 * `isQuantity`, `sign`, `isInteger`, `asInteger`, `asApproximateFloat`, `add`, `sub`,
 * `isGreaterThan`, `isLessThan`, `compareTo`, with `==` comparing amounts (`1000m == 1`).
 * Amounts are exact to a nano unit, rounded away from zero below that as apimachinery's
 * `ParseQuantity` rounds.
 */

const QUANTITY_PATTERN = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$";
const NANOS_PER_UNIT = 1_000_000_000n;
const MAX_INT64 = 9223372036854775807n;
const MIN_INT64 = -9223372036854775808n;

const DECIMAL: Record<string, bigint> = { n: -9n, u: -6n, m: -3n, "": 0n, k: 3n, M: 6n, G: 9n, T: 12n, P: 15n, E: 18n };
const BINARY: Record<string, bigint> = { Ki: 10n, Mi: 20n, Gi: 30n, Ti: 40n, Pi: 50n, Ei: 60n };

interface Quantity {
  /** The amount in nano units. */
  nanos: bigint;
}

/** The amount of a quantity string in nano units, or why it is not one (apimachinery's wording). */
export function parseQuantityNanos(text: string): { ok: true; nanos: bigint } | { ok: false; error: string } {
  const formatError = { ok: false as const, error: `quantities must match the regular expression '${QUANTITY_PATTERN}'` };
  const match = /^([+-]?)([0-9]*)(?:\.([0-9]*))?([eEinumkKMGTP]*[-+]?[0-9]*)$/.exec(text);
  if (text.length === 0 || match === null) return formatError;
  const [, sign = "", whole = "", fraction = "", suffix = ""] = match;
  if (whole.length === 0 && fraction.length === 0) return formatError;
  let base = 10n;
  let exponent: bigint;
  if (suffix in DECIMAL) exponent = DECIMAL[suffix] ?? 0n;
  else if (suffix in BINARY) {
    base = 2n;
    exponent = BINARY[suffix] ?? 0n;
  } else if (/^[eE][-+]?[0-9]+$/.test(suffix)) {
    exponent = BigInt(suffix.slice(1));
    if (exponent > 10000n || exponent < -10000n) return formatError;
  } else return { ok: false, error: "unable to parse quantity's suffix" };
  let numerator = BigInt(whole + fraction || "0");
  let tenPower = 9n - BigInt(fraction.length);
  if (base === 10n) tenPower += exponent;
  else numerator <<= exponent;
  let nanos: bigint;
  if (tenPower >= 0n) nanos = numerator * 10n ** tenPower;
  else {
    const divisor = 10n ** -tenPower;
    nanos = numerator / divisor + (numerator % divisor === 0n ? 0n : 1n);
  }
  return { ok: true, nanos: sign === "-" ? -nanos : nanos };
}

const quantityType = new OpaqueType<Quantity>("k8s.io/Quantity");

function wrap(nanos: bigint) {
  return quantityType.wrap({ nanos }, nanos.toString());
}

function compare(a: bigint, b: bigint): bigint {
  return a < b ? -1n : a > b ? 1n : 0n;
}

export const quantityLibrary = [
  celFunc("quantity", [CelScalar.STRING], CelScalar.DYN, (text) => {
    const parsed = parseQuantityNanos(text);
    if (!parsed.ok) throw celError(parsed.error);
    return wrap(parsed.nanos);
  }),
  celFunc("isQuantity", [CelScalar.STRING], CelScalar.BOOL, (text) => parseQuantityNanos(text).ok),
  celMethod("sign", CelScalar.DYN, [], CelScalar.INT, function () {
    return compare(quantityType.expect(this).nanos, 0n);
  }),
  celMethod("isInteger", CelScalar.DYN, [], CelScalar.BOOL, function () {
    const { nanos } = quantityType.expect(this);
    return nanos % NANOS_PER_UNIT === 0n && nanos / NANOS_PER_UNIT <= MAX_INT64 && nanos / NANOS_PER_UNIT >= MIN_INT64;
  }),
  celMethod("asInteger", CelScalar.DYN, [], CelScalar.INT, function () {
    const { nanos } = quantityType.expect(this);
    const units = nanos / NANOS_PER_UNIT;
    if (nanos % NANOS_PER_UNIT !== 0n || units > MAX_INT64 || units < MIN_INT64) throw celError("cannot convert value to integer");
    return units;
  }),
  celMethod("asApproximateFloat", CelScalar.DYN, [], CelScalar.DOUBLE, function () {
    return Number(quantityType.expect(this).nanos) / 1e9;
  }),
  celMethod("add", CelScalar.DYN, [CelScalar.DYN], CelScalar.DYN, function (other) {
    const addend = typeof other === "bigint" ? other * NANOS_PER_UNIT : quantityType.expect(other).nanos;
    return wrap(quantityType.expect(this).nanos + addend);
  }),
  celMethod("sub", CelScalar.DYN, [CelScalar.DYN], CelScalar.DYN, function (other) {
    const subtrahend = typeof other === "bigint" ? other * NANOS_PER_UNIT : quantityType.expect(other).nanos;
    return wrap(quantityType.expect(this).nanos - subtrahend);
  }),
  celMethod("isGreaterThan", CelScalar.DYN, [CelScalar.DYN], CelScalar.BOOL, function (other) {
    return quantityType.expect(this).nanos > quantityType.expect(other).nanos;
  }),
  celMethod("isLessThan", CelScalar.DYN, [CelScalar.DYN], CelScalar.BOOL, function (other) {
    return quantityType.expect(this).nanos < quantityType.expect(other).nanos;
  }),
  celMethod("compareTo", CelScalar.DYN, [CelScalar.DYN], CelScalar.INT, function (other) {
    return compare(quantityType.expect(this).nanos, quantityType.expect(other).nanos);
  }),
];
