import type { JSONSchemaProps } from "../../schema/types.js";
import { additionalSchemaOf, isPlainObject, itemsOf } from "./walk.js";
import { declaredProperty } from "../../schema/declared-property.js";

/**
 * Pruning as apiextensions-apiserver's `schema/pruning` does it: every field the structural
 * schema does not specify is dropped, except below `x-kubernetes-preserve-unknown-fields: true`
 * (where specified fields are still pruned inside), and except apiVersion, kind and metadata of
 * the root and of embedded resources. The dropped fields' paths (`spec.foo`, `spec.items[0].bar`)
 * come back sorted, for fieldValidation=Warn/Strict. Metadata is not looked into here (see
 * `coerceEmbeddedMetadata`).
 */

const META_FIELDS = new Set(["apiVersion", "kind", "metadata"]);

class Pruner {
  readonly unknown: string[] = [];

  private record(parent: string, key: string): void {
    this.unknown.push(parent === "" ? key : `${parent}.${key}`);
  }

  private static child(parent: string, key: string): string {
    return parent === "" ? key : `${parent}.${key}`;
  }

  prune(value: unknown, schema: JSONSchemaProps | undefined, path: string): void {
    if (schema !== undefined && schema["x-kubernetes-preserve-unknown-fields"] === true) {
      this.skipPrune(value, schema, path);
      return;
    }
    if (isPlainObject(value)) {
      if (schema === undefined) {
        for (const key of Object.keys(value)) {
          this.record(path, key);
          delete value[key];
        }
        return;
      }
      const embedded = schema["x-kubernetes-embedded-resource"] === true;
      // `additionalProperties: true` or `false` has no schema: values under it are pruned as unspecified.
      const additional = schema.additionalProperties;
      for (const key of Object.keys(value)) {
        if (embedded && META_FIELDS.has(key)) continue;
        const property = declaredProperty(schema, key);
        if (property !== undefined) this.prune(value[key], property, Pruner.child(path, key));
        else if (additional !== undefined) this.prune(value[key], additionalSchemaOf(schema), Pruner.child(path, key));
        else {
          // The root's apiVersion/kind/metadata are never unknown.
          if (!META_FIELDS.has(key) || path !== "") this.record(path, key);
          delete value[key];
        }
      }
    } else if (Array.isArray(value)) {
      const items = schema === undefined ? undefined : itemsOf(schema);
      value.forEach((item, i) => this.prune(item, items, `${path}[${i}]`));
    }
  }

  /** Below preserve-unknown-fields: keep unknown fields, but prune inside the ones the schema specifies. */
  private skipPrune(value: unknown, schema: JSONSchemaProps, path: string): void {
    if (isPlainObject(value)) {
      const embedded = schema["x-kubernetes-embedded-resource"] === true;
      for (const key of Object.keys(value)) {
        if (embedded && META_FIELDS.has(key)) continue;
        const property = declaredProperty(schema, key);
        if (property !== undefined) this.prune(value[key], property, Pruner.child(path, key));
        else if (schema.additionalProperties !== undefined) {
          this.prune(value[key], additionalSchemaOf(schema), Pruner.child(path, key));
        }
      }
    } else if (Array.isArray(value)) {
      const items = itemsOf(schema);
      if (items !== undefined) value.forEach((item, i) => this.skipPrune(item, items, `${path}[${i}]`));
    }
  }
}

/**
 * Prunes `value` in place against `schema`; returns the sorted paths of what was dropped.
 * `isResourceRoot` treats the value as a resource (its apiVersion/kind/metadata are kept).
 */
export function pruneValue(value: unknown, schema: JSONSchemaProps | undefined, isResourceRoot: boolean, path = ""): string[] {
  const pruner = new Pruner();
  const root =
    isResourceRoot && schema !== undefined
      ? { ...schema, "x-kubernetes-embedded-resource": true }
      : isResourceRoot
        ? { "x-kubernetes-embedded-resource": true }
        : schema;
  pruner.prune(value, root, path);
  return pruner.unknown.sort();
}
