import type { JSONSchemaProps } from "../../schema/types.js";
import type { FieldError } from "../../validation/field-errors.js";
import {
  childPath,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  indexPath,
  keyPath,
} from "../../validation/field-errors.js";
import { additionalSchemaOf, isPlainObject, itemsOf } from "./walk.js";
import { declaredProperty } from "../../schema/declared-property.js";

/**
 * The rules a CustomResourceDefinition's schema must follow beyond being structural, after
 * apiextensions' `ValidateCustomResourceDefinitionOpenAPISchema` (for v1 CRDs: defaults allowed,
 * property types checked, set items atomic, map keys required or defaulted): unsupported keywords,
 * where defaults may not be, and list and map types. `x-kubernetes-validations` entries are
 * checked by src/cel's `compileErrors`.
 */

const OPENAPI_V3_TYPES = ["array", "boolean", "integer", "number", "object", "string"];
const META_FIELDS = new Set(["metadata", "kind", "apiVersion"]);

interface Context {
  /** Why defaults are forbidden here, or undefined where they are allowed. */
  forbiddenDefaults?: string;
  insideResourceMeta: boolean;
}

function typeOf(schema: JSONSchemaProps): string {
  const type: unknown = schema.type;
  return typeof type === "string" ? type : "";
}

/** `specStandardValidatorV3.validate`: keywords CRDs do not support. */
function keywordErrors(schema: JSONSchemaProps, path: string, ctx: Context): FieldError[] {
  const errors: FieldError[] = [];
  const type = typeOf(schema);
  if (type !== "" && !OPENAPI_V3_TYPES.includes(type)) errors.push(fieldNotSupported(childPath(path, "type"), type, OPENAPI_V3_TYPES));
  if (schema.default !== undefined && schema.default !== null && ctx.forbiddenDefaults !== undefined) {
    errors.push(
      fieldForbidden(childPath(path, "default"), `must not be set${ctx.forbiddenDefaults === "" ? "" : ` ${ctx.forbiddenDefaults}`}`),
    );
  }
  if (typeof schema.id === "string" && schema.id !== "") errors.push(fieldForbidden(childPath(path, "id"), "id is not supported"));
  if (schema.additionalItems !== undefined)
    errors.push(fieldForbidden(childPath(path, "additionalItems"), "additionalItems is not supported"));
  if (Object.keys(schema.patternProperties ?? {}).length > 0)
    errors.push(fieldForbidden(childPath(path, "patternProperties"), "patternProperties is not supported"));
  if (Object.keys(schema.definitions ?? {}).length > 0)
    errors.push(fieldForbidden(childPath(path, "definitions"), "definitions is not supported"));
  if (schema.dependencies !== undefined) errors.push(fieldForbidden(childPath(path, "dependencies"), "dependencies is not supported"));
  if (schema.$ref !== undefined) errors.push(fieldForbidden(childPath(path, "$ref"), "$ref is not supported"));
  if (type === "null") errors.push(fieldForbidden(childPath(path, "type"), "type cannot be set to null, use nullable as an alternative"));
  if (Array.isArray(schema.items) && schema.items.length > 0)
    errors.push(fieldForbidden(childPath(path, "items"), "items must be a schema object and not an array"));
  if (ctx.insideResourceMeta && schema["x-kubernetes-embedded-resource"] === true) {
    errors.push(fieldForbidden(childPath(path, "x-kubernetes-embedded-resource"), "must not be used inside of resource meta"));
  }
  return errors;
}

function listAndMapTypeErrors(schema: JSONSchemaProps, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const type = typeOf(schema);
  const listType = schema["x-kubernetes-list-type"] as string | undefined;
  const mapType = schema["x-kubernetes-map-type"] as string | undefined;
  const mapKeys = schema["x-kubernetes-list-map-keys"] ?? [];
  const items = itemsOf(schema);

  if (schema["x-kubernetes-preserve-unknown-fields"] === false) {
    errors.push(fieldInvalid(childPath(path, "x-kubernetes-preserve-unknown-fields"), false, "must be true or undefined"));
  }
  if (mapType !== undefined && type !== "object") {
    if (type === "") errors.push(fieldRequired(childPath(path, "type"), "must be object if x-kubernetes-map-type is specified"));
    else errors.push(fieldInvalid(childPath(path, "type"), type, "must be object if x-kubernetes-map-type is specified"));
  }
  if (mapType !== undefined && mapType !== "atomic" && mapType !== "granular") {
    errors.push(fieldNotSupported(childPath(path, "x-kubernetes-map-type"), mapType, ["atomic", "granular"]));
  }
  if (listType !== undefined && type !== "array") {
    if (type === "") errors.push(fieldRequired(childPath(path, "type"), "must be array if x-kubernetes-list-type is specified"));
    else errors.push(fieldInvalid(childPath(path, "type"), type, "must be array if x-kubernetes-list-type is specified"));
  } else if (listType === "set" && items !== undefined) {
    // Set items are compared whole, so nothing inside them may merge.
    const itemType = typeOf(items);
    const itemListType = items["x-kubernetes-list-type"];
    if (itemType === "array" && itemListType !== undefined && itemListType !== "atomic") {
      errors.push(
        fieldInvalid(
          childPath(childPath(path, "items"), "x-kubernetes-list-type"),
          itemListType,
          "must be atomic as item of a list with x-kubernetes-list-type=set",
        ),
      );
    }
    if (itemType === "object" && items["x-kubernetes-map-type"] !== "atomic") {
      errors.push(
        fieldInvalid(
          childPath(childPath(path, "items"), "x-kubernetes-map-type"),
          itemListType ?? null,
          "must be atomic as item of a list with x-kubernetes-list-type=set",
        ),
      );
    }
  }
  if (listType !== undefined && listType !== "atomic" && listType !== "set" && listType !== "map") {
    errors.push(fieldNotSupported(childPath(path, "x-kubernetes-list-type"), listType, ["atomic", "set", "map"]));
  }
  if (mapKeys.length > 0) {
    if (listType === undefined)
      errors.push(fieldRequired(childPath(path, "x-kubernetes-list-type"), "must be map if x-kubernetes-list-map-keys is non-empty"));
    else if (listType !== "map")
      errors.push(
        fieldInvalid(childPath(path, "x-kubernetes-list-type"), listType, "must be map if x-kubernetes-list-map-keys is non-empty"),
      );
  }
  if (listType === "map") {
    if (mapKeys.length === 0)
      errors.push(fieldRequired(childPath(path, "x-kubernetes-list-map-keys"), "must not be empty if x-kubernetes-list-type is map"));
    if (schema.items === undefined || schema.items === null)
      errors.push(fieldRequired(childPath(path, "items"), "must have a schema if x-kubernetes-list-type is map"));
    else if (items === undefined)
      errors.push(fieldInvalid(childPath(path, "items"), schema.items, "must only have a single schema if x-kubernetes-list-type is map"));
    if (items !== undefined && typeOf(items) !== "object") {
      errors.push(
        fieldInvalid(
          childPath(childPath(path, "items"), "type"),
          typeOf(items),
          "must be object if parent array's x-kubernetes-list-type is map",
        ),
      );
    }
    if (items !== undefined && typeOf(items) === "object") {
      const seen = new Set<string>();
      for (const key of mapKeys) {
        const property = declaredProperty(items, key);
        if (property !== undefined) {
          const keyType = typeOf(property);
          if (keyType === "array" || keyType === "object") {
            // Upstream quotes the item's type here, not the key's.
            errors.push(
              fieldInvalid(
                childPath(keyPath(childPath(childPath(path, "items"), "properties"), key), "type"),
                typeOf(items),
                "must be a scalar type if parent array's x-kubernetes-list-type is map",
              ),
            );
          }
        } else {
          errors.push(fieldInvalid(childPath(path, "x-kubernetes-list-map-keys"), mapKeys, "entries must all be names of item properties"));
        }
        if (seen.has(key))
          errors.push(fieldInvalid(childPath(path, "x-kubernetes-list-map-keys"), mapKeys, "must not contain duplicate entries"));
        seen.add(key);
      }
    }
  }
  // `validateMapListKeysMapSet`: items of sets and maps are identified by value, so never null, and map keys always present.
  if ((listType === "set" || listType === "map") && items !== undefined) {
    if (items.nullable === true)
      errors.push(
        fieldForbidden(childPath(childPath(path, "items"), "nullable"), `cannot be nullable when x-kubernetes-list-type is ${listType}`),
      );
    if (listType === "map") {
      const required = new Set(items.required ?? []);
      for (const key of mapKeys) {
        const property = declaredProperty(items, key);
        if (property === undefined) continue;
        const keyPathText = keyPath(childPath(childPath(path, "items"), "properties"), key);
        if (!required.has(key) && property.default === undefined) {
          errors.push(
            fieldRequired(
              childPath(keyPathText, "default"),
              "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property",
            ),
          );
        }
        if (property.nullable === true)
          errors.push(
            fieldForbidden(childPath(keyPathText, "nullable"), "this property is in x-kubernetes-list-map-keys, so it cannot be nullable"),
          );
      }
    }
  }
  return errors;
}

function walk(schema: JSONSchemaProps | undefined, path: string, ctx: Context, isRoot: boolean): FieldError[] {
  if (schema === undefined || schema === null || typeof schema !== "object" || Array.isArray(schema)) return [];
  const errors = keywordErrors(schema, path, ctx);
  if (schema.uniqueItems === true)
    errors.push(
      fieldForbidden(childPath(path, "uniqueItems"), "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"),
    );

  const additional = schema.additionalProperties;
  if (additional !== undefined) {
    // properties are for structs, additionalProperties for maps: both would contradict ignoring unknown fields.
    if (Object.keys(schema.properties ?? {}).length > 0 && (additional === false || isPlainObject(additional))) {
      errors.push(fieldForbidden(childPath(path, "additionalProperties"), "additionalProperties and properties are mutual exclusive"));
    }
    // Pruning a defaulted map entry of metadata would need the value it defaults.
    const sub = ctx.insideResourceMeta ? { ...ctx, forbiddenDefaults: "inside additionalProperties applying to object metadata" } : ctx;
    errors.push(...walk(additionalSchemaOf(schema), childPath(path, "additionalProperties"), sub, false));
  }
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    let sub = ctx;
    if ((isRoot || schema["x-kubernetes-embedded-resource"] === true) && META_FIELDS.has(name)) {
      sub = { ...sub, insideResourceMeta: true };
      if (isRoot) sub = { ...sub, forbiddenDefaults: `in top-level ${name}` };
    }
    errors.push(...walk(property, keyPath(childPath(path, "properties"), name), sub, false));
  }
  errors.push(...walk(schema.not, childPath(path, "not"), ctx, false));
  (["allOf", "oneOf", "anyOf"] as const).forEach((junctor) => {
    (schema[junctor] ?? []).forEach((branch, i) => errors.push(...walk(branch, indexPath(childPath(path, junctor), i), ctx, false)));
  });
  for (const [name, definition] of Object.entries(schema.definitions ?? {}))
    errors.push(...walk(definition, keyPath(childPath(path, "definitions"), name), ctx, false));
  const items: unknown = schema.items;
  if (Array.isArray(items))
    (items as JSONSchemaProps[]).forEach((item, i) => errors.push(...walk(item, indexPath(childPath(path, "items"), i), ctx, false)));
  else errors.push(...walk(itemsOf(schema), childPath(path, "items"), ctx, false));
  for (const [name, dependency] of Object.entries(schema.dependencies ?? {})) {
    if (!Array.isArray(dependency)) errors.push(...walk(dependency, keyPath(childPath(path, "dependencies"), name), ctx, false));
  }
  errors.push(...listAndMapTypeErrors(schema, path));
  return errors;
}

/** The keyword, default-placement, list/map-type and rule checks of a CRD version's schema at `fieldPath`. */
export function openAPISchemaErrors(schema: JSONSchemaProps, fieldPath: string): FieldError[] {
  return walk(schema, fieldPath, { insideResourceMeta: false }, true);
}
