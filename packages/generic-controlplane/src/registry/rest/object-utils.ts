import { randomInt } from "node:crypto";
import type { KubeObject, ObjectMeta } from "../../api/types.js";
import { sortedExactJson } from "../../api/exact-json.js";
import type { ResourceDefinition } from "./resource-definition.js";

/** JSON with object keys sorted, so two objects compare equal whatever order a client sent fields in. */
export function canonicalJson(value: unknown): string {
  return sortedExactJson(value);
}

/**
 * Whether `canonicalJson(a) === canonicalJson(b)`, without writing either: a walk that stops at the
 * first difference, where every write compared two whole objects as sorted JSON text. As JSON
 * text, an object key holding undefined (or a function) is absent, such an array item is null, as
 * is a non-finite number, and a bigint equals the number written with the same digits. Values
 * JSON.stringify would turn into something else (a Date, anything with toJSON, a boxed primitive)
 * are compared as their text. The walk keeps an explicit stack, as objects nest 10,000 deep.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (omittedFromJson(a) || omittedFromJson(b)) return omittedFromJson(a) && omittedFromJson(b);
  const pending: unknown[] = [a, b];
  while (pending.length > 0) {
    const right = pending.pop();
    const left = pending.pop();
    if (left === right) continue;
    const leftKind = jsonKind(left);
    const rightKind = jsonKind(right);
    if (leftKind === "other" || rightKind === "other") return canonicalJson(a) === canonicalJson(b);
    if (leftKind !== rightKind) {
      if (leftKind === "leaf" && rightKind === "leaf") {
        if (!sameJsonLeaf(left, right)) return false;
        continue;
      }
      return false;
    }
    if (leftKind === "leaf") {
      if (!sameJsonLeaf(left, right)) return false;
    } else if (leftKind === "array") {
      const l = left as unknown[];
      const r = right as unknown[];
      if (l.length !== r.length) return false;
      for (let i = 0; i < l.length; i++) pending.push(arrayItemJson(l[i]), arrayItemJson(r[i]));
    } else {
      const l = left as Record<string, unknown>;
      const r = right as Record<string, unknown>;
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
      if (present !== 0) return false;
    }
  }
  return true;
}

/** What JSON.stringify leaves out of an object (and writes as null in an array). */
function omittedFromJson(value: unknown): boolean {
  return value === undefined || typeof value === "function" || typeof value === "symbol";
}

function arrayItemJson(value: unknown): unknown {
  return omittedFromJson(value) ? null : value;
}

/** How sameJson walks a value: a plain container, a primitive, or something JSON.stringify converts first. */
function jsonKind(value: unknown): "array" | "object" | "leaf" | "other" {
  if (typeof value !== "object" || value === null) return "leaf";
  if (Array.isArray(value)) return typeof (value as { toJSON?: unknown }).toJSON === "function" ? "other" : "array";
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return "other";
  return typeof (value as { toJSON?: unknown }).toJSON === "function" ? "other" : "object";
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

/**
 * The generation after `generation` (0 when unset). An int64 beyond 2^53 is held as a bigint and
 * counts on as one; at the int64 maximum it wraps to the minimum, as Go's int64 addition does.
 */
export function nextGeneration(generation: number | undefined): number {
  const current = generation as number | bigint | undefined;
  if (typeof current !== "bigint") return (current ?? 0) + 1;
  return BigInt.asIntN(64, current + 1n) as unknown as number;
}

/** `metav1.Time`: RFC 3339 at second precision. */
export function formatTime(date: Date): string {
  const second = Math.floor(date.getTime() / 1000);
  if (second !== formatted.second) {
    const iso = date.toISOString();
    // toISOString always ends in ".sssZ"; the wire format has whole seconds.
    formatted.second = second;
    formatted.text = `${iso.slice(0, -5)}Z`;
  }
  return formatted.text;
}

/** Most calls in a busy server fall in the second formatted last. */
const formatted = { second: Number.NaN, text: "" };

export function apiVersionOf(definition: Pick<ResourceDefinition, "group" | "version">): string {
  return definition.group === "" ? definition.version : `${definition.group}/${definition.version}`;
}

export function metadataOf(object: KubeObject): ObjectMeta {
  if (object.metadata === undefined || object.metadata === null || typeof object.metadata !== "object") object.metadata = {};
  return object.metadata;
}

/** Everything but type and object metadata and status: what `metadata.generation` tracks. */
export function specOf(object: KubeObject): Record<string, unknown> {
  const rest: Record<string, unknown> = { ...object };
  delete rest.apiVersion;
  delete rest.kind;
  delete rest.metadata;
  delete rest.status;
  return rest;
}

const GENERATED_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
const RANDOM_LENGTH = 5;
const MAX_GENERATED_BASE = 63 - RANDOM_LENGTH;

/** apiserver's `SimpleNameGenerator`: the base cut to 58 characters plus 5 random characters without vowels. */
export function generateName(base: string, random: (max: number) => number = randomInt): string {
  let suffix = "";
  for (let i = 0; i < RANDOM_LENGTH; i++) suffix += GENERATED_ALPHABET[random(GENERATED_ALPHABET.length)];
  return `${base.slice(0, MAX_GENERATED_BASE)}${suffix}`;
}
