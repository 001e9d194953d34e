import { childPath, fieldForbidden, fieldInvalid, fieldRequired, indexPath, type FieldError } from "../validation/field.js";
import { validateLabels } from "../validation/labels.js";
import { isQualifiedName, isValidLabelValue } from "../validation/names.js";
import { EVERYTHING_LABELS, selectorFrom, type LabelRequirement, type LabelSelector } from "./selector.js";

/** metav1.LabelSelector, the object form used in specs (workload selectors, webhook namespace/object selectors, RBAC aggregation). */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

/** Why a metav1.LabelSelector cannot become a selector (`LabelSelectorAsSelector`'s error). */
export class LabelSelectorOperatorError extends Error {
  override readonly name = "LabelSelectorOperatorError";
}

const OPERATORS: Record<string, LabelRequirement["operator"]> = { In: "in", NotIn: "notin", Exists: "exists", DoesNotExist: "!" };

/** Upstream `ValidateLabelSelector` (metav1validation) with its field paths and messages. */
export function validateLabelSelector(selector: LabelSelectorObject | undefined, field: string): FieldError[] {
  if (selector === undefined || selector === null) return [];
  const errors = validateLabels(selector.matchLabels, childPath(field, "matchLabels"));
  (selector.matchExpressions ?? []).forEach((expression, i) => {
    const path = indexPath(childPath(field, "matchExpressions"), i);
    switch (expression.operator) {
      case "In":
      case "NotIn":
        if ((expression.values ?? []).length === 0)
          errors.push(fieldRequired(childPath(path, "values"), "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case "Exists":
      case "DoesNotExist":
        if ((expression.values ?? []).length > 0)
          errors.push(fieldForbidden(childPath(path, "values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errors.push(fieldInvalid(childPath(path, "operator"), expression.operator, "not a valid selector operator"));
    }
    for (const message of isQualifiedName(expression.key ?? "")) errors.push(fieldInvalid(childPath(path, "key"), expression.key, message));
    (expression.values ?? []).forEach((value, j) => {
      for (const message of isValidLabelValue(value)) errors.push(fieldInvalid(indexPath(childPath(path, "values"), j), value, message));
    });
  });
  return errors;
}

/**
 * Upstream `LabelSelectorAsSelector`: `{}` matches everything. Throws a `LabelSelectorOperatorError`
 * for an operator upstream does not know (validation reports it first where objects are stored).
 */
export function labelSelectorAsSelector(selector: LabelSelectorObject | undefined): LabelSelector {
  if (selector === undefined || selector === null) return EVERYTHING_LABELS;
  const requirements: LabelRequirement[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) requirements.push({ key, operator: "=", values: [value] });
  for (const expression of selector.matchExpressions ?? []) {
    const operator = OPERATORS[expression.operator];
    if (operator === undefined)
      throw new LabelSelectorOperatorError(`${JSON.stringify(expression.operator)} is not a valid label selector operator`);
    requirements.push({ key: expression.key, operator, values: [...(expression.values ?? [])] });
  }
  return requirements.length === 0 ? EVERYTHING_LABELS : selectorFrom(requirements);
}
