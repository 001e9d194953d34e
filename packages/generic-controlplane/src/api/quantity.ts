/**
 * Resource quantities (`100m`, `1Gi`, `2`, `1e3`) as apimachinery's `resource.Quantity` reads
 * them, kept as exact milli-units in a bigint so sums never round.
 */

/** apimachinery's error for text that is not a quantity. */
export const QUANTITY_FORMAT_MESSAGE = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

const BINARY: Record<string, bigint> = { Ki: 1n << 10n, Mi: 1n << 20n, Gi: 1n << 30n, Ti: 1n << 40n, Pi: 1n << 50n, Ei: 1n << 60n };
const DECIMAL_EXPONENT: Record<string, number> = { n: -9, u: -6, m: -3, "": 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };

/** The quantity in thousandths (rounded up, as upstream's MilliValue), or undefined when it is not one. */
export function parseMilli(text: string): bigint | undefined {
  const match = /^([+-]?)([0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E)|[eE]([+-]?[0-9]+))?$/.exec(text);
  if (match === null) return undefined;
  const [, sign, number, suffix, exponentText] = match;
  const [whole = "", fraction = ""] = (number ?? "").split(".");
  // value = digits × 10^(exponent − fraction length), scaled to milli-units.
  let digits = BigInt((whole || "0") + fraction);
  let multiplier = 1n;
  let exponent = -fraction.length + 3;
  if (suffix !== undefined && BINARY[suffix] !== undefined) multiplier = BINARY[suffix];
  else if (suffix !== undefined) exponent += DECIMAL_EXPONENT[suffix] ?? 0;
  else if (exponentText !== undefined) exponent += Number(exponentText);
  digits *= multiplier;
  let milli: bigint;
  if (exponent >= 0) milli = digits * 10n ** BigInt(exponent);
  else {
    const divisor = 10n ** BigInt(-exponent);
    milli = (digits + divisor - 1n) / divisor;
  }
  return sign === "-" ? -milli : milli;
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
