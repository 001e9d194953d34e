import type { JSONSchemaProps } from "../schema/types.js";
import { isJsonObject } from "./json-value.js";
import { resolveSchema, withObjectMeta, type Definitions } from "./schema-walk.js";

export interface UnknownFieldOptions {
  /** Definitions `$ref`s in the schema point to, beyond the meta/v1 ones that are always known. */
  definitions?: Definitions;
}

/**
 * Paths of the fields of `object` its schema does not declare, in apimachinery's field-path form
 * (`spec.foo`, `spec.items[0].bar`, `metadata.unknownMeta`) — what `fieldValidation=Strict`
 * rejects with `strict decoding error: unknown field "spec.foo"` and `Warn` reports in `Warning`
 * headers. Follows structural-schema rules: `x-kubernetes-preserve-unknown-fields` and
 * `additionalProperties: true` allow anything, an `additionalProperties` schema describes every
 * value, and embedded resources (and the object itself) get apiVersion, kind and ObjectMeta.
 */
export function findUnknownFields(object: unknown, schema: JSONSchemaProps, options: UnknownFieldOptions = {}): string[] {
  const unknown: string[] = [];
  walk(object, withObjectMeta(schema), "", options.definitions, unknown);
  return unknown;
}

/** The message fieldValidation reports for one unknown field. */
export function unknownFieldMessage(path: string): string {
  return `unknown field "${path}"`;
}

function child(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

function walk(value: unknown, given: JSONSchemaProps | undefined, path: string, definitions: Definitions | undefined, out: string[]): void {
  let schema = resolveSchema(given, definitions);
  if (schema === undefined || value === null) return;
  if (Array.isArray(value)) {
    value.forEach((item, index) => walk(item, schema?.items, `${path}[${index}]`, definitions, out));
    return;
  }
  if (!isJsonObject(value)) return;
  if (schema["x-kubernetes-embedded-resource"] === true && path !== "") schema = withObjectMeta(schema);
  if (schema["x-kubernetes-int-or-string"] === true) return;
  const { properties, additionalProperties } = schema;
  const preserve = schema["x-kubernetes-preserve-unknown-fields"] === true || additionalProperties === true;
  // A schema that says nothing about its shape (no type, no properties) accepts anything.
  const unconstrained = schema.type === undefined && properties === undefined && additionalProperties === undefined;
  if (unconstrained && schema.allOf === undefined) return;
  for (const [key, fieldValue] of Object.entries(value)) {
    const declared = properties?.[key];
    if (declared !== undefined) {
      walk(fieldValue, declared, child(path, key), definitions, out);
    } else if (typeof additionalProperties === "object") {
      walk(fieldValue, additionalProperties, child(path, key), definitions, out);
    } else if (!preserve) {
      out.push(child(path, key));
    }
  }
}
