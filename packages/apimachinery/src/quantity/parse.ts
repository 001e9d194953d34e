import { QUANTITY_FORMAT_MESSAGE, QUANTITY_NUMERIC_MESSAGE, QUANTITY_SUFFIX_MESSAGE, QuantityError } from "./errors.js";

/** How a quantity is written, and so how it is written back. */
export type QuantityFormat = "DecimalSI" | "BinarySI" | "DecimalExponent";

/** A parsed quantity: an exact count of nano units (10⁻⁹) and the format family of its suffix. */
export interface ParsedQuantity {
  readonly nanos: bigint;
  readonly format: QuantityFormat;
}

const SUFFIX_CHARS = "eEinumkKMGTP";

/** Exponents beyond this are rejected instead of building numbers with tens of thousands of digits. */
export const MAX_EXPONENT = 10000n;

const NANO_PER_UNIT = 1_000_000_000n;
/** BinarySI values are capped at int64's maximum at parse time, like apimachinery does. */
const MAX_BINARY_NANOS = ((1n << 63n) - 1n) * NANO_PER_UNIT;

const DECIMAL_SUFFIXES: ReadonlyMap<string, bigint> = new Map([
  ["n", -9n],
  ["u", -6n],
  ["m", -3n],
  ["", 0n],
  ["k", 3n],
  ["M", 6n],
  ["G", 9n],
  ["T", 12n],
  ["P", 15n],
  ["E", 18n],
]);

const BINARY_SUFFIXES: ReadonlyMap<string, bigint> = new Map([
  ["Ki", 10n],
  ["Mi", 20n],
  ["Gi", 30n],
  ["Ti", 40n],
  ["Pi", 50n],
  ["Ei", 60n],
]);

interface Scanned {
  negative: boolean;
  num: string;
  denom: string;
  suffix: string;
}

function isDigit(ch: string | undefined): boolean {
  return ch !== undefined && ch >= "0" && ch <= "9";
}

/** A nudge for the spellings people carry over from other tools ("GB", "K", "mb"). */
function hint(text: string): string {
  const unit = /([kKmMgGtTpPeE])[bB]$/.exec(text)?.[1] ?? /K$/.exec(text)?.[0];
  if (!unit) return "";
  const upper = unit.toUpperCase();
  const decimal = upper === "K" ? "k" : upper;
  return ` (did you mean ${decimal} or ${upper}i?)`;
}

function formatError(text: string): QuantityError {
  return new QuantityError(
    "quantity-format",
    QUANTITY_FORMAT_MESSAGE,
    `invalid quantity ${JSON.stringify(text)}: ${QUANTITY_FORMAT_MESSAGE}${hint(text)}`,
  );
}

/** The scanner of apimachinery's `parseQuantityString`: sign, integer digits, fraction, suffix. */
function scan(text: string): Scanned {
  let pos = 0;
  let negative = false;
  if (text[0] === "-") {
    negative = true;
    pos++;
  } else if (text[0] === "+") {
    pos++;
  }
  const numStart = pos;
  while (isDigit(text[pos])) pos++;
  const num = text.slice(numStart, pos);
  let denom = "";
  if (text[pos] === ".") {
    pos++;
    const denomStart = pos;
    while (isDigit(text[pos])) pos++;
    denom = text.slice(denomStart, pos);
  }
  const suffixStart = pos;
  while (pos < text.length && SUFFIX_CHARS.includes(text[pos] as string)) pos++;
  if (text[pos] === "-" || text[pos] === "+") pos++;
  while (isDigit(text[pos])) pos++;
  if (pos < text.length) throw formatError(text);
  return { negative, num, denom, suffix: text.slice(suffixStart) };
}

interface Suffix {
  base: 2n | 10n;
  exponent: bigint;
  format: QuantityFormat;
}

function interpretSuffix(text: string, suffix: string): Suffix {
  const decimal = DECIMAL_SUFFIXES.get(suffix);
  if (decimal !== undefined) return { base: 10n, exponent: decimal, format: "DecimalSI" };
  const binary = BINARY_SUFFIXES.get(suffix);
  if (binary !== undefined) return { base: 2n, exponent: binary, format: "BinarySI" };
  if (suffix.length > 1 && (suffix[0] === "e" || suffix[0] === "E") && /^[+-]?[0-9]+$/.test(suffix.slice(1))) {
    const exponent = BigInt(suffix.slice(1));
    if (exponent > MAX_EXPONENT || exponent < -MAX_EXPONENT) {
      const reason = `exponent ${exponent} is outside ±${MAX_EXPONENT}`;
      throw new QuantityError("quantity-range", reason, `invalid quantity ${JSON.stringify(text)}: ${reason}`);
    }
    return { base: 10n, exponent, format: "DecimalExponent" };
  }
  throw new QuantityError(
    "quantity-suffix",
    QUANTITY_SUFFIX_MESSAGE,
    `invalid quantity ${JSON.stringify(text)}: ${QUANTITY_SUFFIX_MESSAGE} ${JSON.stringify(suffix)}${hint(text)}`,
  );
}

/** numerator / divisor rounded up, for a non-negative numerator and a positive divisor. */
function divideRoundingUp(numerator: bigint, divisor: bigint): bigint {
  const quotient = numerator / divisor;
  return quotient * divisor === numerator ? quotient : quotient + 1n;
}

/**
 * Parses `text` exactly like apimachinery's `ParseQuantity`: the value is rounded away from zero
 * to a whole number of nano units, BinarySI magnitudes are capped at 2⁶³−1, and a BinarySI value
 * strictly between 0 and 1 becomes DecimalSI.
 *
 * One deliberate difference: a number with no digits at all (`"."`, `"-"`, `"Mi"`) is rejected.
 * apimachinery reads some of those as zero and rejects others depending on an internal fast path.
 */
export function parseQuantity(text: string): ParsedQuantity {
  if (text.length === 0) throw formatError(text);
  const { negative, num, denom, suffix } = scan(text);
  const { base, exponent, format: suffixFormat } = interpretSuffix(text, suffix);
  if (num.length === 0 && denom.length === 0) {
    throw new QuantityError(
      "quantity-numeric",
      QUANTITY_NUMERIC_MESSAGE,
      `invalid quantity ${JSON.stringify(text)}: ${QUANTITY_NUMERIC_MESSAGE}`,
    );
  }
  let format = suffixFormat;
  const digits = BigInt(num + denom);
  const fractionDigits = BigInt(denom.length);

  // value = digits × 10^(−fractionDigits) × base^exponent; in nanos the power of ten gains 9.
  let numerator = digits;
  let tenPower = 9n - fractionDigits;
  if (base === 10n) tenPower += exponent;
  else numerator <<= exponent;

  let nanos: bigint;
  if (tenPower >= 0n) {
    nanos = numerator * 10n ** tenPower;
  } else if (numerator === 0n) {
    nanos = 0n;
  } else if (-tenPower > BigInt(numerator.toString().length)) {
    // Any non-zero amount this small rounds up to one nano unit.
    nanos = 1n;
  } else {
    nanos = divideRoundingUp(numerator, 10n ** -tenPower);
  }

  if (format === "BinarySI" && nanos > MAX_BINARY_NANOS) nanos = MAX_BINARY_NANOS;
  if (format === "BinarySI" && nanos > 0n && nanos < NANO_PER_UNIT) format = "DecimalSI";
  return { nanos: negative ? -nanos : nanos, format };
}
