import type { JSONSchemaProps } from "../schema/types.js";
import { isJsonObject } from "./json-value.js";
import { resolveSchema, withObjectMeta, type Definitions } from "./schema-walk.js";
import { declaredProperty } from "../schema/declared-property.js";

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
  return collectUnknownFields(object, schema, options).map((field) => field.path);
}

/**
 * The unknown fields of a custom resource in the order apiextensions-apiserver reports them: the
 * root's ObjectMeta first (it is decoded before pruning), then the pruned fields sorted (the
 * pruner sorts them), then those of embedded resources' ObjectMeta (coerced after pruning).
 */
export function findUnknownCustomResourceFields(object: unknown, schema: JSONSchemaProps, options: UnknownFieldOptions = {}): string[] {
  const fields = collectUnknownFields(object, schema, options);
  const of = (origin: UnknownField["origin"]) => fields.filter((field) => field.origin === origin).map((field) => field.path);
  return [...of("objectMeta"), ...of("pruned").sort(), ...of("embeddedObjectMeta")];
}

interface UnknownField {
  path: string;
  /** Whether the field is in the root's ObjectMeta, an embedded resource's, or anywhere else. */
  origin: "objectMeta" | "embeddedObjectMeta" | "pruned";
}

function collectUnknownFields(object: unknown, schema: JSONSchemaProps, options: UnknownFieldOptions): UnknownField[] {
  const unknown: UnknownField[] = [];
  walk(object, withObjectMeta(schema), "", options.definitions, unknown, "pruned", true);
  return unknown;
}

/** The message fieldValidation reports for one unknown field. */
export function unknownFieldMessage(path: string): string {
  return `unknown field "${path}"`;
}

function child(path: string, key: string): string {
  return path === "" ? key : `${path}.${key}`;
}

function walk(
  value: unknown,
  given: JSONSchemaProps | undefined,
  path: string,
  definitions: Definitions | undefined,
  out: UnknownField[],
  origin: UnknownField["origin"],
  resourceRoot: boolean,
): void {
  let schema = resolveSchema(given, definitions);
  if (schema === undefined || value === null) return;
  if (Array.isArray(value)) {
    value.forEach((item, index) => walk(item, schema?.items, `${path}[${index}]`, definitions, out, origin, false));
    return;
  }
  if (!isJsonObject(value)) return;
  const embedded = schema["x-kubernetes-embedded-resource"] === true && path !== "";
  if (embedded) schema = withObjectMeta(schema);
  if (schema["x-kubernetes-int-or-string"] === true) return;
  const { properties, additionalProperties } = schema;
  const preserve = schema["x-kubernetes-preserve-unknown-fields"] === true || additionalProperties === true;
  // A schema that says nothing about its shape (no type, no properties) accepts anything.
  const unconstrained = schema.type === undefined && properties === undefined && additionalProperties === undefined;
  if (unconstrained && schema.allOf === undefined) return;
  for (const key of Object.keys(value)) {
    const fieldSchema = declaredProperty(schema, key) ?? (typeof additionalProperties === "object" ? additionalProperties : undefined);
    const fieldValue = value[key];
    if (fieldSchema !== undefined) {
      // Only objects and arrays hold fields: a scalar needs no walk (nor its path spelled out).
      if (typeof fieldValue !== "object" || fieldValue === null) continue;
      // Fields under a resource's metadata are ObjectMeta's, reported where upstream decodes it.
      const childOrigin = key === "metadata" && (resourceRoot || embedded) ? (resourceRoot ? "objectMeta" : "embeddedObjectMeta") : origin;
      walk(fieldValue, fieldSchema, child(path, key), definitions, out, childOrigin, false);
    } else if (!preserve) {
      out.push({ path: child(path, key), origin });
    }
  }
}
