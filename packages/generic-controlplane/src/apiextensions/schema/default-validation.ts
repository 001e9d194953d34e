import type { JSONSchemaProps } from "../../schema/types.js";
import type { FieldError } from "../../validation/field-errors.js";
import { childPath, fieldInvalid, keyPath } from "../../validation/field-errors.js";
import { validateEmbeddedResources } from "./embedded.js";
import { validateOpenAPI } from "./openapi-validation.js";
import { pruneValue } from "./prune.js";
import { isPlainObject, itemsOf } from "./walk.js";
import { cloneJson } from "../../patch/json-value.js";

/**
 * `defaulting.ValidateDefaults`: every `default` of a structural schema must already be pruned
 * (`must not have unknown fields`) and must be valid against the schema it sits in, so that
 * defaulting can never produce an object the server would reject. Errors are reported under
 * `<node>.default`. Defaults under additionalProperties are not visited: they are forbidden.
 */

function isEqualJSON(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((v, i) => isEqualJSON(v, b[i]));
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && isEqualJSON(a[k], b[k]));
  }
  return false;
}

function defaultValueErrors(schema: JSONSchemaProps, path: string, isResourceRoot: boolean): FieldError[] {
  const value = schema.default;
  const at = childPath(path, "default");
  const errors: FieldError[] = [];
  const pruned = cloneJson(value);
  pruneValue(pruned, schema, schema["x-kubernetes-embedded-resource"] === true);
  if (!isEqualJSON(pruned, value)) errors.push(fieldInvalid(at, value, "must not have unknown fields"));
  // Upstream's order: embedded resources' type and object meta first, then the schema.
  const metaErrors = validateEmbeddedResources(at, value, schema, isResourceRoot);
  if (metaErrors.length > 0) return [...errors, ...metaErrors];
  return [...errors, ...validateOpenAPI(schema, value, at)];
}

function walk(schema: JSONSchemaProps | undefined, path: string, root: JSONSchemaProps): FieldError[] {
  if (schema === undefined) return [];
  const resourceRoot = schema["x-kubernetes-embedded-resource"] === true ? schema : root;
  const errors: FieldError[] = [];
  if (schema.default !== undefined && schema.default !== null) errors.push(...defaultValueErrors(schema, path, schema === resourceRoot));
  errors.push(...walk(itemsOf(schema), childPath(path, "items"), resourceRoot));
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    errors.push(...walk(property, keyPath(childPath(path, "properties"), name), resourceRoot));
  }
  return errors;
}

/** The default problems of a (structural) CRD schema at `fieldPath`; the root is a resource. */
export function defaultErrors(schema: JSONSchemaProps, fieldPath: string): FieldError[] {
  const root = schema["x-kubernetes-embedded-resource"] === true ? schema : { ...schema, "x-kubernetes-embedded-resource": true };
  return walk(root, fieldPath, root);
}
