import type { KubeObject } from "../../api/types.js";
import { formatFieldError, type FieldError } from "../../validation/field-errors.js";
import { validateAnnotations, validateLabels } from "../../validation/object-meta.js";
import { goTypeName } from "./go-text.js";
import { cloneJson, ownValue } from "../../patch/json-value.js";

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** Go's `ErrorList.ToAggregate().Error()`: one error as it is, several in brackets. */
function aggregateText(errors: readonly FieldError[]): string {
  const texts = [...new Set(errors.map(formatFieldError))];
  return texts.length === 1 ? texts[0]! : `[${texts.join(", ")}]`;
}

/**
 * upstream `restoreObjectMeta`: `converted` gets `original`'s metadata, keeping only the labels and
 * annotations the conversion webhook returned (validated when they changed). A webhook cannot
 * change names, uids, resourceVersions, finalizers or anything else in metadata. Returns why the
 * returned metadata is unusable, or undefined once `converted` is restored in place.
 */
export function restoreObjectMeta(original: KubeObject, converted: KubeObject): string | undefined {
  if (!("metadata" in converted)) return "missing metadata in converted object";
  const returned: unknown = converted.metadata;
  if (!isRecord(returned)) return `invalid metadata of type ${goTypeName(returned)} in converted object`;
  const restored: Record<string, unknown> = isRecord(original.metadata) ? cloneJson(original.metadata) : {};
  for (const field of ["labels", "annotations"] as const) {
    const value = returned[field];
    if (value === undefined || value === null) {
      delete restored[field];
      continue;
    }
    if (!isRecord(value)) return `invalid metadata.${field} of type ${goTypeName(value)} in converted object`;
    const before = restored[field];
    if (before !== undefined && before !== null && !isRecord(before))
      return `invalid metadata.${field} of type ${goTypeName(before)} in original object`;
    const previous = isRecord(before) ? before : {};
    let changed = Object.keys(previous).length !== Object.keys(value).length;
    for (const [key, entry] of Object.entries(value)) {
      if (typeof entry !== "string") return `metadata.${field}[${key}] must be a string, but is ${goTypeName(entry)} in converted object`;
      if (ownValue(previous, key) !== entry) changed = true;
    }
    if (changed) {
      const strings = value as Record<string, string>;
      // upstream names the annotations path "metadata.annotation".
      const errors = field === "labels" ? validateLabels(strings, "metadata.labels") : validateAnnotations(strings, "metadata.annotation");
      if (errors.length > 0) return aggregateText(errors);
    }
    restored[field] = value;
  }
  converted.metadata = restored;
  return undefined;
}
