import { QuantityError } from "./errors.js";
import { formatQuantity } from "./format.js";
import { MAX_EXPONENT, parseQuantity, type QuantityFormat } from "./parse.js";

const NANO_PER_UNIT = 1_000_000_000n;
const NANO_PER_MILLI = 1_000_000n;
const MAX_INT64 = (1n << 63n) - 1n;
const MIN_INT64 = -(1n << 63n);
/** Magnitudes from 10^(MAX_EXPONENT+1) on (in nanos) are out of range. */
const NANO_LIMIT = 10n ** (MAX_EXPONENT + 1n + 9n);

/** n / d rounded away from zero (d > 0), the rounding apimachinery uses for every accessor. */
function divideAwayFromZero(n: bigint, d: bigint): bigint {
  const quotient = n / d;
  if (quotient * d === n) return quotient;
  return n < 0n ? quotient - 1n : quotient + 1n;
}

/** value × 10^scale expressed in nanos, rounded away from zero below nano precision. */
function scaledToNanos(value: bigint, scale: bigint): bigint {
  const shift = scale + 9n;
  return shift >= 0n ? value * 10n ** shift : divideAwayFromZero(value, 10n ** -shift);
}

/** A power-of-ten exponent as a bigint, bounded like parsed exponents. */
function checkScale(scale: number): bigint {
  const exponent = Number.isSafeInteger(scale) ? BigInt(scale) : undefined;
  if (exponent === undefined || exponent > MAX_EXPONENT || exponent < -MAX_EXPONENT) {
    throw new QuantityError("invalid-argument", `scale must be an integer exponent within ±${MAX_EXPONENT}, got ${scale}`);
  }
  return exponent;
}

/**
 * An exact Kubernetes `resource.Quantity`: a signed count of nano units (10⁻⁹) held in a bigint,
 * plus the format family it was written in. Immutable; every operation returns a new value.
 *
 * ```ts
 * Quantity.parse("1.5Gi").toString(); // "1536Mi"
 * Quantity.parse("250m").add(Quantity.parse("1")).toString(); // "1250m"
 * ```
 */
export class Quantity {
  /** The value in nano units (value × 10⁹), exact. */
  readonly nanos: bigint;
  /** The suffix family used when printing: `1Gi` is BinarySI, `1G` DecimalSI, `1e9` DecimalExponent. */
  readonly format: QuantityFormat;

  private constructor(nanos: bigint, format: QuantityFormat) {
    if (nanos >= NANO_LIMIT || nanos <= -NANO_LIMIT) {
      // Past this, the canonical form needs an exponent above MAX_EXPONENT and would not parse back.
      throw new QuantityError(
        "quantity-range",
        `quantity out of range: its magnitude must stay below 1e${MAX_EXPONENT + 1n} so that its canonical form parses back`,
      );
    }
    this.nanos = nanos;
    this.format = format;
  }

  /** Parses a quantity string; throws a `QuantityError` whose message names the text and the problem. */
  static parse(text: string): Quantity {
    const { nanos, format } = parseQuantity(text);
    return new Quantity(nanos, format);
  }

  /** Like `parse`, but returns `undefined` for text that is not a quantity. */
  static tryParse(text: string): Quantity | undefined {
    try {
      return Quantity.parse(text);
    } catch {
      return undefined;
    }
  }

  /** A whole number of units (`NewQuantity`). */
  static of(value: bigint, format: QuantityFormat = "DecimalSI"): Quantity {
    return new Quantity(value * NANO_PER_UNIT, format);
  }

  /** A number of thousandths (`NewMilliQuantity`): `Quantity.ofMilli(1500n)` is `1500m`. */
  static ofMilli(value: bigint, format: QuantityFormat = "DecimalSI"): Quantity {
    return new Quantity(value * NANO_PER_MILLI, format);
  }

  /**
   * `value × 10^scale` (`NewScaledQuantity`). Scales finer than nano round away from zero to nano,
   * the same rounding parsing applies.
   */
  static ofScaled(value: bigint, scale: number, format: QuantityFormat = "DecimalSI"): Quantity {
    return new Quantity(scaledToNanos(value, checkScale(scale)), format);
  }

  /** A value given directly in nano units. */
  static fromNanos(nanos: bigint, format: QuantityFormat = "DecimalSI"): Quantity {
    return new Quantity(nanos, format);
  }

  /** Zero, printed as `0` whatever the format. */
  static zero(format: QuantityFormat = "DecimalSI"): Quantity {
    return new Quantity(0n, format);
  }

  /** True for a `Quantity` of this copy of the package. */
  static isQuantity(value: unknown): value is Quantity {
    return value instanceof Quantity;
  }

  isZero(): boolean {
    return this.nanos === 0n;
  }

  /** -1, 0 or 1. */
  sign(): -1 | 0 | 1 {
    return this.nanos < 0n ? -1 : this.nanos > 0n ? 1 : 0;
  }

  /** The sum; keeps this format unless this is zero, in which case `other`'s (as apimachinery). */
  add(other: Quantity): Quantity {
    return new Quantity(this.nanos + other.nanos, this.nanos === 0n ? other.format : this.format);
  }

  /** The difference; keeps this format unless this is zero, in which case `other`'s (as apimachinery). */
  sub(other: Quantity): Quantity {
    return new Quantity(this.nanos - other.nanos, this.nanos === 0n ? other.format : this.format);
  }

  /** The product with an integer; keeps the format. */
  mul(factor: bigint): Quantity {
    return new Quantity(this.nanos * factor, this.format);
  }

  /** The quotient by a positive integer, rounded down (toward −∞) to nano precision. */
  divFloor(divisor: bigint): Quantity {
    if (divisor <= 0n) {
      throw new QuantityError("invalid-argument", `a divisor must be a positive integer, got ${divisor}`);
    }
    const quotient = this.nanos / divisor;
    const floored = quotient * divisor > this.nanos ? quotient - 1n : quotient;
    return new Quantity(floored, this.format);
  }

  neg(): Quantity {
    return new Quantity(-this.nanos, this.format);
  }

  abs(): Quantity {
    return this.nanos < 0n ? this.neg() : this;
  }

  /** -1, 0 or 1 as this is less than, equal to or greater than `other`; formats are ignored. */
  cmp(other: Quantity): -1 | 0 | 1 {
    return this.nanos < other.nanos ? -1 : this.nanos > other.nanos ? 1 : 0;
  }

  /** Equal values, whatever their formats (`1Gi` equals `1024Mi` and `1073741824`). */
  equals(other: Quantity): boolean {
    return this.nanos === other.nanos;
  }

  /** The smaller of the two (this one when equal). */
  min(other: Quantity): Quantity {
    return other.nanos < this.nanos ? other : this;
  }

  /** The larger of the two (this one when equal). */
  max(other: Quantity): Quantity {
    return other.nanos > this.nanos ? other : this;
  }

  /** The value in whole units, rounded away from zero: `100m` → 1n, `1.5` → 2n (apimachinery `Value()`). */
  value(): bigint {
    return divideAwayFromZero(this.nanos, NANO_PER_UNIT);
  }

  /**
   * The value as a whole int64, or undefined when it has a fraction or does not fit (apimachinery
   * `AsInt64()`'s `ok`).
   */
  asInt64(): bigint | undefined {
    if (this.nanos % NANO_PER_UNIT !== 0n) return undefined;
    const units = this.nanos / NANO_PER_UNIT;
    return units >= MIN_INT64 && units <= MAX_INT64 ? units : undefined;
  }

  /** The nearest double, for display and heuristics only (apimachinery `AsApproximateFloat64()`). */
  asApproximateFloat64(): number {
    return Number(this.nanos) / Number(NANO_PER_UNIT);
  }

  /** ceil(value × 1000), rounding away from zero (apimachinery `MilliValue()`; how the kubelet counts CPU). */
  milliValue(): bigint {
    return divideAwayFromZero(this.nanos, NANO_PER_MILLI);
  }

  /** ceil(value / 10^scale), rounding away from zero (apimachinery `ScaledValue(scale)`). */
  scaledValue(scale: number): bigint {
    const shift = checkScale(scale) + 9n;
    return shift >= 0n ? divideAwayFromZero(this.nanos, 10n ** shift) : this.nanos * 10n ** -shift;
  }

  /**
   * This value rounded away from zero to a multiple of 10^scale, and whether that lost nothing
   * (apimachinery `RoundUp(scale)`): `9.01` at scale -1 is `9.1`, inexact.
   */
  roundUp(scale: number): { quantity: Quantity; exact: boolean } {
    const shift = checkScale(scale) + 9n;
    if (shift <= 0n) return { quantity: this, exact: true };
    const step = 10n ** shift;
    const rounded = divideAwayFromZero(this.nanos, step) * step;
    return { quantity: new Quantity(rounded, this.format), exact: rounded === this.nanos };
  }

  /** This value rounded down (toward −∞) to a multiple of `step` (> 0). */
  floorTo(step: Quantity): Quantity {
    const unit = positiveStep(step);
    const remainder = ((this.nanos % unit) + unit) % unit;
    return new Quantity(this.nanos - remainder, this.format);
  }

  /** This value rounded up (toward +∞) to a multiple of `step` (> 0). */
  ceilTo(step: Quantity): Quantity {
    const floored = this.floorTo(step);
    return floored.nanos === this.nanos ? floored : new Quantity(floored.nanos + step.nanos, this.format);
  }

  /** The same value printed in another format family. */
  withFormat(format: QuantityFormat): Quantity {
    return format === this.format ? this : new Quantity(this.nanos, format);
  }

  /** The canonical string apimachinery would serialise (`1.5` → `1500m`, `1.5Gi` → `1536Mi`). */
  toString(): string {
    return formatQuantity(this.nanos, this.format);
  }

  /** Serialises as the canonical string, so `JSON.stringify` and YAML emit what the API server would. */
  toJSON(): string {
    return this.toString();
  }

  /** `Quantity <1536Mi>` in `console.log` and the REPL. */
  [Symbol.for("nodejs.util.inspect.custom")](): string {
    return `Quantity <${this.toString()}>`;
  }
}

function positiveStep(step: Quantity): bigint {
  if (step.nanos <= 0n) {
    throw new QuantityError("invalid-argument", `a rounding step must be positive, got ${step.toString()}`);
  }
  return step.nanos;
}
