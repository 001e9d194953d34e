import {
  childPath,
  fieldInvalid,
  fieldNotSupported,
  fieldForbidden,
  fieldRequired,
  indexPath,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  type FieldError,
} from "@kubekit/generic-controlplane/registry";
import type { NodeAffinity, NodeSelectorRequirement, NodeSelectorTerm } from "../scheduler/node-affinity.js";
import type { Toleration } from "../scheduler/taint-toleration.js";

const TAINT_EFFECTS = ["NoSchedule", "PreferNoSchedule", "NoExecute"];
const TOLERATION_OPERATORS = ["Equal", "Exists"];

function labelName(key: string, path: string): FieldError[] {
  return isQualifiedName(key).map((message) => fieldInvalid(path, key, message));
}

/** `validateTolerations`: keys are label names, an empty key needs `Exists`, `Exists` takes no value, `tolerationSeconds` only with `NoExecute`. */
export function validateTolerations(tolerations: readonly Toleration[] | undefined, path: string): FieldError[] {
  const errors: FieldError[] = [];
  (tolerations ?? []).forEach((toleration, i) => {
    const at = indexPath(path, i);
    const operator = toleration.operator ?? "";
    if (toleration.key) errors.push(...labelName(toleration.key, childPath(at, "key")));
    if (!toleration.key && operator !== "Exists") {
      errors.push(
        fieldInvalid(
          childPath(at, "operator"),
          operator,
          'operator must be Exists when `key` is empty, which means "match all values and all keys"',
        ),
      );
    }
    if (toleration.tolerationSeconds !== undefined && toleration.tolerationSeconds !== null && toleration.effect !== "NoExecute") {
      errors.push(
        fieldInvalid(childPath(at, "effect"), toleration.effect ?? "", "effect must be 'NoExecute' when `tolerationSeconds` is set"),
      );
    }
    if (operator === "" || operator === "Equal") {
      const problems = isValidLabelValue(toleration.value ?? "");
      if (problems.length > 0) errors.push(fieldInvalid(childPath(at, "operator"), toleration.value ?? "", problems.join(";")));
    } else if (operator === "Exists") {
      if (toleration.value)
        errors.push(fieldInvalid(childPath(at, "operator"), toleration, "value must be empty when `operator` is 'Exists'"));
    } else {
      errors.push(fieldNotSupported(childPath(at, "operator"), operator, TOLERATION_OPERATORS));
    }
    if (toleration.effect && !TAINT_EFFECTS.includes(toleration.effect))
      errors.push(fieldNotSupported(childPath(at, "effect"), toleration.effect, TAINT_EFFECTS));
  });
  return errors;
}

function validateRequirement(requirement: NodeSelectorRequirement, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const count = (requirement.values ?? []).length;
  switch (requirement.operator) {
    case "In":
    case "NotIn":
      if (count === 0) errors.push(fieldRequired(childPath(path, "values"), "must be specified when `operator` is 'In' or 'NotIn'"));
      break;
    case "Exists":
    case "DoesNotExist":
      if (count > 0)
        errors.push(fieldForbidden(childPath(path, "values"), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      break;
    case "Gt":
    case "Lt":
      if (count !== 1)
        errors.push(fieldRequired(childPath(path, "values"), "must be specified single value when `operator` is 'Lt' or 'Gt'"));
      break;
    default:
      errors.push(fieldInvalid(childPath(path, "operator"), requirement.operator, "not a valid selector operator"));
  }
  errors.push(...labelName(requirement.key, childPath(path, "key")));
  return errors;
}

function validateFieldRequirement(requirement: NodeSelectorRequirement, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (requirement.operator === "In" || requirement.operator === "NotIn") {
    if ((requirement.values ?? []).length !== 1)
      errors.push(
        fieldRequired(childPath(path, "values"), "must be only one value when `operator` is 'In' or 'NotIn' for node field selector"),
      );
  } else {
    errors.push(fieldInvalid(childPath(path, "operator"), requirement.operator, "not a valid selector operator"));
  }
  if (requirement.key !== "metadata.name")
    errors.push(fieldInvalid(childPath(path, "key"), requirement.key, "not a valid field selector key"));
  else {
    (requirement.values ?? []).forEach((value, i) => {
      for (const message of isDNS1123Subdomain(value)) errors.push(fieldInvalid(indexPath(childPath(path, "values"), i), value, message));
    });
  }
  return errors;
}

function validateTerm(term: NodeSelectorTerm, path: string): FieldError[] {
  return [
    ...(term.matchExpressions ?? []).flatMap((r, j) => validateRequirement(r, indexPath(childPath(path, "matchExpressions"), j))),
    ...(term.matchFields ?? []).flatMap((r, j) => validateFieldRequirement(r, indexPath(childPath(path, "matchFields"), j))),
  ];
}

/** `validateNodeAffinity`: at least one required term, valid operators and values, preferred weights 1-100. */
export function validateNodeAffinity(affinity: NodeAffinity | undefined, path: string): FieldError[] {
  if (affinity === undefined || affinity === null) return [];
  const errors: FieldError[] = [];
  const required = affinity.requiredDuringSchedulingIgnoredDuringExecution;
  if (required !== undefined && required !== null) {
    const termsPath = childPath(childPath(path, "requiredDuringSchedulingIgnoredDuringExecution"), "nodeSelectorTerms");
    const terms = required.nodeSelectorTerms ?? [];
    if (terms.length === 0) errors.push(fieldRequired(termsPath, "must have at least one node selector term"));
    terms.forEach((term, i) => errors.push(...validateTerm(term, indexPath(termsPath, i))));
  }
  (affinity.preferredDuringSchedulingIgnoredDuringExecution ?? []).forEach((term, i) => {
    const at = indexPath(childPath(path, "preferredDuringSchedulingIgnoredDuringExecution"), i);
    const weight = term.weight ?? 0;
    if (weight <= 0 || weight > 100) errors.push(fieldInvalid(childPath(at, "weight"), weight, "must be in the range 1-100"));
    errors.push(...validateTerm(term.preference ?? {}, childPath(at, "preference")));
  });
  return errors;
}
