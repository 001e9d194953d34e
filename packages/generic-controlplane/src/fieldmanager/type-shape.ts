import { fieldSchema, itemSchema, resolveSchema } from "../patch/schema-walk.js";
import type { JSONSchemaProps } from "../schema/types.js";
import { declaredProperty } from "../schema/declared-property.js";

/**
 * How structured-merge-diff sees one node of a schema (after k8s.io's OpenAPI-to-SMD conversion):
 *   - a map: a struct (declared `properties`) and/or a map of `additionalProperties`; granular
 *     (merged key by key) unless `x-kubernetes-map-type: atomic`;
 *   - a list: `x-kubernetes-list-type: map` with `x-kubernetes-list-map-keys` (or, for types that
 *     predate list types, `x-kubernetes-patch-strategy: merge` with a merge key) is associative per
 *     key; `set` (or a merge strategy on scalars) is associative per value; anything else is atomic;
 *   - a scalar.
 * Without a schema (`x-kubernetes-preserve-unknown-fields`, unknown fields) the shape is deduced
 * from the value like SMD's `__untyped_deduced_`: objects are granular maps, lists are atomic.
 */
export type Shape =
  | { kind: "map"; atomic: boolean; schema: JSONSchemaProps | undefined }
  | { kind: "list"; type: "atomic" | "set" | "map"; keys: string[]; schema: JSONSchemaProps | undefined }
  | { kind: "scalar" };

export function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function listType(schema: JSONSchemaProps): { type: "atomic" | "set" | "map"; keys: string[] } {
  const declared = schema["x-kubernetes-list-type"];
  if (declared === "map") return { type: "map", keys: schema["x-kubernetes-list-map-keys"] ?? [] };
  if (declared === "set") return { type: "set", keys: [] };
  if (declared === "atomic") return { type: "atomic", keys: [] };
  const strategy = schema["x-kubernetes-patch-strategy"] ?? "";
  if (strategy.split(",").includes("merge")) {
    const mergeKey = schema["x-kubernetes-patch-merge-key"];
    if (mergeKey !== undefined && mergeKey !== "") return { type: "map", keys: [mergeKey] };
    const items = resolveSchema(schema.items);
    if (items !== undefined && items.type !== "object" && items.type !== "array") return { type: "set", keys: [] };
  }
  return { type: "atomic", keys: [] };
}

/** The shape of `value` under `schema` (undefined: deduced from the value). */
export function shapeOf(schema: JSONSchemaProps | undefined, value: unknown): Shape {
  const resolved = resolveSchema(schema);
  const untyped =
    resolved === undefined ||
    resolved["x-kubernetes-int-or-string"] === true ||
    (resolved.type === undefined &&
      resolved.properties === undefined &&
      resolved.items === undefined &&
      resolved.additionalProperties === undefined);
  if (untyped) {
    if (isRecord(value)) return { kind: "map", atomic: false, schema: undefined };
    if (Array.isArray(value)) return { kind: "list", type: "atomic", keys: [], schema: undefined };
    return { kind: "scalar" };
  }
  if (resolved.type === "array" || resolved.items !== undefined) return { kind: "list", ...listType(resolved), schema: resolved };
  if (resolved.type === "object" || resolved.properties !== undefined || resolved.additionalProperties !== undefined) {
    return { kind: "map", atomic: resolved["x-kubernetes-map-type"] === "atomic", schema: resolved };
  }
  return { kind: "scalar" };
}

/** Whether `key` is a declared field of a struct (SMD's `FindField`), rather than a map key. */
export function declaresField(shape: Shape, key: string): boolean {
  return shape.kind === "map" && declaredProperty(shape.schema, key) !== undefined;
}

/** The schema of a map's child. */
export function childSchema(shape: Shape, key: string): JSONSchemaProps | undefined {
  return shape.kind === "map" ? fieldSchema(shape.schema, key) : undefined;
}

/** The schema of a list's items. */
export function elementSchema(shape: Shape): JSONSchemaProps | undefined {
  return shape.kind === "list" ? itemSchema(shape.schema) : undefined;
}
