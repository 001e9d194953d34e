import type { KubeObject } from "../../api/types.js";
import type { JSONSchemaProps } from "../../schema/types.js";
import type { FieldError } from "../../validation/field-errors.js";
import { fieldInvalid } from "../../validation/field-errors.js";
import { applyDefaultValues, pruneNonNullableNullsWithoutDefaults } from "./defaulting.js";
import { coerceEmbeddedMetadata, validateEmbeddedResources } from "./embedded.js";
import { validateListSetsAndMaps } from "./list-type.js";
import { ROOT_FIELD, validateOpenAPI } from "./openapi-validation.js";
import { pruneValue } from "./prune.js";

/**
 * Structural schemas for custom resources, after apiextensions-apiserver's `pkg/apiserver/schema`
 * and `pkg/apiserver/validation`: the structural checks a CustomResourceDefinition's schema must
 * pass, and pruning, defaulting and validation of custom resources against it. Pure functions of
 * the schema and the object; serving is the CustomResourceDefinition handler's job.
 */

export { structuralErrors } from "./structural.js";
export { formatCheck } from "./formats.js";
export { patternError } from "./openapi-validation.js";

/** Checks an object's `x-kubernetes-validations` rules (with the old object on update). */
export type ValidationRulesCheck = (object: KubeObject, oldObject: KubeObject | undefined) => FieldError[];

export interface CompileSchemaOptions {
  /** Compiles the schema's `x-kubernetes-validations` rules, or returns undefined when it has none. */
  validationRules?: (schema: JSONSchemaProps) => ValidationRulesCheck | undefined;
}

export interface CompiledSchema {
  /** Drops fields the schema does not specify (unless x-kubernetes-preserve-unknown-fields; embedded resources keep apiVersion/kind/metadata), returns their paths like `spec.foo` for fieldValidation Warn/Strict. */
  prune(object: KubeObject): string[];
  /** Applies `default`s in place (on write and on read), then prunes defaults that are unknown. */
  applyDefaults(object: KubeObject): void;
  /** OpenAPI v3 validation with Kubernetes' extensions and field paths; x-kubernetes-validations via src/cel when present. */
  validate(object: KubeObject, oldObject?: KubeObject): FieldError[];
}

/** Error types after which rules are not evaluated: the object does not have the shape they assume. */
const BLOCKING = new Set<FieldError["type"]>(["FieldValueNotSupported", "FieldValueTypeInvalid"]);

function hasRules(schema: JSONSchemaProps | undefined): boolean {
  if (schema === undefined || schema === null) return false;
  if ((schema["x-kubernetes-validations"] ?? []).length > 0) return true;
  const additional = schema.additionalProperties;
  return (
    Object.values(schema.properties ?? {}).some(hasRules) ||
    (typeof additional === "object" && hasRules(additional)) ||
    (typeof schema.items === "object" && !Array.isArray(schema.items) && hasRules(schema.items))
  );
}

/** Prepares pruning, defaulting and validation of custom resources against `schema` (a structural schema). */
export function compileSchema(schema: JSONSchemaProps, options: CompileSchemaOptions = {}): CompiledSchema {
  const rules = hasRules(schema) ? options.validationRules?.(schema) : undefined;
  return {
    prune(object) {
      // As the custom resource decoder does: prune, drop nulls that cannot stay, coerce embedded metadata.
      const unknown = pruneValue(object, schema, true);
      pruneNonNullableNullsWithoutDefaults(object, schema);
      return [...unknown, ...coerceEmbeddedMetadata(object, schema)];
    },
    applyDefaults(object) {
      pruneNonNullableNullsWithoutDefaults(object, schema);
      applyDefaultValues(object, schema);
    },
    validate(object, oldObject) {
      const errors = [...validateOpenAPI(schema, object), ...validateEmbeddedResources("", object, schema, true), ...validateListSetsAndMaps("", schema, object)];
      if (rules === undefined) return errors;
      if (errors.some((e) => BLOCKING.has(e.type))) {
        errors.push(fieldInvalid(ROOT_FIELD, null, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation"));
        return errors;
      }
      return [...errors, ...rules(object, oldObject)];
    },
  };
}
