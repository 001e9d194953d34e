import type { JSONSchemaProps } from "../../schema/types.js";
import type { FieldError } from "../../validation/field-errors.js";
import {
  childPath,
  fieldForbidden,
  fieldInvalid,
  fieldRequired,
  formatFieldError,
  indexPath,
  keyPath,
} from "../../validation/field-errors.js";
import { regexpError } from "../../regex/index.js";
import { additionalSchemaOf, itemsOf } from "./walk.js";
import { declaredProperty } from "../../schema/declared-property.js";

/**
 * The structural-schema invariants of apiextensions-apiserver's `schema/validation.go`
 * (`ValidateStructural`): every node of the structural part has a type, value validations under
 * `allOf`/`anyOf`/`oneOf`/`not` only restrict what the structural part already specifies, and the
 * root `metadata` says nothing beyond `name` and `generateName`. A schema breaking one of them is
 * what the `NonStructuralSchema` condition reports, with these causes sorted as upstream sorts them.
 */

type Level = "root" | "item" | "field";

/** The fields of a junctor (`allOf[i]` …) that would make it say something about structure. */
const FORBIDDEN_IN_JUNCTORS: ReadonlyArray<{ key: keyof JSONSchemaProps; detail: string; present: (s: JSONSchemaProps) => boolean }> = [
  { key: "type", detail: "must be empty to be structural", present: (s) => typeOf(s) !== "" },
  { key: "additionalProperties", detail: "must be undefined to be structural", present: (s) => s.additionalProperties !== undefined },
  { key: "default", detail: "must be undefined to be structural", present: (s) => s.default !== undefined && s.default !== null },
  { key: "title", detail: "must be empty to be structural", present: (s) => typeof s.title === "string" && s.title !== "" },
  {
    key: "description",
    detail: "must be empty to be structural",
    present: (s) => typeof s.description === "string" && s.description !== "",
  },
  { key: "nullable", detail: "must be false to be structural", present: (s) => s.nullable === true },
  {
    key: "x-kubernetes-preserve-unknown-fields",
    detail: "must be false to be structural",
    present: (s) => s["x-kubernetes-preserve-unknown-fields"] === true,
  },
  {
    key: "x-kubernetes-embedded-resource",
    detail: "must be false to be structural",
    present: (s) => s["x-kubernetes-embedded-resource"] === true,
  },
  { key: "x-kubernetes-int-or-string", detail: "must be false to be structural", present: (s) => s["x-kubernetes-int-or-string"] === true },
  {
    key: "x-kubernetes-list-map-keys",
    detail: "must be empty to be structural",
    present: (s) => (s["x-kubernetes-list-map-keys"] ?? []).length > 0,
  },
  {
    key: "x-kubernetes-list-type",
    detail: "must be undefined to be structural",
    present: (s) => s["x-kubernetes-list-type"] !== undefined,
  },
  { key: "x-kubernetes-map-type", detail: "must be undefined to be structural", present: (s) => s["x-kubernetes-map-type"] !== undefined },
  {
    key: "x-kubernetes-validations",
    detail: "must be empty to be structural",
    present: (s) => (s["x-kubernetes-validations"] ?? []).length > 0,
  },
];

/** `NonStructuralSchema` causes for `schema`, rooted at `fieldPath` (e.g. `spec.versions[0].schema.openAPIV3Schema`). */
export function structuralErrors(schema: JSONSchemaProps, fieldPath: string): FieldError[] {
  const errors = [...invariantErrors(schema, "root", fieldPath), ...valueValidationCompleteness(schema, schema, fieldPath, fieldPath)];
  // Upstream sorts by the rendered error so the condition message is stable.
  return errors
    .map((error) => ({ error, text: formatFieldError(error) }))
    .sort((a, b) => (a.text < b.text ? -1 : a.text > b.text ? 1 : 0))
    .map(({ error }) => error);
}

function typeOf(schema: JSONSchemaProps): string {
  return typeof schema.type === "string" ? schema.type : "";
}

/** `anyOf: [{type: integer}, {type: string}]` and nothing else in either branch: the int-or-string idiom. */
function isIntOrStringAnyOf(anyOf: JSONSchemaProps[] | undefined): boolean {
  if (anyOf?.length !== 2) return false;
  const [a, b] = anyOf;
  return JSON.stringify(a) === JSON.stringify({ type: "integer" }) && JSON.stringify(b) === JSON.stringify({ type: "string" });
}

function invariantErrors(schema: JSONSchemaProps | undefined, level: Level, path: string): FieldError[] {
  if (schema === undefined) return [];
  const errors: FieldError[] = [];
  const type = typeOf(schema);
  const items = itemsOf(schema);
  const embedded = schema["x-kubernetes-embedded-resource"] === true;
  const intOrString = schema["x-kubernetes-int-or-string"] === true;

  if (type === "array" && items === undefined) errors.push(fieldRequired(childPath(path, "items"), "must be specified"));
  errors.push(...invariantErrors(items, "item", childPath(path, "items")));
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    errors.push(...invariantErrors(property, "field", keyPath(childPath(path, "properties"), name)));
  }
  if (schema.additionalProperties !== undefined) {
    if (level === "root") errors.push(fieldForbidden(childPath(path, "additionalProperties"), "must not be used at the root"));
    errors.push(...invariantErrors(additionalSchemaOf(schema), "field", childPath(path, "additionalProperties")));
  }

  if (intOrString && schema["x-kubernetes-preserve-unknown-fields"] === true) {
    errors.push(
      fieldInvalid(childPath(path, "x-kubernetes-preserve-unknown-fields"), true, "must be false if x-kubernetes-int-or-string is true"),
    );
  }
  if (intOrString && embedded) {
    errors.push(
      fieldInvalid(childPath(path, "x-kubernetes-embedded-resource"), true, "must be false if x-kubernetes-int-or-string is true"),
    );
  }

  const skipAnyOf = isIntOrStringAnyOf(schema.anyOf);
  const skipFirstAllOfAnyOf = (schema.allOf?.length ?? 0) >= 1 && isIntOrStringAnyOf(schema.allOf?.[0]?.anyOf);
  errors.push(...junctorErrors(schema, skipAnyOf, skipFirstAllOfAnyOf, level, path));

  const checkMetadata = level === "root" || embedded;
  if (embedded && type !== "object") {
    if (type === "") errors.push(fieldRequired(childPath(path, "type"), "must be object if x-kubernetes-embedded-resource is true"));
    else errors.push(fieldInvalid(childPath(path, "type"), type, "must be object if x-kubernetes-embedded-resource is true"));
  } else if (type === "" && !intOrString && schema["x-kubernetes-preserve-unknown-fields"] !== true) {
    const where = level === "root" ? "at the root" : level === "item" ? "for specified array items" : "for specified object fields";
    errors.push(fieldRequired(childPath(path, "type"), `must not be empty ${where}`));
  }
  if (embedded && schema.additionalProperties !== undefined) {
    errors.push(fieldForbidden(childPath(path, "additionalProperties"), "must not be used if x-kubernetes-embedded-resource is set"));
  }
  if (level === "root" && type !== "" && type !== "object") {
    errors.push(fieldInvalid(childPath(path, "type"), type, "must be object at the root"));
  }

  const properties = schema.properties ?? {};
  for (const name of ["kind", "apiVersion"]) {
    const property = properties[name];
    if (property !== undefined && checkMetadata && typeOf(property) !== "string") {
      errors.push(fieldInvalid(childPath(keyPath(childPath(path, "properties"), name), "type"), typeOf(property), "must be string"));
    }
  }
  const metadata = properties.metadata;
  if (metadata !== undefined)
    errors.push(...metadataErrors(metadata, checkMetadata, level, keyPath(childPath(path, "properties"), "metadata")));

  if (embedded && schema["x-kubernetes-preserve-unknown-fields"] !== true && Object.keys(properties).length === 0) {
    errors.push(
      fieldRequired(
        childPath(path, "properties"),
        "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields",
      ),
    );
  }
  return errors;
}

/** The root metadata schema may only restrict name and generateName: everything else is implied by ObjectMeta. */
function metadataErrors(metadata: JSONSchemaProps, checkMetadata: boolean, level: Level, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (checkMetadata && typeOf(metadata) !== "object")
    errors.push(fieldInvalid(childPath(path, "type"), typeOf(metadata), "must be object"));
  if (level === "root") {
    const rest: Record<string, unknown> = { ...metadata };
    delete rest.type;
    // A default on metadata is reported by the CustomResourceDefinition schema rules, not here.
    delete rest.default;
    const names = Object.keys(metadata.properties ?? {});
    if (names.length > 0 && names.every((n) => n === "name" || n === "generateName")) delete rest.properties;
    if (Object.values(rest).some((v) => !isZero(v))) {
      errors.push(fieldForbidden(path, "must not specify anything other than name and generateName, but metadata is implicitly specified"));
    }
  }
  return errors;
}

/** Go's zero values, which the structural comparison upstream does not see. */
function isZero(value: unknown): boolean {
  if (value === undefined || value === null || value === false || value === "" || value === 0) return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === "object") return Object.keys(value).length === 0;
  return false;
}

function junctorErrors(
  schema: JSONSchemaProps,
  skipAnyOf: boolean,
  skipFirstAllOfAnyOf: boolean,
  level: Level,
  path: string,
): FieldError[] {
  const errors: FieldError[] = [];
  if (!skipAnyOf)
    (schema.anyOf ?? []).forEach((s, i) => errors.push(...nestedErrors(s, false, level, indexPath(childPath(path, "anyOf"), i))));
  (schema.allOf ?? []).forEach((s, i) =>
    errors.push(...nestedErrors(s, skipFirstAllOfAnyOf && i === 0, level, indexPath(childPath(path, "allOf"), i))),
  );
  (schema.oneOf ?? []).forEach((s, i) => errors.push(...nestedErrors(s, false, level, indexPath(childPath(path, "oneOf"), i))));
  errors.push(...nestedErrors(schema.not, false, level, childPath(path, "not")));
  if (typeof schema.pattern === "string" && schema.pattern !== "") {
    const problem = regexpError(schema.pattern);
    if (problem !== undefined)
      errors.push(fieldInvalid(childPath(path, "pattern"), schema.pattern, `must be a valid regular expression, but isn't: ${problem}`));
  }
  return errors;
}

/** A schema under a junctor: value validations only. */
function nestedErrors(schema: JSONSchemaProps | undefined, skipAnyOf: boolean, level: Level, path: string): FieldError[] {
  if (schema === undefined || schema === null) return [];
  const errors = junctorErrors(schema, skipAnyOf, false, level, path);
  errors.push(...nestedErrors(itemsOf(schema), false, level, childPath(path, "items")));
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    errors.push(...nestedErrors(property, false, "field", keyPath(childPath(path, "properties"), name)));
  }
  for (const { key, detail, present } of FORBIDDEN_IN_JUNCTORS) {
    if (present(schema)) errors.push(fieldForbidden(childPath(path, key), detail));
  }
  if (schema.properties?.metadata !== undefined) {
    errors.push(fieldForbidden(keyPath(childPath(path, "properties"), "metadata"), "must not be specified in a nested context"));
  }
  return errors;
}

/** Every field or item a junctor talks about must also be specified in the structural part. */
function valueValidationCompleteness(v: JSONSchemaProps, s: JSONSchemaProps | undefined, sPath: string, vPath: string): FieldError[] {
  const errors: FieldError[] = [];
  const nested = (child: JSONSchemaProps | undefined, childPathText: string) =>
    errors.push(...nestedCompleteness(child, s, sPath, childPathText));
  nested(v.not, childPath(vPath, "not"));
  (v.allOf ?? []).forEach((c, i) => nested(c, indexPath(childPath(vPath, "allOf"), i)));
  (v.anyOf ?? []).forEach((c, i) => nested(c, indexPath(childPath(vPath, "anyOf"), i)));
  (v.oneOf ?? []).forEach((c, i) => nested(c, indexPath(childPath(vPath, "oneOf"), i)));
  return errors;
}

function nestedCompleteness(v: JSONSchemaProps | undefined, s: JSONSchemaProps | undefined, sPath: string, vPath: string): FieldError[] {
  if (v === undefined || v === null) return [];
  if (s === undefined) return [fieldRequired(sPath, `because it is defined in ${vPath}`)];
  const errors = valueValidationCompleteness(v, s, sPath, vPath);
  const vItems = itemsOf(v);
  if (vItems !== undefined) errors.push(...nestedCompleteness(vItems, itemsOf(s), childPath(sPath, "items"), childPath(vPath, "items")));
  for (const [name, vField] of Object.entries(v.properties ?? {})) {
    const vFieldPath = keyPath(childPath(vPath, "properties"), name);
    const sField = declaredProperty(s, name);
    if (sField !== undefined) {
      errors.push(...nestedCompleteness(vField, sField, keyPath(childPath(sPath, "properties"), name), vFieldPath));
    } else {
      const additional = additionalSchemaOf(s);
      if (additional === undefined)
        errors.push(fieldRequired(keyPath(childPath(sPath, "properties"), name), `because it is defined in ${vFieldPath}`));
      else errors.push(...nestedCompleteness(vField, additional, childPath(sPath, "additionalProperties"), vFieldPath));
    }
  }
  return errors;
}
