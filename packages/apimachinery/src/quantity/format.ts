import type { QuantityFormat } from "./parse.js";

const NANO_PER_UNIT = 1_000_000_000n;
const BINARY_THRESHOLD_NANOS = 1024n * NANO_PER_UNIT;

const DECIMAL_SUFFIX_BY_EXPONENT: ReadonlyMap<bigint, string> = new Map([
  [-9n, "n"],
  [-6n, "u"],
  [-3n, "m"],
  [0n, ""],
  [3n, "k"],
  [6n, "M"],
  [9n, "G"],
  [12n, "T"],
  [15n, "P"],
  [18n, "E"],
]);

/** Indexed by the power of 1024 the mantissa was divided by. */
const BINARY_SUFFIXES = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"] as const;

/** Mantissa and exponent with the largest multiple-of-three exponent that loses nothing. */
function canonicalDecimal(magnitude: bigint): { mantissa: bigint; exponent: bigint } {
  let mantissa = magnitude;
  let exponent = -9n;
  while (mantissa % 1000n === 0n) {
    mantissa /= 1000n;
    exponent += 3n;
  }
  return { mantissa, exponent };
}

function decimalSuffix(exponent: bigint, format: "DecimalSI" | "DecimalExponent"): string {
  if (format === "DecimalSI") {
    const suffix = DECIMAL_SUFFIX_BY_EXPONENT.get(exponent);
    // DecimalSI has no suffix past E (10^18): fall back to exponent notation, as apimachinery does.
    if (suffix !== undefined) return suffix;
  }
  return exponent === 0n ? "" : `e${exponent}`;
}

/**
 * apimachinery's canonical form (`Quantity.String()`): no fractional digits, the largest suffix
 * or exponent that loses no precision, a sign only when negative, and zero as `0`.
 *
 * BinarySI prints as DecimalSI when |value| < 1024 or the value is not a whole number. Powers of
 * 1024 stop at `Ei`, so 2⁷⁰ prints as `1024Ei` (apimachinery would drop the unit there).
 */
export function formatQuantity(nanos: bigint, format: QuantityFormat): string {
  if (nanos === 0n) return "0";
  const sign = nanos < 0n ? "-" : "";
  const magnitude = nanos < 0n ? -nanos : nanos;

  if (format === "BinarySI" && magnitude >= BINARY_THRESHOLD_NANOS && magnitude % NANO_PER_UNIT === 0n) {
    let mantissa = magnitude / NANO_PER_UNIT;
    let power = 0;
    while (power < BINARY_SUFFIXES.length - 1 && mantissa % 1024n === 0n) {
      mantissa /= 1024n;
      power++;
    }
    return `${sign}${mantissa}${BINARY_SUFFIXES[power]}`;
  }

  const decimalFormat = format === "DecimalExponent" ? "DecimalExponent" : "DecimalSI";
  const { mantissa, exponent } = canonicalDecimal(magnitude);
  return `${sign}${mantissa}${decimalSuffix(exponent, decimalFormat)}`;
}
