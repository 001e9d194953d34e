import { celMap, type CelInput, type CelMap } from "@bufbuild/cel";
import type { JSONSchemaProps } from "../schema/types.js";
import { escapePropertyName } from "./escape.js";
import { parseDuration, parseTimestamp } from "./time-values.js";
import { declaredProperty } from "../schema/declared-property.js";

/**
 * Unstructured JSON to CEL values, typed by the structural schema as apiextensions'
 * `UnstructuredToVal` does: `integer` is CEL int, `number` is double (even when written `1`),
 * objects with `properties` expose their (escaped) fields, maps keep their keys, and an
 * int-or-string or unknown-fields value keeps its JSON type (whole numbers as int).
 */
export function toCelValue(value: unknown, schema: JSONSchemaProps | undefined): CelInput {
  if (value === null || value === undefined) return null;
  if (schema === undefined || schema["x-kubernetes-int-or-string"] === true || schema.type === undefined)
    return untypedValue(value, schema);
  switch (schema.type) {
    case "integer":
      return typeof value === "number" && Number.isInteger(value) ? BigInt(value) : untypedValue(value, schema);
    case "number":
      return typeof value === "number" ? value : typeof value === "bigint" ? Number(value) : untypedValue(value, schema);
    case "array":
      return Array.isArray(value) ? value.map((item) => toCelValue(item, schema.items)) : untypedValue(value, schema);
    case "object":
      return isPlainObject(value) ? objectValue(value, schema) : untypedValue(value, schema);
    case "string":
      if (typeof value === "string" && schema.format === "date-time") return parseTimestamp(value) ?? value;
      if (typeof value === "string" && schema.format === "duration") return parseDuration(value) ?? value;
      return untypedValue(value, schema);
    default:
      return untypedValue(value, schema);
  }
}

function objectValue(value: Record<string, unknown>, schema: JSONSchemaProps): CelMap {
  const entries = new Map<string, CelInput>();
  if (schema.properties !== undefined) {
    for (const [name, field] of Object.entries(value)) {
      const fieldSchema = declaredProperty(schema, name);
      const celName = escapePropertyName(name);
      if (celName === undefined) continue;
      if (fieldSchema === undefined && schema["x-kubernetes-preserve-unknown-fields"] !== true) continue;
      entries.set(celName, toCelValue(field, fieldSchema));
    }
    return celMap(entries);
  }
  const itemSchema = typeof schema.additionalProperties === "object" ? schema.additionalProperties : undefined;
  for (const [key, field] of Object.entries(value)) entries.set(key, toCelValue(field, itemSchema));
  return celMap(entries);
}

function untypedValue(value: unknown, schema: JSONSchemaProps | undefined): CelInput {
  if (typeof value === "number") return Number.isInteger(value) ? BigInt(value) : value;
  // An int64 the decoder kept exactly is already a CEL int.
  if (typeof value === "bigint") return value;
  if (typeof value === "string" || typeof value === "boolean") return value;
  if (Array.isArray(value)) return value.map((item) => toCelValue(item, schema?.items));
  if (isPlainObject(value)) return objectValue(value, schema ?? {});
  return null;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The schema `self` sees at the root of a resource: apiVersion, kind, and metadata's name and generateName only. */
export function withTypeAndObjectMeta(schema: JSONSchemaProps): JSONSchemaProps {
  return {
    ...schema,
    type: "object",
    properties: {
      ...schema.properties,
      apiVersion: { type: "string" },
      kind: { type: "string" },
      metadata: { type: "object", properties: { name: { type: "string" }, generateName: { type: "string" } } },
    },
  };
}
