import type { JSONSchemaProps } from "../../schema/types.js";
import type { FieldError } from "../../validation/field-errors.js";
import { childPath, fieldDuplicate, fieldInvalid, indexPath, keyPath } from "../../validation/field-errors.js";
import { additionalSchemaOf, isPlainObject, itemsOf } from "./walk.js";
import { declaredProperty } from "../../schema/declared-property.js";

/**
 * The invariants of `x-kubernetes-list-type: set` and `map` (apiextensions-apiserver's
 * `schema/listtype`): set items are unique, map items are objects with unique key tuples. Each
 * repeated value is reported once, at its second occurrence, as `Duplicate value`.
 */

/** Go's `json.Marshal`: map keys sorted, so equal values have equal text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (isPlainObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** A scalar's identity: Go compares interface values, so `1` and `"1"` differ. */
function scalarKey(value: unknown): string {
  return `${typeof value}:${JSON.stringify(value) ?? "null"}`;
}

/** Indices of the second occurrence of each repeated key. */
function secondOccurrences(keys: string[]): number[] {
  const seen = new Map<string, number>();
  const out: number[] = [];
  keys.forEach((key, i) => {
    const times = seen.get(key) ?? 0;
    if (times === 1) out.push(i);
    seen.set(key, times + 1);
  });
  return out;
}

function validateSet(path: string, list: unknown[]): FieldError[] {
  if (list.length <= 1) return [];
  const keys = list.map((x) => (isPlainObject(x) || Array.isArray(x) ? `c:${canonical(x)}` : `s:${scalarKey(x)}`));
  return secondOccurrences(keys).map((i) => fieldDuplicate(indexPath(path, i), list[i]));
}

function validateMap(path: string, schema: JSONSchemaProps, list: unknown[]): FieldError[] {
  for (let i = 0; i < list.length; i++) {
    const x = list[i];
    if (x !== null && !isPlainObject(x)) return [fieldInvalid(indexPath(path, i), x, "must be an object for an array of list-type map")];
  }
  if (list.length <= 1) return [];
  const keyFields = schema["x-kubernetes-list-map-keys"] ?? [];
  const keys = list.map((x) => {
    if (x === null) return "unspecified";
    const item = x as Record<string, unknown>;
    const tuple = keyFields.map((field) => {
      if (Object.hasOwn(item, field)) return scalarKey(item[field]);
      const fallback = declaredProperty(itemsOf(schema), field)?.default;
      return fallback !== undefined ? scalarKey(fallback) : "unspecified";
    });
    return JSON.stringify(tuple);
  });
  return secondOccurrences(keys).map((i) => fieldDuplicate(indexPath(path, i), list[i]));
}

/** `ValidateListSetsAndMaps` over the structural schema, field paths rooted at `path`. */
export function validateListSetsAndMaps(path: string, schema: JSONSchemaProps | undefined, value: unknown): FieldError[] {
  if (schema === undefined) return [];
  const errors: FieldError[] = [];
  if (Array.isArray(value)) {
    const listType = schema["x-kubernetes-list-type"];
    if (listType === "set") errors.push(...validateSet(path, value));
    else if (listType === "map") errors.push(...validateMap(path, schema, value));
    const items = itemsOf(schema);
    if (items !== undefined) value.forEach((item, i) => errors.push(...validateListSetsAndMaps(indexPath(path, i), items, item)));
  } else if (isPlainObject(value)) {
    const additional = additionalSchemaOf(schema);
    for (const [key, child] of Object.entries(value)) {
      const property = declaredProperty(schema, key);
      if (property !== undefined) errors.push(...validateListSetsAndMaps(childPath(path, key), property, child));
      else if (additional !== undefined) errors.push(...validateListSetsAndMaps(keyPath(path, key), additional, child));
    }
  }
  return errors;
}
