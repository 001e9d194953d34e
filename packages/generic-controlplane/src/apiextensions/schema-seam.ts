import type { JSONSchemaProps } from "../schema/types.js";
import type { FieldError } from "../validation/field-errors.js";

/**
 * What custom resources need from a CRD version's OpenAPI v3 schema: pruning, defaulting and
 * validation (the shape of `apiextensions/schema`'s `compileSchema`).
 */
export interface CompiledCustomResourceSchema {
  /** Drops fields the schema does not know; returns their paths. */
  prune(object: Record<string, unknown>): string[];
  /** Fills in `default`s, on writes and on reads from storage. */
  applyDefaults(object: Record<string, unknown>): void;
  /** Schema (and CEL) validation; `old` is the stored object on updates. */
  validate(object: Record<string, unknown>, old?: Record<string, unknown>): FieldError[];
}

export interface CustomResourceSchemas {
  compileSchema(schema: JSONSchemaProps): CompiledCustomResourceSchema;
  /** The NonStructuralSchema problems of a CRD version's schema, reported under `fieldPath`. */
  structuralErrors(schema: JSONSchemaProps, fieldPath: string): FieldError[];
}
