import {
  childPath,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  indexPath,
  isDNS1123Subdomain,
  isValidPathSegmentName,
  type FieldError,
} from "../validation/index.js";
import { validateLabelSelector } from "../selectors/index.js";
import {
  GROUP_KIND,
  RBAC_GROUP,
  SERVICE_ACCOUNT_KIND,
  USER_KIND,
  type ClusterRole,
  type PolicyRule,
  type Role,
  type RoleBinding,
  type Subject,
} from "./types.js";

/** Validation of pkg/apis/rbac/validation; object metadata is checked by the registry. */

/** `ValidatePolicyRule`. */
export function validatePolicyRule(rule: PolicyRule, namespaced: boolean, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if ((rule.verbs ?? []).length === 0) errors.push(fieldRequired(childPath(path, "verbs"), "verbs must contain at least one value"));
  const urls = rule.nonResourceURLs ?? [];
  if (urls.length > 0) {
    if (namespaced)
      errors.push(fieldInvalid(childPath(path, "nonResourceURLs"), urls, "namespaced rules cannot apply to non-resource URLs"));
    if ((rule.apiGroups ?? []).length > 0 || (rule.resources ?? []).length > 0 || (rule.resourceNames ?? []).length > 0) {
      errors.push(
        fieldInvalid(childPath(path, "nonResourceURLs"), urls, "rules cannot apply to both regular resources and non-resource URLs"),
      );
    }
    return errors;
  }
  if ((rule.apiGroups ?? []).length === 0)
    errors.push(fieldRequired(childPath(path, "apiGroups"), "resource rules must supply at least one api group"));
  if ((rule.resources ?? []).length === 0)
    errors.push(fieldRequired(childPath(path, "resources"), "resource rules must supply at least one resource"));
  return errors;
}

function validateRules(rules: PolicyRule[] | undefined, namespaced: boolean): FieldError[] {
  return (rules ?? []).flatMap((rule, i) => validatePolicyRule(rule, namespaced, indexPath("rules", i)));
}

/** `ValidateRole`. */
export function validateRole(role: Role): FieldError[] {
  return validateRules(role.rules, true);
}

/** `ValidateClusterRole`: rules, and an aggregation rule that selects something. */
export function validateClusterRole(role: ClusterRole): FieldError[] {
  const errors = validateRules(role.rules, false);
  const aggregation = role.aggregationRule;
  if (aggregation !== undefined && aggregation !== null) {
    const selectors = aggregation.clusterRoleSelectors ?? [];
    if (selectors.length === 0) {
      errors.push(
        fieldRequired("aggregationRule.clusterRoleSelectors", "at least one clusterRoleSelector required if aggregationRule is non-nil"),
      );
    }
    selectors.forEach((selector, i) =>
      errors.push(...validateLabelSelector(selector, indexPath("aggregationRule.clusterRoleSelectors", i))),
    );
  }
  return errors;
}

/** `ValidateRoleBindingSubject`. */
export function validateSubject(subject: Subject, namespaced: boolean, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const name = subject.name ?? "";
  if (name === "") errors.push(fieldRequired(childPath(path, "name")));
  switch (subject.kind) {
    case SERVICE_ACCOUNT_KIND:
      if (name !== "") for (const msg of isDNS1123Subdomain(name)) errors.push(fieldInvalid(childPath(path, "name"), name, msg));
      if ((subject.apiGroup ?? "") !== "") errors.push(fieldNotSupported(childPath(path, "apiGroup"), subject.apiGroup, [""]));
      if (!namespaced && (subject.namespace ?? "") === "") errors.push(fieldRequired(childPath(path, "namespace")));
      break;
    case USER_KIND:
    case GROUP_KIND:
      if (subject.apiGroup !== RBAC_GROUP)
        errors.push(fieldNotSupported(childPath(path, "apiGroup"), subject.apiGroup ?? "", [RBAC_GROUP]));
      break;
    default:
      errors.push(fieldNotSupported(childPath(path, "kind"), subject.kind ?? "", [SERVICE_ACCOUNT_KIND, USER_KIND, GROUP_KIND]));
  }
  return errors;
}

/** `ValidateRoleBinding` (`namespaced`) and `ValidateClusterRoleBinding`. */
export function validateBinding(binding: RoleBinding, namespaced: boolean): FieldError[] {
  const errors: FieldError[] = [];
  const roleRef = binding.roleRef ?? { apiGroup: "", kind: "", name: "" };
  if (roleRef.apiGroup !== RBAC_GROUP) errors.push(fieldNotSupported("roleRef.apiGroup", roleRef.apiGroup ?? "", [RBAC_GROUP]));
  const kinds = namespaced ? ["Role", "ClusterRole"] : ["ClusterRole"];
  if (!kinds.includes(roleRef.kind)) errors.push(fieldNotSupported("roleRef.kind", roleRef.kind ?? "", kinds));
  if ((roleRef.name ?? "") === "") errors.push(fieldRequired("roleRef.name"));
  else for (const msg of isValidPathSegmentName(roleRef.name)) errors.push(fieldInvalid("roleRef.name", roleRef.name, msg));
  (binding.subjects ?? []).forEach((subject, i) => errors.push(...validateSubject(subject, namespaced, indexPath("subjects", i))));
  return errors;
}

/** `ValidateRoleBindingUpdate`: the role a binding grants cannot change (delete and recreate it instead). */
export function validateBindingUpdate(binding: RoleBinding, old: RoleBinding, namespaced: boolean): FieldError[] {
  const errors = validateBinding(binding, namespaced);
  const a = binding.roleRef ?? {};
  const b = old.roleRef ?? {};
  if (a.apiGroup !== b.apiGroup || a.kind !== b.kind || a.name !== b.name)
    errors.push(fieldInvalid("roleRef", binding.roleRef, "cannot change roleRef"));
  return errors;
}

/** v1 defaulting: subjects' and roleRef's apiGroup (`SetDefaults_Subject`, `SetDefaults_*RoleBinding`). */
export function defaultBinding(binding: RoleBinding): void {
  if (
    binding.roleRef !== undefined &&
    binding.roleRef !== null &&
    typeof binding.roleRef === "object" &&
    (binding.roleRef.apiGroup ?? "") === ""
  )
    binding.roleRef.apiGroup = RBAC_GROUP;
  for (const subject of binding.subjects ?? []) {
    if (subject === null || typeof subject !== "object" || (subject.apiGroup ?? "") !== "") continue;
    if (subject.kind === USER_KIND || subject.kind === GROUP_KIND) subject.apiGroup = RBAC_GROUP;
  }
}
