import type { JSONSchemaProps } from "../../schema/types.js";
import { pruneValue } from "./prune.js";
import { additionalSchemaOf, isPlainObject, itemsOf } from "./walk.js";
import { cloneJson } from "../../patch/json-value.js";
import { declaredProperty } from "../../schema/declared-property.js";
import { setOwn } from "../../patch/json-value.js";

/**
 * Defaulting as apiextensions-apiserver's `schema/defaulting` does it, on write and on read:
 * a property that is absent, or null where the schema does not allow null, gets a deep copy of
 * its `default`, and defaulting continues inside defaulted values. Defaults are pruned against
 * their own schema as they are applied, so a default can never bring in an unspecified field.
 */

function isNonNullableNull(value: unknown, schema: JSONSchemaProps | undefined): boolean {
  return value === null && schema !== undefined && schema.nullable !== true;
}

/** A copy of `schema.default`, pruned like a value at that place would be. */
function defaultValue(schema: JSONSchemaProps): unknown {
  const value = cloneJson(schema.default);
  pruneValue(value, schema, false);
  return value;
}

/** `PruneNonNullableNullsWithoutDefaults`: a null that may not be null and has no default to replace it is dropped. */
export function pruneNonNullableNullsWithoutDefaults(value: unknown, schema: JSONSchemaProps | undefined): void {
  if (schema === undefined) return;
  if (isPlainObject(value)) {
    const additional = additionalSchemaOf(schema);
    for (const [key, child] of Object.entries(value)) {
      const property = declaredProperty(schema, key) ?? additional;
      if (property === undefined) continue;
      if (child === null && property.nullable !== true && property.default === undefined) delete value[key];
      else pruneNonNullableNullsWithoutDefaults(child, property);
    }
  } else if (Array.isArray(value)) {
    const items = itemsOf(schema);
    for (const item of value) pruneNonNullableNullsWithoutDefaults(item, items);
  }
}

/** `Default`: applies defaults to `value` in place. */
export function applyDefaultValues(value: unknown, schema: JSONSchemaProps | undefined): void {
  if (schema === undefined) return;
  if (isPlainObject(value)) {
    for (const [key, property] of Object.entries(schema.properties ?? {})) {
      if (property.default === undefined || property.default === null) continue;
      if (!Object.hasOwn(value, key) || isNonNullableNull(value[key], property)) value[key] = defaultValue(property);
    }
    const additional = additionalSchemaOf(schema);
    for (const [key, child] of Object.entries(value)) {
      const property = declaredProperty(schema, key);
      if (property !== undefined) {
        applyDefaultValues(child, property);
      } else if (additional !== undefined) {
        if (isNonNullableNull(child, additional) && additional.default !== undefined && additional.default !== null)
          setOwn(value, key, defaultValue(additional));
        applyDefaultValues(child, additional);
      }
    }
  } else if (Array.isArray(value)) {
    const items = itemsOf(schema);
    if (items === undefined) return;
    value.forEach((item, i) => {
      if (isNonNullableNull(item, items) && items.default !== undefined && items.default !== null) value[i] = defaultValue(items);
      applyDefaultValues(item, items);
    });
  }
}
