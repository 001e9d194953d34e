import type { KubeObject } from "@kubekit/generic-controlplane";
import {
  childPath,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  validateImmutableField,
  validateLabels,
  type FieldError,
} from "@kubekit/generic-controlplane/registry";
import { isEmptySelector, selectorMatches, selectorString, type LabelSelector } from "../selector.js";
import { defaultPodSpec, validatePodSpec, type PodTemplateSpec } from "./pod-spec.js";

/** What Deployments and ReplicaSets share: replicas, a selector and a pod template. */
export interface WorkloadSpec {
  replicas?: number;
  selector?: LabelSelector;
  template?: PodTemplateSpec;
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
  [field: string]: unknown;
}

export interface Workload extends KubeObject {
  spec?: WorkloadSpec;
  status?: Record<string, unknown> & {
    replicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    updatedReplicas?: number;
    fullyLabeledReplicas?: number;
    observedGeneration?: number;
    selector?: string;
  };
}

export function defaultWorkloadTemplate(spec: WorkloadSpec): void {
  spec.replicas ??= 1;
  spec.template ??= {};
  spec.template.spec ??= {};
  defaultPodSpec(spec.template.spec);
}

/** apps/v1 ValidateDeploymentSpec / ValidateReplicaSetSpec / ValidateDaemonSetSpec / ValidateStatefulSetSpec, for the fields they share. */
export function validateWorkloadSpec(
  spec: WorkloadSpec | undefined,
  kind: "deployment" | "replicaset" | "daemonset" | "statefulset",
): FieldError[] {
  const errors: FieldError[] = [];
  if (typeof spec?.replicas === "number" && spec.replicas < 0)
    errors.push(fieldInvalid("spec.replicas", spec.replicas, "must be greater than or equal to 0"));
  if (typeof spec?.minReadySeconds === "number" && spec.minReadySeconds < 0)
    errors.push(fieldInvalid("spec.minReadySeconds", spec.minReadySeconds, "must be greater than or equal to 0"));
  const selector = spec?.selector;
  if (selector === undefined) errors.push(fieldRequired("spec.selector"));
  else {
    errors.push(...validateLabels(selector.matchLabels, "spec.selector.matchLabels"));
    if (isEmptySelector(selector))
      errors.push(fieldInvalid("spec.selector", selectorString(selector), `empty selector is invalid for ${kind}`));
  }
  const template = spec?.template;
  if (template === undefined) {
    errors.push(fieldRequired("spec.template"));
    return errors;
  }
  const labels = template.metadata?.labels;
  errors.push(...validateLabels(labels, "spec.template.metadata.labels"));
  if (selector !== undefined && !isEmptySelector(selector) && !selectorMatches(selector, labels)) {
    errors.push(fieldInvalid("spec.template.metadata.labels", labels ?? {}, "`selector` does not match template `labels`"));
  }
  errors.push(...validatePodSpec(template.spec, "spec.template.spec"));
  const restartPolicy = template.spec?.restartPolicy;
  if (restartPolicy !== undefined && restartPolicy !== "Always" && ["OnFailure", "Never"].includes(restartPolicy)) {
    errors.push(fieldNotSupported(childPath("spec.template.spec", "restartPolicy"), restartPolicy, ["Always"]));
  }
  return errors;
}

/** apps/v1 keeps the selector as created. */
export function validateSelectorUnchanged(spec: WorkloadSpec | undefined, old: WorkloadSpec | undefined): FieldError[] {
  return validateImmutableField(spec?.selector ?? null, old?.selector ?? null, "spec.selector");
}

export function containersCell(object: Pick<Workload, "spec">): string {
  return (object.spec?.template?.spec?.containers ?? []).map((c) => c.name ?? "").join(",");
}

export function imagesCell(object: Pick<Workload, "spec">): string {
  return (object.spec?.template?.spec?.containers ?? []).map((c) => c.image ?? "").join(",");
}

export function selectorCell(object: Pick<Workload, "spec">): string {
  return object.spec?.selector ? selectorString(object.spec.selector) || "<none>" : "<none>";
}
