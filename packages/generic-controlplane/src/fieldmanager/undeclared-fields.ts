import { badRequest } from "../api/errors/index.js";
import { ownValue } from "../patch/json-value.js";
import type { ControlPlaneError } from "../api/errors/control-plane-error.js";
import type { JSONSchemaProps } from "../schema/types.js";
import { itemElement } from "./field-set.js";
import { fieldElement, printPath, type FieldPath } from "./fields-v1.js";
import { childSchema, elementSchema, isRecord, shapeOf } from "./type-shape.js";

/**
 * Server-side apply's refusal of a configuration naming fields its type lacks: structured-merge-diff
 * cannot type it, whatever `fieldValidation` says. Worded as the field manager words it,
 * `failed to create typed patch object (<namespace>/<name>; <group/version>, Kind=<kind>): .spec.foo: field not declared in schema`
 * (several errors as `errors:` and one indented line each). `unknownPaths` are the dotted paths
 * findUnknownFields reports; the message prints them as SMD paths (list items by key or index).
 * Upstream answers with a Status of unknown reason and code 500; this answers 400 BadRequest, as
 * the fault is the request's.
 */
export function undeclaredFieldsError(
  object: Record<string, unknown>,
  schema: JSONSchemaProps,
  unknownPaths: readonly string[],
  identity: { namespace: string; name: string; apiVersion: string; kind: string },
): ControlPlaneError {
  const errors = unknownPaths.map((path) => `${printPath(typedPath(object, schema, path))}: field not declared in schema`);
  const gv = identity.apiVersion.includes("/") ? identity.apiVersion : `/${identity.apiVersion}`;
  const detail = errors.length === 1 ? errors[0]! : `errors:\n  ${errors.join("\n  ")}`;
  return badRequest(
    `failed to create typed patch object (${identity.namespace}/${identity.name}; ${gv}, Kind=${identity.kind}): ${detail}`,
  );
}

/** A dotted field path (`spec.ports[0].x`) of `object` as structured-merge-diff addresses it. */
function typedPath(object: unknown, schema: JSONSchemaProps | undefined, dotted: string): FieldPath {
  const path: string[] = [];
  let value = object;
  let current = schema;
  for (const match of dotted.matchAll(/([^.[\]]+)|\[(\d+)\]/g)) {
    const shape = shapeOf(current, value);
    if (match[1] !== undefined) {
      path.push(fieldElement(match[1]));
      current = childSchema(shape, match[1]);
      value = isRecord(value) ? ownValue(value, match[1]) : undefined;
    } else {
      const index = Number(match[2]);
      const item = Array.isArray(value) ? (value[index] as unknown) : undefined;
      // Associative lists name an item by its keys (or value); atomic ones by its index.
      path.push(shape.kind === "list" && shape.type !== "atomic" ? itemElement(shape, item) : `i:${index}`);
      current = elementSchema(shape);
      value = item;
    }
  }
  return path;
}
