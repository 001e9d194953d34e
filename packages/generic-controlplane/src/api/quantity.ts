/**
 * Resource quantities (`100m`, `1Gi`, `2`, `1e3`) as apimachinery's `resource.Quantity` reads
 * them, kept as exact milli-units in a bigint so sums never round.
 */

/** apimachinery's error for text that is not a quantity. */
export const QUANTITY_FORMAT_MESSAGE = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

const DECIMAL_EXPONENT: Record<string, bigint> = { n: -9n, u: -6n, m: -3n, "": 0n, k: 3n, M: 6n, G: 9n, T: 12n, P: 15n, E: 18n };
const BINARY_EXPONENT: Record<string, bigint> = { Ki: 10n, Mi: 20n, Gi: 30n, Ti: 40n, Pi: 50n, Ei: 60n };

/**
 * The amount of a quantity in units of 10^-`decimals` (3: milli, 9: nano), rounded away from zero
 * below that as apimachinery's `ParseQuantity` rounds, or why the text is not a quantity
 * (apimachinery's wording).
 */
export function parseQuantityScaled(text: string, decimals: number): { ok: true; value: bigint } | { ok: false; error: string } {
  const match = /^([+-]?)([0-9]*)(?:\.([0-9]*))?([eEinumkKMGTP]*[-+]?[0-9]*)$/.exec(text);
  if (match === null) return { ok: false, error: QUANTITY_FORMAT_MESSAGE };
  const [, sign = "", whole = "", fraction = "", suffix = ""] = match;
  if (whole.length === 0 && fraction.length === 0) return { ok: false, error: QUANTITY_FORMAT_MESSAGE };
  let binaryExponent = 0n;
  let decimalExponent: bigint;
  if (suffix in DECIMAL_EXPONENT) decimalExponent = DECIMAL_EXPONENT[suffix] ?? 0n;
  else if (suffix in BINARY_EXPONENT) {
    decimalExponent = 0n;
    binaryExponent = BINARY_EXPONENT[suffix] ?? 0n;
  } else if (/^[eE][-+]?[0-9]+$/.test(suffix)) {
    decimalExponent = BigInt(suffix.slice(1));
    if (decimalExponent > 10000n || decimalExponent < -10000n) return { ok: false, error: QUANTITY_FORMAT_MESSAGE };
  } else return { ok: false, error: "unable to parse quantity's suffix" };
  // value = digits × 2^binary × 10^(decimal − fraction length), scaled by 10^decimals.
  const digits = BigInt(whole + fraction || "0") << binaryExponent;
  const tenPower = BigInt(decimals - fraction.length) + decimalExponent;
  let value: bigint;
  if (tenPower >= 0n) value = digits * 10n ** tenPower;
  else {
    const divisor = 10n ** -tenPower;
    value = (digits + divisor - 1n) / divisor;
  }
  return { ok: true, value: sign === "-" ? -value : value };
}

/** The quantity in thousandths (rounded up, as upstream's MilliValue), or undefined when it is not one. */
export function parseMilli(text: string): bigint | undefined {
  const parsed = parseQuantityScaled(text, 3);
  return parsed.ok ? parsed.value : undefined;
}

/** Whether `value` is a quantity as a JSON client may send it (a string or a plain number). */
export function quantityText(value: unknown): string | undefined {
  if (typeof value === "string") return value;
  if (typeof value === "number" && Number.isFinite(value)) return String(value);
  return undefined;
}

/** A JSON value's quantity in thousandths, or undefined when it is none. */
export function milliOf(value: unknown): bigint | undefined {
  const text = quantityText(value);
  return text === undefined ? undefined : parseMilli(text);
}
