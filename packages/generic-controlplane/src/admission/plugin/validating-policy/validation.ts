import { compileAdmissionExpression } from "../../../cel/admission.js";
import {
  childPath,
  fieldDuplicate,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  indexPath,
  type FieldError,
} from "../../../validation/field-errors.js";
import { isQualifiedName } from "@kubekit/apimachinery";
import type { MatchResources, NamedRuleWithOperations, ValidatingAdmissionPolicy, ValidatingAdmissionPolicyBinding } from "./types.js";

/**
 * Validation of ValidatingAdmissionPolicy and its binding (admissionregistration's
 * `ValidateValidatingAdmissionPolicy`, `ValidateValidatingAdmissionPolicyBinding`), with every
 * CEL expression compiled so a policy that cannot run is refused when written.
 */

const FAILURE_POLICIES = ["Fail", "Ignore"];
const MATCH_POLICIES = ["Equivalent", "Exact"];
const OPERATIONS = ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"];
const SCOPES = ["*", "Cluster", "Namespaced"];
const REASONS = ["Forbidden", "Invalid", "RequestEntityTooLarge", "Unauthorized"];
const VALIDATION_ACTIONS = ["Audit", "Deny", "Warn"];
const PARAMETER_NOT_FOUND_ACTIONS = ["Allow", "Deny"];
const CEL_IDENTIFIER = /^[_a-zA-Z][_a-zA-Z0-9]*$/;

function hasNewlines(text: string): boolean {
  return /[\n\r]/.test(text);
}

function compileError(path: string, expression: string, errors: FieldError[]): void {
  if (expression.trim() === "") {
    errors.push(fieldRequired(path, ""));
    return;
  }
  const result = compileAdmissionExpression(expression);
  if (!result.ok) errors.push(fieldInvalid(path, expression, result.error));
}

function validateRule(rule: NamedRuleWithOperations, path: string, errors: FieldError[]): void {
  for (const [name, values] of [
    ["apiGroups", rule.apiGroups],
    ["apiVersions", rule.apiVersions],
    ["resources", rule.resources],
    ["operations", rule.operations],
  ] as const) {
    if (values === undefined || values.length === 0) errors.push(fieldRequired(childPath(path, name), ""));
  }
  (rule.operations ?? []).forEach((operation, i) => {
    if (!OPERATIONS.includes(operation)) errors.push(fieldNotSupported(indexPath(childPath(path, "operations"), i), operation, OPERATIONS));
  });
  if (rule.scope !== undefined && !SCOPES.includes(rule.scope))
    errors.push(fieldNotSupported(childPath(path, "scope"), rule.scope, SCOPES));
}

function validateMatchResources(match: MatchResources | undefined, path: string, requireRules: boolean, errors: FieldError[]): void {
  if (match === undefined) {
    if (requireRules) errors.push(fieldRequired(path, ""));
    return;
  }
  if (match.matchPolicy !== undefined && !MATCH_POLICIES.includes(match.matchPolicy)) {
    errors.push(fieldNotSupported(childPath(path, "matchPolicy"), match.matchPolicy, MATCH_POLICIES));
  }
  if (requireRules && (match.resourceRules ?? []).length === 0) errors.push(fieldRequired(childPath(path, "resourceRules"), ""));
  (match.resourceRules ?? []).forEach((rule, i) => validateRule(rule, indexPath(childPath(path, "resourceRules"), i), errors));
  (match.excludeResourceRules ?? []).forEach((rule, i) =>
    validateRule(rule, indexPath(childPath(path, "excludeResourceRules"), i), errors),
  );
}

export function validatePolicy(policy: ValidatingAdmissionPolicy): FieldError[] {
  const errors: FieldError[] = [];
  const spec = policy.spec ?? {};
  if (spec.failurePolicy !== undefined && !FAILURE_POLICIES.includes(spec.failurePolicy)) {
    errors.push(fieldNotSupported("spec.failurePolicy", spec.failurePolicy, FAILURE_POLICIES));
  }
  if (spec.paramKind !== undefined) {
    if ((spec.paramKind.apiVersion ?? "") === "") errors.push(fieldRequired("spec.paramKind.apiVersion", ""));
    else if ((spec.paramKind.apiVersion ?? "").split("/").length > 2) {
      errors.push(fieldInvalid("spec.paramKind.apiVersion", spec.paramKind.apiVersion, "must be a valid group/version"));
    }
    if ((spec.paramKind.kind ?? "") === "") errors.push(fieldRequired("spec.paramKind.kind", ""));
  }
  validateMatchResources(spec.matchConstraints, "spec.matchConstraints", true, errors);
  const validations = spec.validations ?? [];
  const auditAnnotations = spec.auditAnnotations ?? [];
  if (validations.length === 0 && auditAnnotations.length === 0) {
    errors.push(fieldRequired("spec.validations", "validations or auditAnnotations must contain at least one item"));
  }
  validations.forEach((validation, i) => {
    const path = indexPath("spec.validations", i);
    compileError(childPath(path, "expression"), validation.expression ?? "", errors);
    const message = validation.message ?? "";
    if (message.length > 0 && message.trim().length === 0)
      errors.push(fieldInvalid(childPath(path, "message"), message, "message must be non-empty if specified"));
    else if (hasNewlines(message.trim()))
      errors.push(fieldInvalid(childPath(path, "message"), message, "message must not contain line breaks"));
    if (validation.reason !== undefined && !REASONS.includes(validation.reason)) {
      errors.push(fieldNotSupported(childPath(path, "reason"), validation.reason, REASONS));
    }
    if (validation.messageExpression !== undefined && validation.messageExpression.trim() !== "") {
      compileError(childPath(path, "messageExpression"), validation.messageExpression, errors);
    }
  });
  const annotationKeys = new Set<string>();
  auditAnnotations.forEach((annotation, i) => {
    const path = indexPath("spec.auditAnnotations", i);
    const key = annotation.key ?? "";
    if (key === "") errors.push(fieldRequired(childPath(path, "key"), ""));
    else {
      for (const message of isQualifiedName(`${policy.metadata?.name ?? ""}/${key}`))
        errors.push(fieldInvalid(childPath(path, "key"), key, message));
      if (annotationKeys.has(key)) errors.push(fieldDuplicate(childPath(path, "key"), key));
      annotationKeys.add(key);
    }
    compileError(childPath(path, "valueExpression"), annotation.valueExpression ?? "", errors);
  });
  const conditionNames = new Set<string>();
  (spec.matchConditions ?? []).forEach((condition, i) => {
    const path = indexPath("spec.matchConditions", i);
    const name = condition.name ?? "";
    if (name === "") errors.push(fieldRequired(childPath(path, "name"), ""));
    else {
      for (const message of isQualifiedName(name)) errors.push(fieldInvalid(childPath(path, "name"), name, message));
      if (conditionNames.has(name)) errors.push(fieldDuplicate(childPath(path, "name"), name));
      conditionNames.add(name);
    }
    compileError(childPath(path, "expression"), condition.expression ?? "", errors);
  });
  const variableNames = new Set<string>();
  (spec.variables ?? []).forEach((variable, i) => {
    const path = indexPath("spec.variables", i);
    const name = variable.name ?? "";
    if (name === "") errors.push(fieldRequired(childPath(path, "name"), ""));
    else if (!CEL_IDENTIFIER.test(name)) errors.push(fieldInvalid(childPath(path, "name"), name, "name is not a valid CEL identifier"));
    else if (variableNames.has(name)) errors.push(fieldDuplicate(childPath(path, "name"), name));
    variableNames.add(name);
    compileError(childPath(path, "expression"), variable.expression ?? "", errors);
  });
  return errors;
}

export function validateBinding(binding: ValidatingAdmissionPolicyBinding): FieldError[] {
  const errors: FieldError[] = [];
  const spec = binding.spec ?? {};
  if ((spec.policyName ?? "") === "") errors.push(fieldRequired("spec.policyName", ""));
  const actions = spec.validationActions ?? [];
  if (actions.length === 0) errors.push(fieldRequired("spec.validationActions", "at least one validation action is required"));
  const seen = new Set<string>();
  actions.forEach((action, i) => {
    const path = indexPath("spec.validationActions", i);
    if (!VALIDATION_ACTIONS.includes(action)) errors.push(fieldNotSupported(path, action, VALIDATION_ACTIONS));
    if (seen.has(action)) errors.push(fieldDuplicate(path, action));
    seen.add(action);
  });
  if (seen.has("Deny") && seen.has("Warn")) {
    errors.push(
      fieldInvalid(
        "spec.validationActions",
        actions,
        "must not contain both Deny and Warn (repeating the same validation failure information in the API response and headers serves no purpose)",
      ),
    );
  }
  const paramRef = spec.paramRef;
  if (paramRef !== undefined) {
    const hasName = (paramRef.name ?? "") !== "";
    const hasSelector = paramRef.selector !== undefined;
    if (hasName && hasSelector) errors.push(fieldInvalid("spec.paramRef.name", paramRef.name, "name and selector are mutually exclusive"));
    if (!hasName && !hasSelector) errors.push(fieldRequired("spec.paramRef", "one of name or selector must be specified"));
    if (paramRef.parameterNotFoundAction === undefined) errors.push(fieldRequired("spec.paramRef.parameterNotFoundAction", ""));
    else if (!PARAMETER_NOT_FOUND_ACTIONS.includes(paramRef.parameterNotFoundAction)) {
      errors.push(
        fieldNotSupported("spec.paramRef.parameterNotFoundAction", paramRef.parameterNotFoundAction, PARAMETER_NOT_FOUND_ACTIONS),
      );
    }
  }
  validateMatchResources(spec.matchResources, "spec.matchResources", false, errors);
  return errors;
}
