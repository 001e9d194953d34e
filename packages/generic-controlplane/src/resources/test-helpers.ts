import type { KubeObject } from "../api/types.js";
import type { ResourceDefinition } from "../registry/rest/resource-definition.js";
import { checkFieldTypes, formatFieldError } from "../validation/index.js";

/** Runs a definition's create path (decode, prepare, then validate) the way the registry does, and formats the errors as a 422 lists them. */
export function createErrors(definition: ResourceDefinition, object: KubeObject): { object: KubeObject; errors: string[] } {
  const copy = structuredClone(object);
  checkFieldTypes(copy, definition);
  definition.strategy?.prepareForCreate?.(copy);
  return { object: copy, errors: (definition.strategy?.validate?.(copy) ?? []).map(formatFieldError) };
}

export function updateErrors(
  definition: ResourceDefinition,
  object: KubeObject,
  old: KubeObject,
): { object: KubeObject; errors: string[] } {
  const copy = structuredClone(object);
  checkFieldTypes(copy, definition);
  definition.strategy?.prepareForUpdate?.(copy, structuredClone(old));
  return { object: copy, errors: (definition.strategy?.validateUpdate?.(copy, old) ?? []).map(formatFieldError) };
}

export function cells(definition: ResourceDefinition, object: KubeObject): Record<string, unknown> {
  return Object.fromEntries((definition.printerColumns ?? []).map((column) => [column.name, column.cell(object)]));
}
