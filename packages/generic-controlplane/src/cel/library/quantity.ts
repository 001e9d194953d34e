import { CelScalar, celError, celFunc, celMethod } from "@bufbuild/cel";
import { parseQuantityScaled } from "../../api/quantity.js";
import { OpaqueType } from "./opaque.js";

/**
 * Kubernetes' quantity library (apiserver `library/quantity.go`): `quantity('1.5Gi')`,
 * `isQuantity`, `sign`, `isInteger`, `asInteger`, `asApproximateFloat`, `add`, `sub`,
 * `isGreaterThan`, `isLessThan`, `compareTo`, with `==` comparing amounts (`1000m == 1`).
 * Amounts are exact to a nano unit, rounded away from zero below that as apimachinery's
 * `ParseQuantity` rounds.
 */

const NANO_DECIMALS = 9;
const NANOS_PER_UNIT = 1_000_000_000n;
const MAX_INT64 = 9223372036854775807n;
const MIN_INT64 = -9223372036854775808n;

interface Quantity {
  /** The amount in nano units. */
  nanos: bigint;
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
    const parsed = parseQuantityScaled(text, NANO_DECIMALS);
    if (!parsed.ok) throw celError(parsed.error);
    return wrap(parsed.value);
  }),
  celFunc("isQuantity", [CelScalar.STRING], CelScalar.BOOL, (text) => parseQuantityScaled(text, NANO_DECIMALS).ok),
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
