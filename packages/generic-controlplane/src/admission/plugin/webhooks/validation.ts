import { validateLabelSelector } from "../../../selectors/index.js";
import {
  childPath,
  fieldDuplicate,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  fieldTooMany,
  indexPath,
  type FieldError,
} from "../../../validation/field-errors.js";
import { isDNS1035Label, isDNS1123Subdomain, isQualifiedName } from "@kubekit/apimachinery";
import { validateWebhookClientConfig } from "../../../webhook/validation.js";
import type { MatchConditionEvaluator } from "./match-conditions.js";
import type { MatchCondition, RuleWithOperations, Webhook, WebhookConfiguration, WebhookKind } from "./types.js";

/** Upstream `pkg/apis/admissionregistration/validation`, for the webhook configurations (the parts ValidatingAdmissionPolicy shares are exported). */

const OPERATIONS = ["*", "CONNECT", "CREATE", "DELETE", "UPDATE"];
const SCOPES = ["*", "Cluster", "Namespaced"];
const FAILURE_POLICIES = ["Fail", "Ignore"];
const MATCH_POLICIES = ["Equivalent", "Exact"];
const NO_SIDE_EFFECTS = ["None", "NoneOnDryRun"];
const REINVOCATION_POLICIES = ["IfNeeded", "Never"];
const ADMISSION_REVIEW_VERSIONS = ["v1", "v1beta1"];
const MAX_MATCH_CONDITIONS = 64;

const hasWildcard = (items: readonly string[]) => items.includes("*");

function validateResources(resources: readonly string[], field: string): FieldError[] {
  const errors: FieldError[] = [];
  if (resources.length === 0) errors.push(fieldRequired(field));
  const withWildcardSubresource = new Set<string>();
  const subresourcesOfWildcard = new Set<string>();
  let doubleWildcard = false;
  let singleWildcard = false;
  let withoutSubresource = false;
  resources.forEach((entry, i) => {
    if (entry === "") {
      errors.push(fieldRequired(indexPath(field, i)));
      return;
    }
    if (entry === "*/*") doubleWildcard = true;
    if (entry === "*") singleWildcard = true;
    const slash = entry.indexOf("/");
    if (slash < 0) {
      withoutSubresource = entry !== "*";
      return;
    }
    const resource = entry.slice(0, slash);
    const sub = entry.slice(slash + 1);
    if (withWildcardSubresource.has(resource))
      errors.push(fieldInvalid(indexPath(field, i), entry, `if '${resource}/*' is present, must not specify ${entry}`));
    if (subresourcesOfWildcard.has(sub))
      errors.push(fieldInvalid(indexPath(field, i), entry, `if '*/${sub}' is present, must not specify ${entry}`));
    if (sub === "*") withWildcardSubresource.add(resource);
    if (resource === "*") subresourcesOfWildcard.add(sub);
  });
  if (resources.length > 1 && doubleWildcard)
    errors.push(fieldInvalid(field, resources, "if '*/*' is present, must not specify other resources"));
  if (singleWildcard && withoutSubresource)
    errors.push(fieldInvalid(field, resources, "if '*' is present, must not specify other resources without subresources"));
  return errors;
}

/** `validateRuleWithOperations` (subresources allowed). */
export function validateRuleWithOperations(rule: RuleWithOperations, field: string): FieldError[] {
  const errors: FieldError[] = [];
  const operations = rule.operations ?? [];
  if (operations.length === 0) errors.push(fieldRequired(childPath(field, "operations")));
  if (operations.length > 1 && hasWildcard(operations))
    errors.push(fieldInvalid(childPath(field, "operations"), operations, "if '*' is present, must not specify other operations"));
  operations.forEach((operation, i) => {
    if (!OPERATIONS.includes(operation))
      errors.push(fieldNotSupported(indexPath(childPath(field, "operations"), i), operation, OPERATIONS));
  });
  const groups = rule.apiGroups ?? [];
  if (groups.length === 0) errors.push(fieldRequired(childPath(field, "apiGroups")));
  if (groups.length > 1 && hasWildcard(groups))
    errors.push(fieldInvalid(childPath(field, "apiGroups"), groups, "if '*' is present, must not specify other API groups"));
  const versions = rule.apiVersions ?? [];
  if (versions.length === 0) errors.push(fieldRequired(childPath(field, "apiVersions")));
  if (versions.length > 1 && hasWildcard(versions))
    errors.push(fieldInvalid(childPath(field, "apiVersions"), versions, "if '*' is present, must not specify other API versions"));
  versions.forEach((version, i) => {
    if (version === "") errors.push(fieldRequired(indexPath(childPath(field, "apiVersions"), i)));
  });
  errors.push(...validateResources(rule.resources ?? [], childPath(field, "resources")));
  if (rule.scope !== undefined && !SCOPES.includes(rule.scope))
    errors.push(fieldNotSupported(childPath(field, "scope"), rule.scope, SCOPES));
  return errors;
}

/** `validateMatchConditions`: at most 64, unique qualified names, expressions that compile. */
export function validateMatchConditions(
  conditions: readonly MatchCondition[],
  field: string,
  evaluator: MatchConditionEvaluator | undefined,
): FieldError[] {
  const errors: FieldError[] = [];
  if (conditions.length > MAX_MATCH_CONDITIONS) errors.push(fieldTooMany(field, conditions.length, MAX_MATCH_CONDITIONS));
  const names = new Set<string>();
  conditions.forEach((condition, i) => {
    const path = indexPath(field, i);
    const expression = (condition.expression ?? "").trim();
    if (expression === "") errors.push(fieldRequired(childPath(path, "expression")));
    else if (evaluator === undefined)
      errors.push(
        fieldInvalid(childPath(path, "expression"), expression, "compilation failed: no CEL environment is configured for matchConditions"),
      );
    else for (const problem of evaluator.compile(expression)) errors.push(fieldInvalid(childPath(path, "expression"), expression, problem));
    if (!condition.name) errors.push(fieldRequired(childPath(path, "name")));
    else for (const message of isQualifiedName(condition.name)) errors.push(fieldInvalid(childPath(path, "name"), condition.name, message));
    if (condition.name) {
      if (names.has(condition.name)) errors.push(fieldDuplicate(childPath(path, "name"), condition.name));
      names.add(condition.name);
    }
  });
  return errors;
}

/** `IsFullyQualifiedName`: a DNS subdomain of at least three segments. */
function validateFullyQualifiedName(field: string, name: string | undefined): FieldError[] {
  if (!name) return [fieldRequired(field)];
  const problems = isDNS1123Subdomain(name);
  if (problems.length > 0) return [fieldInvalid(field, name, problems.join(","))];
  if (name.split(".").length < 3) return [fieldInvalid(field, name, "should be a domain with at least three segments separated by dots")];
  return [];
}

function validateAdmissionReviewVersions(versions: readonly string[] | undefined, field: string): FieldError[] {
  if (versions === undefined || versions.length === 0)
    return [fieldRequired(field, `must specify one of ${ADMISSION_REVIEW_VERSIONS.join(", ")}`)];
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  versions.forEach((version, i) => {
    if (seen.has(version)) {
      errors.push(fieldInvalid(indexPath(field, i), version, "duplicate version"));
      return;
    }
    seen.add(version);
    for (const problem of isDNS1035Label(version)) errors.push(fieldInvalid(indexPath(field, i), version, problem));
  });
  if (!versions.some((v) => ADMISSION_REVIEW_VERSIONS.includes(v)))
    errors.push(fieldInvalid(field, versions, `must include at least one of ${ADMISSION_REVIEW_VERSIONS.join(", ")}`));
  return errors;
}

interface Options {
  kind: WebhookKind;
  evaluator: MatchConditionEvaluator | undefined;
  /** Unchanged matchConditions of an update are not compiled again (upstream `ignoreMatchConditions`). */
  ignoreMatchConditions: boolean;
}

function validateWebhook(webhook: Webhook, field: string, options: Options): FieldError[] {
  const errors = validateFullyQualifiedName(childPath(field, "name"), webhook.name);
  (webhook.rules ?? []).forEach((rule, i) => errors.push(...validateRuleWithOperations(rule, indexPath(childPath(field, "rules"), i))));
  if (webhook.failurePolicy !== undefined && !FAILURE_POLICIES.includes(webhook.failurePolicy))
    errors.push(fieldNotSupported(childPath(field, "failurePolicy"), webhook.failurePolicy, FAILURE_POLICIES));
  if (webhook.matchPolicy !== undefined && !MATCH_POLICIES.includes(webhook.matchPolicy))
    errors.push(fieldNotSupported(childPath(field, "matchPolicy"), webhook.matchPolicy, MATCH_POLICIES));
  if (webhook.sideEffects === undefined)
    errors.push(fieldRequired(childPath(field, "sideEffects"), `must specify one of ${NO_SIDE_EFFECTS.join(", ")}`));
  else if (!NO_SIDE_EFFECTS.includes(webhook.sideEffects))
    errors.push(fieldNotSupported(childPath(field, "sideEffects"), webhook.sideEffects, NO_SIDE_EFFECTS));
  if (webhook.timeoutSeconds !== undefined && (webhook.timeoutSeconds > 30 || webhook.timeoutSeconds < 1)) {
    errors.push(
      fieldInvalid(childPath(field, "timeoutSeconds"), webhook.timeoutSeconds, "the timeout value must be between 1 and 30 seconds"),
    );
  }
  errors.push(...validateLabelSelector(webhook.namespaceSelector, childPath(field, "namespaceSelector")));
  errors.push(...validateLabelSelector(webhook.objectSelector, childPath(field, "objectSelector")));
  if (
    options.kind === "Mutating" &&
    webhook.reinvocationPolicy !== undefined &&
    !REINVOCATION_POLICIES.includes(webhook.reinvocationPolicy)
  ) {
    errors.push(fieldNotSupported(childPath(field, "reinvocationPolicy"), webhook.reinvocationPolicy, REINVOCATION_POLICIES));
  }
  errors.push(...validateWebhookClientConfig(childPath(field, "clientConfig"), webhook.clientConfig));
  if (!options.ignoreMatchConditions)
    errors.push(...validateMatchConditions(webhook.matchConditions ?? [], childPath(field, "matchConditions"), options.evaluator));
  return errors;
}

/** `ValidateValidatingWebhookConfiguration` / `ValidateMutatingWebhookConfiguration` (object metadata is the registry's). */
export function validateWebhookConfiguration(
  configuration: WebhookConfiguration,
  kind: WebhookKind,
  evaluator: MatchConditionEvaluator | undefined,
  old?: WebhookConfiguration,
): FieldError[] {
  const webhooks = configuration.webhooks ?? [];
  const unchangedConditions =
    old !== undefined &&
    (old.webhooks ?? []).length === webhooks.length &&
    webhooks.every(
      (webhook, i) => JSON.stringify(webhook.matchConditions ?? []) === JSON.stringify(old.webhooks?.[i]?.matchConditions ?? []),
    );
  const options: Options = { kind, evaluator, ignoreMatchConditions: unchangedConditions };
  const errors: FieldError[] = [];
  const names = new Set<string>();
  webhooks.forEach((webhook, i) => {
    const field = indexPath("webhooks", i);
    errors.push(...validateWebhook(webhook, field, options));
    errors.push(...validateAdmissionReviewVersions(webhook.admissionReviewVersions, childPath(field, "admissionReviewVersions")));
    if (webhook.name) {
      if (names.has(webhook.name)) errors.push(fieldDuplicate(childPath(field, "name"), webhook.name));
      names.add(webhook.name);
    }
  });
  return errors;
}

/** Upstream v1 defaults (`SetDefaults_*Webhook`, `SetDefaults_Rule`, `SetDefaults_ServiceReference`). */
export function defaultWebhookConfiguration(configuration: WebhookConfiguration, kind: WebhookKind): void {
  for (const webhook of configuration.webhooks ?? []) {
    webhook.failurePolicy ??= "Fail";
    webhook.matchPolicy ??= "Equivalent";
    webhook.namespaceSelector ??= {};
    webhook.objectSelector ??= {};
    webhook.timeoutSeconds ??= 10;
    if (kind === "Mutating") webhook.reinvocationPolicy ??= "Never";
    for (const rule of webhook.rules ?? []) rule.scope ??= "*";
    const service = webhook.clientConfig?.service;
    if (service !== undefined) service.port ??= 443;
  }
}
