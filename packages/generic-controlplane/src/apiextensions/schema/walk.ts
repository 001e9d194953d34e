import type { JSONSchemaProps } from "../../schema/types.js";

/** Small accessors shared by the schema algorithms: a decoded JSON object, the single `items` schema, the `additionalProperties` schema. */

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The `items` schema when it is one schema (structural schemas never use the tuple form). */
export function itemsOf(schema: JSONSchemaProps): JSONSchemaProps | undefined {
  const items: unknown = schema.items;
  return isPlainObject(items) ? items : undefined;
}

/** The `additionalProperties` schema, or undefined for `true`/`false`/unset. */
export function additionalSchemaOf(schema: JSONSchemaProps): JSONSchemaProps | undefined {
  const additional: unknown = schema.additionalProperties;
  return isPlainObject(additional) ? additional : undefined;
}
