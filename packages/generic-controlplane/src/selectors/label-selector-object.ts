import { fieldForbidden, fieldInvalid, fieldRequired, indexPath, childPath, type FieldError } from "../validation/field-errors.js";
import { isQualifiedName, isValidLabelValue } from "../validation/names.js";
import { validateLabels } from "../validation/object-meta.js";
import { EVERYTHING_LABELS, type LabelRequirement, type LabelSelector } from "./labels.js";

/** metav1.LabelSelector, the object form used in specs (webhook namespace/object selectors, RBAC aggregation). */
export interface LabelSelectorObject {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{ key: string; operator: string; values?: string[] }>;
}

const OPERATORS: Record<string, LabelRequirement["operator"]> = { In: "in", NotIn: "notin", Exists: "exists", DoesNotExist: "!" };

/** Upstream `ValidateLabelSelector` (metav1validation) with its field paths and messages. */
export function validateLabelSelectorObject(selector: LabelSelectorObject | undefined, field: string): FieldError[] {
  if (selector === undefined || selector === null) return [];
  const errors: FieldError[] = [];
  (selector.matchExpressions ?? []).forEach((expression, i) => {
    const path = indexPath(childPath(field, "matchExpressions"), i);
    switch (expression.operator) {
      case "In":
      case "NotIn":
        if ((expression.values ?? []).length === 0) errors.push(fieldRequired(childPath(path, "values"), "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case "Exists":
      case "DoesNotExist":
        if ((expression.values ?? []).length > 0) errors.push(fieldForbidden(childPath(path, "values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
        break;
      default:
        errors.push(fieldInvalid(childPath(path, "operator"), expression.operator, "not a valid selector operator"));
    }
    for (const message of isQualifiedName(expression.key ?? "")) errors.push(fieldInvalid(childPath(path, "key"), expression.key, message));
    (expression.values ?? []).forEach((value, j) => {
      for (const message of isValidLabelValue(value)) errors.push(fieldInvalid(indexPath(childPath(path, "values"), j), value, message));
    });
  });
  errors.push(...validateLabels(selector.matchLabels, childPath(field, "matchLabels")));
  return errors;
}

/** Upstream `LabelSelectorAsSelector` for a validated selector: `{}` matches everything. */
export function labelSelectorFromObject(selector: LabelSelectorObject | undefined): LabelSelector {
  if (selector === undefined || selector === null) return EVERYTHING_LABELS;
  const requirements: LabelRequirement[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) requirements.push({ key, operator: "=", values: [value] });
  for (const expression of selector.matchExpressions ?? []) {
    const operator = OPERATORS[expression.operator];
    if (operator === undefined) throw new Error(`${JSON.stringify(expression.operator)} is not a valid label selector operator`);
    requirements.push({ key: expression.key, operator, values: [...(expression.values ?? [])] });
  }
  if (requirements.length === 0) return EVERYTHING_LABELS;
  return {
    requirements,
    empty: false,
    matches: (labels) => requirements.every((r) => matches(r, labels ?? {})),
  };
}

function matches(requirement: LabelRequirement, labels: Record<string, string>): boolean {
  const has = Object.hasOwn(labels, requirement.key);
  switch (requirement.operator) {
    case "=":
    case "in":
      return has && requirement.values.includes(labels[requirement.key] ?? "");
    case "notin":
      return !has || !requirement.values.includes(labels[requirement.key] ?? "");
    case "exists":
      return has;
    case "!":
      return !has;
    default:
      return false;
  }
}
