import { parseLabelSelector, type LabelSelector } from "../selectors/index.js";
import { childPath, fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, indexPath, isQualifiedName, validateLabels, type FieldError } from "../validation/index.js";
import type { WireLabelSelector } from "./types.js";

const OPERATORS = ["In", "NotIn", "Exists", "DoesNotExist"];

/** `ValidateLabelSelector` (apimachinery meta/v1/validation) for a selector at `path`. */
export function validateWireLabelSelector(selector: WireLabelSelector, path: string): FieldError[] {
  const errors: FieldError[] = [];
  (selector.matchExpressions ?? []).forEach((expression, i) => {
    const at = indexPath(childPath(path, "matchExpressions"), i);
    const values = expression.values ?? [];
    switch (expression.operator) {
      case "In":
      case "NotIn":
        if (values.length === 0) errors.push(fieldRequired(childPath(at, "values"), "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case "Exists":
      case "DoesNotExist":
        if (values.length > 0) errors.push(fieldForbidden(childPath(at, "values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errors.push(fieldNotSupported(childPath(at, "operator"), expression.operator, OPERATORS));
    }
    for (const msg of isQualifiedName(expression.key ?? "")) errors.push(fieldInvalid(childPath(at, "key"), expression.key, msg));
  });
  errors.push(...validateLabels(selector.matchLabels, childPath(path, "matchLabels")));
  return errors;
}

/**
 * `LabelSelectorAsSelector`: a wire selector as a matcher. An empty selector matches everything;
 * validation has already rejected what could not be parsed.
 */
export function wireLabelSelectorAsSelector(selector: WireLabelSelector): LabelSelector {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) parts.push(`${key}=${value}`);
  for (const expression of selector.matchExpressions ?? []) {
    const values = (expression.values ?? []).join(",");
    if (expression.operator === "In") parts.push(`${expression.key} in (${values})`);
    else if (expression.operator === "NotIn") parts.push(`${expression.key} notin (${values})`);
    else if (expression.operator === "Exists") parts.push(expression.key);
    else if (expression.operator === "DoesNotExist") parts.push(`!${expression.key}`);
  }
  return parseLabelSelector(parts.join(","));
}
