import type { KubeObject } from "../../api/types.js";
import { compileErrors, compileValidationRules } from "../../cel/index.js";
import type { JSONSchemaProps } from "../../schema/types.js";
import type { FieldError } from "../../validation/field-errors.js";
import { childPath, fieldForbidden, fieldInvalid } from "../../validation/field-errors.js";
import { defaultErrors } from "./default-validation.js";
import { applyDefaultValues, pruneNonNullableNullsWithoutDefaults } from "./defaulting.js";
import { coerceEmbeddedMetadata, validateEmbeddedResources } from "./embedded.js";
import { validateListSetsAndMaps } from "./list-type.js";
import { ROOT_FIELD, validateOpenAPI } from "./openapi-validation.js";
import { pruneValue } from "./prune.js";
import { openAPISchemaErrors } from "./schema-rules.js";
import { structuralErrors } from "./structural.js";

/**
 * Structural schemas for custom resources, after apiextensions-apiserver's `pkg/apiserver/schema`
 * and `pkg/apiserver/validation`: the structural checks a CustomResourceDefinition's schema must
 * pass, and pruning, defaulting and validation of custom resources against it. Pure functions of
 * the schema and the object; serving is the CustomResourceDefinition handler's job.
 */

export { structuralErrors };
export { formatCheck } from "./formats.js";

/**
 * Everything wrong with a CRD version's schema at `fieldPath` (`spec.versions[0].schema.openAPIV3Schema`)
 * as CRD validation reports it: a nullable root, the structural violations, or when there are none
 * the defaults that are unpruned or invalid, and the keyword, list/map-type and rule checks.
 */
export function schemaErrors(schema: JSONSchemaProps, fieldPath: string): FieldError[] {
  const errors: FieldError[] = [];
  if (schema.nullable === true) errors.push(fieldForbidden(childPath(fieldPath, "nullable"), "nullable cannot be true at the root"));
  const structural = structuralErrors(schema, fieldPath);
  errors.push(...(structural.length > 0 ? structural : defaultErrors(schema, fieldPath)));
  errors.push(...openAPISchemaErrors(schema, fieldPath));
  // Rules are typed by the schema, so they are compiled only once it is structural.
  if (structural.length === 0) errors.push(...compileErrors(schema, fieldPath));
  return errors;
}

/** Checks an object's `x-kubernetes-validations` rules (with the old object on update). */
export type ValidationRulesCheck = (object: KubeObject, oldObject: KubeObject | undefined) => FieldError[];

export interface CompileSchemaOptions {
  /** Compiles the schema's `x-kubernetes-validations` rules, or returns undefined when it has none (default: src/cel's). */
  validationRules?: (schema: JSONSchemaProps) => ValidationRulesCheck | undefined;
}

/** src/cel's rule validator over whole objects, the resource root seeing apiVersion, kind and metadata. */
function celRules(schema: JSONSchemaProps): ValidationRulesCheck | undefined {
  const validator = compileValidationRules(schema);
  return validator === undefined ? undefined : (object, oldObject) => validator(object, oldObject);
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

/** Prepares pruning, defaulting and validation of custom resources against `schema` (a structural schema). */
export function compileSchema(schema: JSONSchemaProps, options: CompileSchemaOptions = {}): CompiledSchema {
  const rules = (options.validationRules ?? celRules)(schema);
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
      const errors = [
        ...validateOpenAPI(schema, object),
        ...validateEmbeddedResources("", object, schema, true),
        ...validateListSetsAndMaps("", schema, object),
      ];
      if (rules === undefined) return errors;
      if (errors.some((e) => BLOCKING.has(e.type))) {
        errors.push(
          fieldInvalid(
            ROOT_FIELD,
            null,
            "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation",
          ),
        );
        return errors;
      }
      return [...errors, ...rules(object, oldObject)];
    },
  };
}
