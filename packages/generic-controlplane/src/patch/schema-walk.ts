import type { JSONSchemaProps } from "../schema/types.js";
import { apiVersionProperty, kindProperty, objectMetaProperty, resolveRef } from "./meta-schemas.js";
import { declaredProperty } from "../schema/declared-property.js";

export type Definitions = Readonly<Record<string, JSONSchemaProps>>;

/**
 * Follows `$ref` (directly or wrapped in a one-element `allOf`, the form OpenAPI v3 uses when a
 * reference carries a description) into the named definition. Keywords next to the reference win,
 * so patch extensions written on a property apply even when its type lives elsewhere.
 */
export function resolveSchema(schema: JSONSchemaProps | undefined, definitions?: Definitions): JSONSchemaProps | undefined {
  if (schema === undefined || (schema.$ref === undefined && schema.allOf?.length !== 1)) return schema;
  // Against the built-in definitions (which never change) a node resolves the same way every time:
  // once per node, rather than a merged copy per field of every request body walked.
  if (definitions !== undefined) return resolveChain(schema, definitions);
  let resolved = resolvedBuiltIn.get(schema);
  if (resolved === undefined) {
    resolved = resolveChain(schema, undefined) ?? null;
    resolvedBuiltIn.set(schema, resolved);
  }
  return resolved ?? undefined;
}

/** Built-in resolutions per schema node (null: the reference names nothing). Schemas are never mutated. */
const resolvedBuiltIn = new WeakMap<JSONSchemaProps, JSONSchemaProps | null>();

function resolveChain(schema: JSONSchemaProps, definitions: Definitions | undefined): JSONSchemaProps | undefined {
  let current: JSONSchemaProps | undefined = schema;
  for (let depth = 0; current !== undefined && depth < 32; depth++) {
    const single = current.allOf?.length === 1 ? current.allOf[0] : undefined;
    const reference = current.$ref ?? single?.$ref;
    if (reference === undefined) return current;
    const target = resolveRef(reference, definitions);
    if (target === undefined) return undefined;
    const { $ref: _ref, allOf: _allOf, ...siblings } = current;
    current = { ...target, ...siblings };
  }
  return current;
}

/** The schema of field `key` of an object schema: a declared property, or the map's value schema. */
export function fieldSchema(schema: JSONSchemaProps | undefined, key: string, definitions?: Definitions): JSONSchemaProps | undefined {
  const resolved = resolveSchema(schema, definitions);
  if (resolved === undefined) return undefined;
  const property = declaredProperty(resolved, key);
  if (property !== undefined) return property;
  if (typeof resolved.additionalProperties === "object") return resolved.additionalProperties;
  return undefined;
}

/** The item schema of an array schema. */
export function itemSchema(schema: JSONSchemaProps | undefined, definitions?: Definitions): JSONSchemaProps | undefined {
  return resolveSchema(schema, definitions)?.items;
}

function isBareObject(schema: JSONSchemaProps | undefined): boolean {
  return (
    schema === undefined ||
    (schema.$ref === undefined &&
      schema.allOf === undefined &&
      schema.properties === undefined &&
      schema.additionalProperties === undefined)
  );
}

/**
 * A top-level (or embedded) object schema with `apiVersion`, `kind` and the full ObjectMeta schema
 * filled in. Resource definitions may leave `metadata` as `{ type: "object" }`; every consumer of
 * the schema sees the real thing.
 */
export function withObjectMeta(schema: JSONSchemaProps): JSONSchemaProps {
  let completed = withObjectMetaCache.get(schema);
  if (completed === undefined) {
    completed = completeWithObjectMeta(schema);
    withObjectMetaCache.set(schema, completed);
  }
  return completed;
}

/** Built once per schema: every request body of a resource is walked against the same one. Schemas are never mutated. */
const withObjectMetaCache = new WeakMap<JSONSchemaProps, JSONSchemaProps>();

function completeWithObjectMeta(schema: JSONSchemaProps): JSONSchemaProps {
  const properties = { ...(schema.properties ?? {}) };
  if (isBareObject(properties.metadata)) {
    const meta = objectMetaProperty();
    const given = properties.metadata?.description;
    properties.metadata = given === undefined ? meta : { ...meta, description: given };
  }
  properties.apiVersion ??= apiVersionProperty;
  properties.kind ??= kindProperty;
  return { ...schema, type: schema.type ?? "object", properties };
}
