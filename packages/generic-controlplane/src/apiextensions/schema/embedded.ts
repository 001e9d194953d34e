import type { ObjectMeta } from "../../api/types.js";
import { META_V1, patchMetaSchemas } from "../../patch/meta-schemas.js";
import type { JSONSchemaProps } from "../../schema/types.js";
import type { FieldError } from "../../validation/field-errors.js";
import { childPath, fieldInvalid, fieldRequired, indexPath, keyPath } from "../../validation/field-errors.js";
import { fieldTypeError } from "../../validation/field-types.js";
import { isDNS1035Label } from "@kubekit/apimachinery";
import { validateObjectMeta } from "../../validation/object-meta.js";
import { additionalSchemaOf, isPlainObject, itemsOf } from "./walk.js";
import { cloneJson } from "../../patch/json-value.js";
import { declaredProperty } from "../../schema/declared-property.js";

/**
 * Objects under `x-kubernetes-embedded-resource: true` are resources themselves (apiextensions'
 * `schema/objectmeta`): they need an apiVersion and kind, and their metadata is an ObjectMeta,
 * validated as one (the name only as a path segment, since it names nothing yet).
 */

/** The fields an ObjectMeta has; anything else in an embedded resource's metadata is dropped. */
export const OBJECT_META_FIELDS: ReadonlySet<string> = new Set(Object.keys(patchMetaSchemas[`${META_V1}.ObjectMeta`]?.properties ?? {}));

/** `schema.ParseGroupVersion`. */
function groupVersionError(apiVersion: string): string | undefined {
  return apiVersion.split("/").length > 2 ? `unexpected GroupVersion string: ${apiVersion}` : undefined;
}

/** `ValidateObjectMeta` with errors moved under `path` (it reports them under `metadata`). */
function embeddedMetaErrors(path: string, metadata: unknown): FieldError[] {
  const decodeError = fieldTypeError({ metadata: cloneJson(metadata) }, undefined, { kind: "ObjectMeta" });
  if (decodeError !== undefined) return [fieldInvalid(childPath(path, "metadata"), metadata, decodeError)];
  const meta = { ...((metadata ?? {}) as ObjectMeta) };
  // A name is not required here; upstream fills one in so the rule does not fire.
  if (!meta.name) meta.name = "fakename";
  const errors = validateObjectMeta(meta, { namespaced: Boolean(meta.namespace), nameRule: "PathSegment" });
  return errors.map((error) => ({ ...error, field: childPath(path, error.field) }));
}

function embeddedResourceErrors(path: string, object: Record<string, unknown>): FieldError[] {
  const errors: FieldError[] = [];
  if (!Object.hasOwn(object, "apiVersion")) errors.push(fieldRequired(childPath(path, "apiVersion"), "must not be empty"));
  if (!Object.hasOwn(object, "kind")) errors.push(fieldRequired(childPath(path, "kind"), "must not be empty"));
  for (const [key, value] of Object.entries(object)) {
    const field = childPath(path, key);
    if (key === "apiVersion") {
      if (typeof value !== "string") errors.push(fieldInvalid(field, value, "must be a string"));
      else if (value === "") errors.push(fieldInvalid(field, value, "must not be empty"));
      else {
        const problem = groupVersionError(value);
        if (problem !== undefined) errors.push(fieldInvalid(field, value, problem));
      }
    } else if (key === "kind") {
      if (typeof value !== "string") errors.push(fieldInvalid(field, value, "must be a string"));
      else if (value === "") errors.push(fieldInvalid(field, value, "must not be empty"));
      else {
        const problems = isDNS1035Label(value.toLowerCase());
        if (problems.length > 0)
          errors.push(fieldInvalid(field, value, `may have mixed case, but should otherwise match: ${problems.join(",")}`));
      }
    } else if (key === "metadata") {
      errors.push(...embeddedMetaErrors(path, value));
    }
  }
  return errors;
}

/** Checks every embedded resource below the root (the root's own type and metadata are the caller's). */
export function validateEmbeddedResources(
  path: string,
  value: unknown,
  schema: JSONSchemaProps | undefined,
  isRoot: boolean,
): FieldError[] {
  if (schema === undefined) return [];
  const errors: FieldError[] = [];
  if (isPlainObject(value)) {
    if (schema["x-kubernetes-embedded-resource"] === true && !isRoot) errors.push(...embeddedResourceErrors(path, value));
    const additional = additionalSchemaOf(schema);
    for (const [key, child] of Object.entries(value)) {
      const property = declaredProperty(schema, key);
      if (property !== undefined) errors.push(...validateEmbeddedResources(childPath(path, key), child, property, false));
      else if (additional !== undefined) errors.push(...validateEmbeddedResources(keyPath(path, key), child, additional, false));
    }
  } else if (Array.isArray(value)) {
    const items = itemsOf(schema);
    value.forEach((item, i) => errors.push(...validateEmbeddedResources(indexPath(path, i), item, items, false)));
  }
  return errors;
}

/**
 * `objectmeta.Coerce` below the root: an embedded resource's metadata keeps only ObjectMeta's
 * fields (the others are dropped and their paths returned, sorted), and a null creationTimestamp
 * is removed. The root's metadata is decoded with the request, not here.
 */
export function coerceEmbeddedMetadata(value: unknown, schema: JSONSchemaProps | undefined, path = "", isRoot = true): string[] {
  if (schema === undefined) return [];
  const unknown: string[] = [];
  if (isPlainObject(value)) {
    const metadata = value.metadata;
    if (schema["x-kubernetes-embedded-resource"] === true && !isRoot && isPlainObject(metadata)) {
      for (const key of Object.keys(metadata)) {
        if (OBJECT_META_FIELDS.has(key)) continue;
        unknown.push(`${childPath(path, "metadata")}.${key}`);
        delete metadata[key];
      }
      if (metadata.creationTimestamp === null) delete metadata.creationTimestamp;
    }
    const additional = additionalSchemaOf(schema);
    for (const [key, child] of Object.entries(value)) {
      const property = declaredProperty(schema, key);
      if (property !== undefined) unknown.push(...coerceEmbeddedMetadata(child, property, childPath(path, key), false));
      else if (additional !== undefined) unknown.push(...coerceEmbeddedMetadata(child, additional, childPath(path, key), false));
    }
  } else if (Array.isArray(value)) {
    const items = itemsOf(schema);
    value.forEach((item, i) => unknown.push(...coerceEmbeddedMetadata(item, items, indexPath(path, i), false)));
  }
  return unknown.sort();
}
