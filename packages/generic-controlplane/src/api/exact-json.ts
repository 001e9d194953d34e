/**
 * JSON that keeps every int64 exact. A kube object's integers are Go int64s; JSON.parse would round
 * one beyond 2^53 (9007199254740993 becomes …992, the int64 maximum becomes 2^63, outside int64).
 * Integer literals beyond 2^53 that fit int64 decode as bigint, as Go's decoder keeps them as int64;
 * any other number stays a double, as Go's float64. Node's JSON source-text access (the reviver's
 * `context.source`) and `JSON.rawJSON` make this lossless without a second parser, and only text
 * that holds a long enough run of digits pays for the reviver.
 */

/** Go's int64 bounds. */
export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;
/** A run of digits long enough to be an integer a double cannot hold exactly. */
const LONG_NUMBER = /\d{16}/;
const INTEGER_LITERAL = /^-?\d+$/;

/** Whether `text` may hold an integer JSON.parse would round. */
export function mayHoldLongIntegers(text: string): boolean {
  return LONG_NUMBER.test(text);
}

/** The int64 a literal names, or undefined when it is not an integer literal within int64. */
export function int64Literal(source: string): bigint | undefined {
  if (!INTEGER_LITERAL.test(source)) return undefined;
  const value = BigInt(source);
  return value < INT64_MIN || value > INT64_MAX ? undefined : value;
}

/**
 * An integer another decoder read exactly (YAML's, as a bigint) as a JSON decode would hold it: a
 * double when a double holds it exactly, the bigint within int64, and beyond int64 the rounded
 * double Go's float64 would be.
 */
export function asDecodedInteger(value: bigint): number | bigint {
  const double = Number(value);
  if (Number.isSafeInteger(double) || value < INT64_MIN || value > INT64_MAX) return double;
  return value;
}

/** Told of each integer literal that stays a rounded double (no int64 holds it): its holder, key and text. */
export type InexactInteger = (holder: object, key: string, source: string) => void;

/**
 * JSON.parse, with integer literals beyond 2^53 that fit int64 as bigint; `onInexactInteger` hears
 * of the integer literals beyond int64, which stay doubles as Go's float64.
 */
export function parseExactJson(text: string, onInexactInteger?: InexactInteger): unknown {
  if (!mayHoldLongIntegers(text)) return JSON.parse(text);
  return JSON.parse(text, function (this: unknown, key: string, value: unknown, context?: { source?: string }): unknown {
    if (typeof value !== "number" || Number.isSafeInteger(value) || context?.source === undefined) return value;
    const exact = int64Literal(context.source);
    if (exact !== undefined) return exact;
    if (onInexactInteger !== undefined && Number.isInteger(value) && typeof this === "object" && this !== null) onInexactInteger(this, key, context.source);
    return value;
  } as (this: unknown, key: string, value: unknown) => unknown);
}

/** Node 22+'s JSON.rawJSON, which TypeScript's lib does not declare yet. */
const rawJson = (text: string): unknown => (JSON as unknown as { rawJSON(text: string): unknown }).rawJSON(text);

/** What a JSON.stringify replacer returns for a bigint: its exact integer literal. */
export function int64Json(value: bigint): unknown {
  return rawJson(value.toString());
}

function bigintAsRawJson(_key: string, value: unknown): unknown {
  return typeof value === "bigint" ? int64Json(value) : value;
}

/**
 * JSON.stringify that writes bigints as their exact integer literal. Objects without one (nearly
 * all) serialize with plain JSON.stringify; JSON.stringify refuses a bigint with a TypeError,
 * and only then is the value serialized again with the replacer.
 */
export function stringifyExactJson(value: unknown, space?: number): string {
  try {
    return JSON.stringify(value, null, space);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    return JSON.stringify(value, bigintAsRawJson, space);
  }
}
