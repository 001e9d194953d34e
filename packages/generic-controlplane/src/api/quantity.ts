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

/** How a quantity prints (apimachinery's `resource.Format`): kept from the text it was read from. */
export type QuantityFormat = "DecimalSI" | "BinarySI" | "DecimalExponent";

/** The format apimachinery gives a quantity parsed from `text`: by its suffix (`Ki`…: binary, `e3`: exponent). */
export function quantityFormatOf(text: string): QuantityFormat {
  if (/i$/.test(text)) return "BinarySI";
  if (/[eE][-+]?[0-9]+$/.test(text)) return "DecimalExponent";
  return "DecimalSI";
}

const DECIMAL_SUFFIX: Record<string, string> = { "-9": "n", "-6": "u", "-3": "m", "0": "", "3": "k", "6": "M", "9": "G", "12": "T", "15": "P", "18": "E" };
const BINARY_SUFFIXES = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"];

/**
 * `resource.Quantity.String()` of an amount in thousandths: the canonical form in `format`, with
 * the largest suffix that keeps the number whole (`2000m` → `2`, `1536Mi` stays, `2000` → `2k`).
 * Binary amounts under 1024 or with a fraction print in decimal, as apimachinery's do.
 */
export function formatQuantity(milli: bigint, format: QuantityFormat = "DecimalSI"): string {
  if (milli < 0n) return `-${formatQuantity(-milli, format)}`;
  if (milli === 0n) return "0";
  if (format === "BinarySI" && milli % 1000n === 0n && milli >= 1024_000n) {
    let whole = milli / 1000n;
    let power = 0;
    while (power < BINARY_SUFFIXES.length - 1 && whole % 1024n === 0n) {
      whole /= 1024n;
      power++;
    }
    return `${whole}${BINARY_SUFFIXES[power]}`;
  }
  let mantissa = milli;
  let exponent = -3;
  while (mantissa % 10n === 0n && exponent < 18) {
    mantissa /= 10n;
    exponent++;
  }
  while (exponent % 3 !== 0) {
    mantissa *= 10n;
    exponent--;
  }
  if (format === "DecimalExponent") return exponent === 0 ? `${mantissa}` : `${mantissa}e${exponent}`;
  return `${mantissa}${DECIMAL_SUFFIX[String(exponent)] ?? ""}`;
}
