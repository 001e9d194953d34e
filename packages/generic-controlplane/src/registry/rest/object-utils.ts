import { randomInt } from "node:crypto";
import { jsonEqual, type JsonEqualRules } from "@kubekit/apimachinery";
import type { KubeObject, ObjectMeta } from "../../api/types.js";
import { sortedExactJson } from "../../api/exact-json.js";
import type { ResourceDefinition } from "./resource-definition.js";

/** JSON with object keys sorted, so two objects compare equal whatever order a client sent fields in. */
export function canonicalJson(value: unknown): string {
  return sortedExactJson(value);
}

/**
 * What `canonicalJson(a) === canonicalJson(b)` says, without writing either: as JSON text, an
 * object key holding undefined (or a function) is absent, such an array item is null, as is a
 * non-finite number, and a bigint equals the number written with the same digits. Values
 * JSON.stringify would turn into something else (a Date, anything with toJSON, a boxed primitive)
 * are compared as their text.
 */
const SAME_JSON_TEXT: JsonEqualRules = { undefinedValue: "omitted", notPlainData: "text", text: canonicalJson };

/**
 * Whether `canonicalJson(a) === canonicalJson(b)`, by a walk that stops at the first difference
 * instead of writing two whole objects as sorted JSON text.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  return jsonEqual(a, b, SAME_JSON_TEXT);
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
