/**
 * JSON that keeps every int64 exact. A kube object's integers are Go int64s; JSON.parse would round
 * one beyond 2^53 (9007199254740993 becomes …992, the int64 maximum becomes 2^63, outside int64).
 * Integer literals beyond 2^53 that fit int64 decode as bigint, as Go's decoder keeps them as int64;
 * any other number stays a double, as Go's float64. Node's JSON source-text access (the reviver's
 * `context.source`) and `JSON.rawJSON` make this lossless without a second parser, and only text
 * that holds a long enough run of digits pays for the reviver.
 */

import { parseValidJsonIteratively, stringifyIteratively } from "./deep-json.js";

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
  const revive = (source: string, value: number, holder: object, key: string): unknown => {
    if (Number.isSafeInteger(value)) return value;
    const exact = int64Literal(source);
    if (exact !== undefined) return exact;
    if (onInexactInteger !== undefined && Number.isInteger(value)) onInexactInteger(holder, key, source);
    return value;
  };
  try {
    return JSON.parse(text, function (this: object, key: string, value: unknown, context?: { source?: string }): unknown {
      if (typeof value !== "number" || context?.source === undefined) return value;
      return revive(context.source, value, this, key);
    } as (this: unknown, key: string, value: unknown) => unknown);
  } catch (error) {
    // The reviver walk recurses once per level and overflows the stack long before Kubernetes'
    // nesting limit; the text itself was valid (JSON.parse reads it before reviving).
    if (!(error instanceof RangeError)) throw error;
    return parseValidJsonIteratively(text, revive);
  }
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

function exactLeaf(value: unknown): string | undefined {
  return typeof value === "bigint" ? value.toString() : JSON.stringify(value);
}

/**
 * JSON.stringify that writes bigints as their exact integer literal. Objects without one (nearly
 * all) serialize with plain JSON.stringify; JSON.stringify refuses a bigint with a TypeError,
 * and only then is the value serialized again with the replacer. A value nested deeper than
 * JSON.stringify's recursion reaches (about 4,400 levels; Kubernetes allows 10,000) is written
 * with an explicit stack instead.
 */
export function stringifyExactJson(value: unknown, space?: number): string {
  try {
    try {
      return JSON.stringify(value, null, space);
    } catch (error) {
      if (!(error instanceof TypeError)) throw error;
      return JSON.stringify(value, bigintAsRawJson, space);
    }
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return stringifyIteratively(value, exactLeaf, space);
  }
}

function sortedKeys(_key: string, value: unknown): unknown {
  if (typeof value === "bigint") return int64Json(value);
  if (value === null || typeof value !== "object" || Array.isArray(value)) return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) {
    // A "__proto__" key is data: defined, not assigned (assigning would set the prototype).
    Object.defineProperty(sorted, key, {
      value: (value as Record<string, unknown>)[key],
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return sorted;
}

/**
 * JSON with every object's keys sorted (and bigints exact), so two values compare equal whatever
 * order their keys came in; deep values are written with an explicit stack, as stringifyExactJson's.
 */
export function sortedExactJson(value: unknown): string {
  try {
    return JSON.stringify(value, sortedKeys);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return stringifyIteratively(value, exactLeaf, 0, true);
  }
}
