import { fieldInvalid, type FieldError } from "./field.js";
import { isQualifiedName, isValidLabelValue } from "./names.js";

/** `ValidateLabels` (meta/v1/validation): every key a qualified name, every value a label value. */
export function validateLabels(labels: Record<string, string> | undefined, field = "metadata.labels"): FieldError[] {
  const errors: FieldError[] = [];
  for (const [key, value] of Object.entries(labels ?? {})) {
    for (const msg of isQualifiedName(key)) errors.push(fieldInvalid(field, key, msg));
    if (typeof value !== "string") {
      errors.push(fieldInvalid(field, value, "must be a string"));
      continue;
    }
    for (const msg of isValidLabelValue(value)) errors.push(fieldInvalid(field, value, msg));
  }
  return errors;
}
