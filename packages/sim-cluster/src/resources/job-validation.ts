import {
  childPath,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  fieldTooMany,
  indexPath,
  validateImmutableField,
  validateLabels,
  type FieldError,
} from "@kubekit/generic-controlplane/registry";
import { selectorMatches, validateLabelSelector } from "../selector.js";
import { parseIndexes } from "../controllers/job-indexes.js";
import type { Job, JobSpec, PodFailurePolicyRule } from "./jobs.js";
import { validatePodSpec } from "./pod-spec.js";

const MAX_INDEXED_COMPLETIONS = 100_000;
const MAX_FAILURE_POLICY_RULES = 20;
const MAX_SUCCESS_POLICY_RULES = 20;
const MAX_EXIT_CODE_VALUES = 255;
const ACTIONS = ["FailJob", "FailIndex", "Ignore", "Count"];
const EXIT_CODE_OPERATORS = ["In", "NotIn"];
const CONDITION_STATUSES = ["True", "False", "Unknown"];

function nonNegative(value: number | undefined, path: string): FieldError[] {
  return typeof value === "number" && value < 0 ? [fieldInvalid(path, value, "must be greater than or equal to 0")] : [];
}

/** validateJobSpec: what a Job and a CronJob's job template share. */
export function validateJobSpecFields(spec: JobSpec | undefined, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const at = (field: string) => childPath(path, field);
  errors.push(...nonNegative(spec?.parallelism, at("parallelism")));
  errors.push(...nonNegative(spec?.completions, at("completions")));
  errors.push(...nonNegative(spec?.activeDeadlineSeconds, at("activeDeadlineSeconds")));
  errors.push(...nonNegative(spec?.backoffLimit, at("backoffLimit")));
  errors.push(...nonNegative(spec?.ttlSecondsAfterFinished, at("ttlSecondsAfterFinished")));
  const mode = spec?.completionMode;
  if (mode !== undefined && mode !== "NonIndexed" && mode !== "Indexed")
    errors.push(fieldNotSupported(at("completionMode"), mode, ["NonIndexed", "Indexed"]));
  const indexed = mode === "Indexed";
  if (indexed) {
    if (spec?.completions === undefined) errors.push(fieldRequired(at("completions"), "when completion mode is Indexed"));
    else if (spec.completions > MAX_INDEXED_COMPLETIONS)
      errors.push(
        fieldInvalid(
          at("completions"),
          spec.completions,
          `must be less than or equal to ${MAX_INDEXED_COMPLETIONS} when completion mode is Indexed`,
        ),
      );
    if ((spec?.parallelism ?? 0) > MAX_INDEXED_COMPLETIONS)
      errors.push(
        fieldInvalid(
          at("parallelism"),
          spec?.parallelism,
          `must be less than or equal to ${MAX_INDEXED_COMPLETIONS} when completion mode is Indexed`,
        ),
      );
  }
  if (spec?.backoffLimitPerIndex !== undefined) {
    errors.push(...nonNegative(spec.backoffLimitPerIndex, at("backoffLimitPerIndex")));
    if (!indexed) errors.push(fieldInvalid(at("backoffLimitPerIndex"), spec.backoffLimitPerIndex, "requires indexed completion mode"));
  }
  if (spec?.maxFailedIndexes !== undefined) {
    errors.push(...nonNegative(spec.maxFailedIndexes, at("maxFailedIndexes")));
    if (spec.backoffLimitPerIndex === undefined)
      errors.push(fieldRequired(at("backoffLimitPerIndex"), "when maxFailedIndexes is specified"));
    if (spec.completions !== undefined && spec.maxFailedIndexes > spec.completions)
      errors.push(fieldInvalid(at("maxFailedIndexes"), spec.maxFailedIndexes, "must be less than or equal to completions"));
  }
  const template = spec?.template;
  errors.push(...validateLabels(template?.metadata?.labels, childPath(at("template"), "metadata.labels")));
  errors.push(...validatePodSpec(template?.spec, childPath(at("template"), "spec")));
  const restartPolicy = template?.spec?.restartPolicy;
  const restartPath = childPath(at("template"), "spec.restartPolicy");
  if (restartPolicy !== "OnFailure" && restartPolicy !== "Never")
    errors.push(fieldNotSupported(restartPath, restartPolicy ?? "", ["OnFailure", "Never"]));
  if (spec?.podFailurePolicy !== undefined) {
    errors.push(...validatePodFailurePolicy(spec, at("podFailurePolicy")));
    if (restartPolicy === "OnFailure")
      errors.push(fieldInvalid(restartPath, restartPolicy, 'only "Never" is supported when podFailurePolicy is specified'));
  }
  if (spec?.successPolicy !== undefined) errors.push(...validateSuccessPolicy(spec, at("successPolicy")));
  const replacement = spec?.podReplacementPolicy;
  if (replacement !== undefined) {
    if (spec?.podFailurePolicy !== undefined && replacement !== "Failed")
      errors.push(fieldNotSupported(at("podReplacementPolicy"), replacement, ["Failed"]));
    else if (replacement !== "Failed" && replacement !== "TerminatingOrFailed")
      errors.push(fieldNotSupported(at("podReplacementPolicy"), replacement, ["TerminatingOrFailed", "Failed"]));
  }
  return errors;
}

function validatePodFailurePolicy(spec: JobSpec, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const rules = spec.podFailurePolicy?.rules ?? [];
  const rulesPath = childPath(path, "rules");
  if (rules.length > MAX_FAILURE_POLICY_RULES) errors.push(fieldTooMany(rulesPath, rules.length, MAX_FAILURE_POLICY_RULES));
  const containerNames = new Set(
    [...(spec.template?.spec?.containers ?? []), ...(spec.template?.spec?.initContainers ?? [])].map((c) => c.name),
  );
  rules.forEach((rule: PodFailurePolicyRule, i) => {
    const at = indexPath(rulesPath, i);
    const actions = spec.backoffLimitPerIndex !== undefined ? ACTIONS : ACTIONS.filter((a) => a !== "FailIndex");
    if (rule.action === undefined) errors.push(fieldRequired(childPath(at, "action")));
    else if (!actions.includes(rule.action)) errors.push(fieldNotSupported(childPath(at, "action"), rule.action, actions));
    const hasExitCodes = rule.onExitCodes !== undefined && rule.onExitCodes !== null;
    const hasConditions = (rule.onPodConditions?.length ?? 0) > 0;
    if (hasExitCodes === hasConditions) {
      errors.push(fieldInvalid(at, rule, "specifying one of OnExitCodes and OnPodConditions is required"));
      return;
    }
    if (hasExitCodes) {
      const requirement = rule.onExitCodes ?? {};
      const reqPath = childPath(at, "onExitCodes");
      if (requirement.containerName !== undefined && !containerNames.has(requirement.containerName)) {
        errors.push(
          fieldInvalid(
            childPath(reqPath, "containerName"),
            requirement.containerName,
            "must be one of the container or initContainer names in the pod template",
          ),
        );
      }
      if (requirement.operator === undefined) errors.push(fieldRequired(childPath(reqPath, "operator")));
      else if (!EXIT_CODE_OPERATORS.includes(requirement.operator))
        errors.push(fieldNotSupported(childPath(reqPath, "operator"), requirement.operator, EXIT_CODE_OPERATORS));
      const values = requirement.values ?? [];
      const valuesPath = childPath(reqPath, "values");
      if (values.length === 0) errors.push(fieldInvalid(valuesPath, values, "at least one value is required"));
      if (values.length > MAX_EXIT_CODE_VALUES) errors.push(fieldTooMany(valuesPath, values.length, MAX_EXIT_CODE_VALUES));
      let previous: number | undefined;
      values.forEach((value, j) => {
        if (value === 0 && requirement.operator === "In")
          errors.push(fieldInvalid(indexPath(valuesPath, j), value, "must not be 0 for the In operator"));
        if (previous !== undefined && previous > value) errors.push(fieldInvalid(indexPath(valuesPath, j), value, "must be ordered"));
        if (previous === value) errors.push(fieldInvalid(indexPath(valuesPath, j), value, "duplicate value"));
        previous = value;
      });
    } else {
      (rule.onPodConditions ?? []).forEach((pattern, j) => {
        const patternPath = indexPath(childPath(at, "onPodConditions"), j);
        if (!pattern.type) errors.push(fieldRequired(childPath(patternPath, "type")));
        if (pattern.status !== undefined && !CONDITION_STATUSES.includes(pattern.status))
          errors.push(fieldNotSupported(childPath(patternPath, "status"), pattern.status, CONDITION_STATUSES));
      });
    }
  });
  return errors;
}

function validateSuccessPolicy(spec: JobSpec, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const rules = spec.successPolicy?.rules ?? [];
  const rulesPath = childPath(path, "rules");
  if (spec.completionMode !== "Indexed") errors.push(fieldInvalid(path, spec.successPolicy, "requires indexed completion mode"));
  if (rules.length === 0) errors.push(fieldRequired(rulesPath, "at least one rules must be specified when the successPolicy is specified"));
  if (rules.length > MAX_SUCCESS_POLICY_RULES) errors.push(fieldTooMany(rulesPath, rules.length, MAX_SUCCESS_POLICY_RULES));
  rules.forEach((rule, i) => {
    const at = indexPath(rulesPath, i);
    if (rule.succeededIndexes === undefined && rule.succeededCount === undefined) {
      errors.push(fieldRequired(at, "at least one of succeededCount or succeededIndexes must be specified"));
    }
    let total: number | undefined;
    if (rule.succeededIndexes !== undefined) {
      const parsed = parseIndexes(rule.succeededIndexes, spec.completions ?? 0);
      if (typeof parsed === "string") errors.push(fieldInvalid(childPath(at, "succeededIndexes"), rule.succeededIndexes, parsed));
      else total = parsed.reduce((sum, [first, last]) => sum + last - first + 1, 0);
    }
    if (rule.succeededCount !== undefined) {
      if (rule.succeededCount < 0)
        errors.push(fieldInvalid(childPath(at, "succeededCount"), rule.succeededCount, "must be greater than or equal to 0"));
      if (spec.completions !== undefined && rule.succeededCount > spec.completions)
        errors.push(
          fieldInvalid(
            childPath(at, "succeededCount"),
            rule.succeededCount,
            `must be less than or equal to ${spec.completions} (the number of specified completions)`,
          ),
        );
      if (total !== undefined && rule.succeededCount > total)
        errors.push(
          fieldInvalid(
            childPath(at, "succeededCount"),
            rule.succeededCount,
            `must be less than or equal to ${total} (the number of indexes in the specified succeededIndexes field)`,
          ),
        );
    }
  });
  return errors;
}

/** ValidateJob: the generated selector's labels, the spec, and a selector matching the template. */
export function validateJob(job: Job, hooks: { generateSelector(job: Job): void }): FieldError[] {
  hooks.generateSelector(job);
  return [...validateGeneratedSelector(job), ...validateJobSpecAndSelector(job.spec)];
}

function validateGeneratedSelector(job: Job): FieldError[] {
  if (job.spec?.manualSelector === true || job.spec?.selector === undefined) return [];
  const expected = {
    "batch.kubernetes.io/controller-uid": job.metadata?.uid ?? "",
    "batch.kubernetes.io/job-name": job.metadata?.name ?? "",
  };
  const errors: FieldError[] = [];
  const labels = job.spec.template?.metadata?.labels ?? {};
  for (const [key, value] of Object.entries(expected)) {
    if (!Object.hasOwn(labels, key)) errors.push(fieldRequired(childPath("spec.template.metadata.labels", key), ""));
    else if (labels[key] !== value)
      errors.push(fieldInvalid(childPath("spec.template.metadata.labels", key), labels[key], `must be '${value}'`));
  }
  if (!selectorMatches(job.spec.selector, expected))
    errors.push(fieldInvalid("spec.selector", job.spec.selector, "`selector` not auto-generated"));
  return errors;
}

function validateJobSpecAndSelector(spec: JobSpec | undefined): FieldError[] {
  const errors = validateJobSpecFields(spec, "spec");
  if (spec?.selector === undefined) errors.push(fieldRequired("spec.selector"));
  else {
    errors.push(...validateLabelSelector(spec.selector, "spec.selector"));
    if (!selectorMatches(spec.selector, spec.template?.metadata?.labels)) {
      errors.push(
        fieldInvalid("spec.template.metadata.labels", spec.template?.metadata?.labels ?? {}, "`selector` does not match template `labels`"),
      );
    }
  }
  return errors;
}

/**
 * ValidateJobSpecUpdate: completions change only for an elastic Indexed Job (with parallelism,
 * to the same value); selector, completion mode, the failure and success policies, the per-index
 * limit, podReplacementPolicy and managedBy are fixed; the template is fixed but for the
 * scheduling directives of a suspended Job that never started.
 */
export function validateJobUpdate(job: Job, old: Job): FieldError[] {
  const spec = job.spec ?? {};
  const before = old.spec ?? {};
  const errors = validateJobSpecAndSelector(spec);
  const elastic = spec.completionMode === "Indexed" && spec.completions === spec.parallelism && before.completions === before.parallelism;
  if (!elastic) errors.push(...validateImmutableField(spec.completions ?? null, before.completions ?? null, "spec.completions"));
  else if (spec.completions !== before.completions && spec.successPolicy !== undefined)
    errors.push(fieldInvalid("spec.completions", spec.completions, "cannot be changed when successPolicy is set"));
  for (const field of [
    "selector",
    "completionMode",
    "podFailurePolicy",
    "successPolicy",
    "backoffLimitPerIndex",
    "podReplacementPolicy",
    "managedBy",
  ] as const) {
    errors.push(...validateImmutableField(spec[field] ?? null, before[field] ?? null, `spec.${field}`));
  }
  const neverStarted = before.suspend === true && old.status?.startTime === undefined;
  const template = spec.template ?? {};
  const oldTemplate = before.template ?? {};
  if (neverStarted) {
    // Scheduling directives may change; the rest of the template may not.
    const strip = (t: typeof template) => ({
      ...t,
      metadata: { ...t.metadata, labels: undefined, annotations: undefined },
      spec: { ...t.spec, nodeSelector: undefined, affinity: undefined, tolerations: undefined, schedulingGates: undefined },
    });
    errors.push(
      ...validateImmutableField(
        JSON.parse(JSON.stringify(strip(template))) as unknown,
        JSON.parse(JSON.stringify(strip(oldTemplate))) as unknown,
        "spec.template",
      ),
    );
  } else {
    errors.push(...validateImmutableField(template, oldTemplate, "spec.template"));
  }
  if (spec.maxFailedIndexes !== undefined && spec.backoffLimitPerIndex === undefined)
    errors.push(fieldForbidden("spec.maxFailedIndexes", "cannot be set without backoffLimitPerIndex set"));
  return errors;
}
