import { childPath, fieldForbidden, fieldInvalid, fieldRequired, indexPath, isQualifiedName, isValidLabelValue, validateLabels, type FieldError } from "@kubekit/generic-controlplane/registry";

/** A `metav1.LabelSelector`. */
export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

/**
 * Whether `labels` satisfy `selector` (LabelSelectorAsSelector): every matchLabels pair and every
 * expression. An empty selector matches everything, a missing one nothing, as upstream.
 */
export function selectorMatches(selector: LabelSelector | undefined, labels: Record<string, string> | undefined): boolean {
  if (selector === undefined) return false;
  const have = labels ?? {};
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) if (have[key] !== value) return false;
  for (const expression of selector.matchExpressions ?? []) {
    const present = Object.hasOwn(have, expression.key);
    const values = expression.values ?? [];
    switch (expression.operator) {
      case "In":
        if (!present || !values.includes(have[expression.key]!)) return false;
        break;
      case "NotIn":
        if (present && values.includes(have[expression.key]!)) return false;
        break;
      case "Exists":
        if (!present) return false;
        break;
      case "DoesNotExist":
        if (present) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

export function isEmptySelector(selector: LabelSelector | undefined): boolean {
  return Object.keys(selector?.matchLabels ?? {}).length === 0 && (selector?.matchExpressions ?? []).length === 0;
}

/** The selector as a `labelSelector` query string (matchLabels and set-based expressions). */
export function selectorString(selector: LabelSelector): string {
  const parts = Object.entries(selector.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const e of selector.matchExpressions ?? []) {
    const values = (e.values ?? []).join(",");
    if (e.operator === "In") parts.push(`${e.key} in (${values})`);
    else if (e.operator === "NotIn") parts.push(`${e.key} notin (${values})`);
    else if (e.operator === "Exists") parts.push(e.key);
    else if (e.operator === "DoesNotExist") parts.push(`!${e.key}`);
  }
  return parts.join(",");
}

/** metav1validation.ValidateLabelSelector: label pairs, and each expression's key, operator and values. */
export function validateLabelSelector(selector: LabelSelector | undefined, field: string): FieldError[] {
  if (selector === undefined) return [];
  const errors = validateLabels(selector.matchLabels, childPath(field, "matchLabels"));
  (selector.matchExpressions ?? []).forEach((expression, i) => {
    const at = indexPath(childPath(field, "matchExpressions"), i);
    const values = expression.values ?? [];
    if (expression.operator === "In" || expression.operator === "NotIn") {
      if (values.length === 0) errors.push(fieldRequired(childPath(at, "values"), "must be specified when `operator` is 'In' or 'NotIn'"));
    } else if (expression.operator === "Exists" || expression.operator === "DoesNotExist") {
      if (values.length > 0) errors.push(fieldForbidden(childPath(at, "values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
    } else {
      errors.push(fieldInvalid(childPath(at, "operator"), expression.operator, "not a valid selector operator"));
    }
    for (const message of isQualifiedName(expression.key ?? "")) errors.push(fieldInvalid(childPath(at, "key"), expression.key, message));
    values.forEach((value, j) => {
      for (const message of isValidLabelValue(value)) errors.push(fieldInvalid(indexPath(childPath(at, "values"), j), value, message));
    });
  });
  return errors;
}
