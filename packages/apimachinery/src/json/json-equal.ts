/**
 * What undefined is in a deep comparison, the rule the callers' meanings of "equal" differ on:
 * - "value": a value like null, equal to undefined only; a key holding it is a key like any other.
 * - "unequal": equal to nothing, itself included, so a value holding it anywhere equals nothing:
 *   two references to one container are walked like two copies.
 * - "omitted": what JSON.stringify leaves out, as are functions and symbols: a key holding it is
 *   absent, an array item holding it is null, and two such values equal each other.
 */
export type UndefinedRule = "value" | "unequal" | "omitted";

/**
 * How a deep comparison treats what is not plain JSON data: `undefinedValue` as above, and
 * `notPlainData` for objects of another prototype than `Object.prototype` (or none), such as a Date:
 * - "keys": compared by their own enumerable keys, as records.
 * - "unequal": equal to nothing but, where undefined is not "unequal", the same object.
 * - "text": the comparison is the one of the JSON texts `text` writes (JSON.stringify's, object
 *   keys sorted): a number that is not finite is null, a bigint equals the number written with the
 *   same digits, and when a walk meets an object JSON.stringify converts first (a Date, anything
 *   with a `toJSON` method) the answer is `text(a) === text(b)` for the two whole values.
 */
export type JsonEqualRules =
  | { readonly undefinedValue: UndefinedRule; readonly notPlainData: "keys" | "unequal" }
  | { readonly undefinedValue: UndefinedRule; readonly notPlainData: "text"; readonly text: (value: unknown) => string | undefined };

/** Decoded JSON values: undefined is a value, any object compares by its keys. */
const JSON_VALUES: JsonEqualRules = { undefinedValue: "value", notPlainData: "keys" };

/**
 * Deep equality of JSON values (object key order ignored), under `rules` (by default, decoded JSON
 * values: undefined equals undefined, a key holding it is present, any object compares by its own
 * keys). Two references to one value are equal without a walk unless undefined is "unequal". The
 * walk keeps an explicit stack, as values nest 10,000 levels deep, and stops at the first difference.
 */
export function jsonEqual(a: unknown, b: unknown, rules: JsonEqualRules = JSON_VALUES): boolean {
  const sameIsEqual = rules.undefinedValue !== "unequal";
  if (a === b && sameIsEqual) return true;
  const omitted = rules.undefinedValue === "omitted";
  if (omitted && (omittedFromJson(a) || omittedFromJson(b))) return omittedFromJson(a) && omittedFromJson(b);
  const anyObject = rules.notPlainData === "keys";
  const asText = rules.notPlainData === "text";
  const pending: unknown[] = [a, b];
  while (pending.length > 0) {
    const right = pending.pop();
    const left = pending.pop();
    if (left === right) {
      if (sameIsEqual) continue;
      if (left === undefined) return false;
      if (typeof left !== "object" || left === null) continue;
    }
    const leftIsObject = typeof left === "object" && left !== null;
    const rightIsObject = typeof right === "object" && right !== null;
    if (!leftIsObject || !rightIsObject) {
      if (!asText) return false;
      if ((leftIsObject && !isPlainData(left, true)) || (rightIsObject && !isPlainData(right, true)))
        return rules.text(a) === rules.text(b);
      if (leftIsObject || rightIsObject || !sameJsonLeaf(left, right)) return false;
      continue;
    }
    if (!anyObject && (!isPlainData(left, asText) || !isPlainData(right, asText))) return asText && rules.text(a) === rules.text(b);
    if (Array.isArray(left)) {
      if (!Array.isArray(right) || left.length !== right.length) return false;
      if (omitted) for (let i = 0; i < left.length; i++) pending.push(arrayItemJson(left[i]), arrayItemJson(right[i]));
      else for (let i = 0; i < left.length; i++) pending.push(left[i], right[i]);
      continue;
    }
    if (Array.isArray(right)) return false;
    const l = left as Record<string, unknown>;
    const r = right as Record<string, unknown>;
    if (omitted) {
      if (!pushPresentPairs(l, r, pending)) return false;
      continue;
    }
    const keys = Object.keys(l);
    if (keys.length !== Object.keys(r).length) return false;
    for (const key of keys) {
      if (!Object.hasOwn(r, key)) return false;
      pending.push(l[key], r[key]);
    }
  }
  return true;
}

/**
 * Whether an object is an array or a record of `Object.prototype` (or none), and, when compared
 * as text, one JSON.stringify writes as it is (without a `toJSON` method).
 */
function isPlainData(value: object, asText: boolean): boolean {
  if (asText && typeof (value as { toJSON?: unknown }).toJSON === "function") return false;
  if (Array.isArray(value)) return true;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/** Queues the values of two records under the keys whose values JSON.stringify writes; false when those keys differ. */
function pushPresentPairs(l: Record<string, unknown>, r: Record<string, unknown>, pending: unknown[]): boolean {
  let present = 0;
  for (const key of Object.keys(l)) {
    const item = l[key];
    if (omittedFromJson(item)) continue;
    present++;
    if (!Object.hasOwn(r, key)) return false;
    const other = r[key];
    if (omittedFromJson(other)) return false;
    pending.push(item, other);
  }
  for (const key of Object.keys(r)) if (!omittedFromJson(r[key])) present--;
  return present === 0;
}

/** What JSON.stringify leaves out of an object (and writes as null in an array). */
function omittedFromJson(value: unknown): boolean {
  return value === undefined || typeof value === "function" || typeof value === "symbol";
}

function arrayItemJson(value: unknown): unknown {
  return omittedFromJson(value) ? null : value;
}

/** Two primitives' JSON texts are the same. */
function sameJsonLeaf(a: unknown, b: unknown): boolean {
  const left = typeof a === "number" && !Number.isFinite(a) ? null : a;
  const right = typeof b === "number" && !Number.isFinite(b) ? null : b;
  if (left === right) return true;
  if (typeof left === "bigint" && typeof right === "number") return left.toString() === JSON.stringify(right);
  if (typeof left === "number" && typeof right === "bigint") return JSON.stringify(left) === right.toString();
  return false;
}
