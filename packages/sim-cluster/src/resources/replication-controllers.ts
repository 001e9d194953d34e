import type { KubeObject } from "@kubekit/generic-controlplane";
import {
  childPath,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  validateLabels,
  type FieldError,
} from "@kubekit/generic-controlplane/registry";
import { selectorMatches } from "../selector.js";
import { ageColumn } from "./columns.js";
import { defineResource } from "./define.js";
import { defaultPodSpec, validatePodSpec, type PodTemplateSpec } from "./pod-spec.js";
import { SCALE_SUBRESOURCE } from "./scale-subresource.js";
import { componentSchema } from "./openapi/component-schema.js";

export interface ReplicationController extends KubeObject {
  spec?: {
    replicas?: number;
    minReadySeconds?: number;
    selector?: Record<string, string>;
    template?: PodTemplateSpec;
    [field: string]: unknown;
  };
  status?: Record<string, unknown> & {
    replicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    fullyLabeledReplicas?: number;
    observedGeneration?: number;
  };
}

/** SetDefaults_ReplicationController: the selector and labels come from the template when unset; one replica. */
function prepare(rc: ReplicationController): void {
  const spec = (rc.spec ??= {});
  const templateLabels = spec.template?.metadata?.labels;
  if (templateLabels !== undefined) {
    if (spec.selector === undefined || Object.keys(spec.selector).length === 0) spec.selector = { ...templateLabels };
    const meta = (rc.metadata ??= {});
    if (meta.labels === undefined || Object.keys(meta.labels).length === 0) meta.labels = { ...templateLabels };
  }
  spec.replicas ??= 1;
  if (spec.template !== undefined) defaultPodSpec((spec.template.spec ??= {}));
}

/** ValidateReplicationControllerSpec. */
export function validateReplicationController(rc: ReplicationController): FieldError[] {
  const errors: FieldError[] = [];
  const spec = rc.spec ?? {};
  if (typeof spec.replicas === "number" && spec.replicas < 0)
    errors.push(fieldInvalid("spec.replicas", spec.replicas, "must be greater than or equal to 0"));
  if (typeof spec.minReadySeconds === "number" && spec.minReadySeconds < 0)
    errors.push(fieldInvalid("spec.minReadySeconds", spec.minReadySeconds, "must be greater than or equal to 0"));
  const selector = spec.selector ?? {};
  if (Object.keys(selector).length === 0) errors.push(fieldRequired("spec.selector"));
  else errors.push(...validateLabels(selector, "spec.selector"));
  const template = spec.template;
  if (template === undefined) {
    errors.push(fieldRequired("spec.template"));
    return errors;
  }
  const labels = template.metadata?.labels;
  errors.push(...validateLabels(labels, "spec.template.metadata.labels"));
  if (Object.keys(selector).length > 0 && !selectorMatches({ matchLabels: selector }, labels)) {
    errors.push(fieldInvalid("spec.template.metadata.labels", labels ?? {}, "`selector` does not match template `labels`"));
  }
  errors.push(...validatePodSpec(template.spec, "spec.template.spec"));
  const restartPolicy = template.spec?.restartPolicy;
  if (restartPolicy !== undefined && restartPolicy !== "Always")
    errors.push(fieldNotSupported(childPath("spec.template.spec", "restartPolicy"), restartPolicy, ["Always"]));
  return errors;
}

const schema = componentSchema("io.k8s.api.core.v1.ReplicationController");

const selectorText = (rc: ReplicationController) => {
  const entries = Object.entries(rc.spec?.selector ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return entries.length === 0 ? "<none>" : entries.map(([k, v]) => `${k}=${v}`).join(",");
};

/** v1 ReplicationController (with /status and /scale). */
export const replicationControllersResource = defineResource<ReplicationController>({
  group: "",
  version: "v1",
  kind: "ReplicationController",
  plural: "replicationcontrollers",
  singular: "replicationcontroller",
  scope: "Namespaced",
  shortNames: ["rc"],
  categories: ["all"],
  statusSubresource: true,
  tracksGeneration: true,
  subresources: [SCALE_SUBRESOURCE],
  schema,
  printerColumns: [
    { name: "Desired", type: "integer", description: "Replicas is the number of desired replicas.", cell: (rc) => rc.spec?.replicas ?? 0 },
    {
      name: "Current",
      type: "integer",
      description: "Replicas is the most recently observed number of replicas.",
      cell: (rc) => rc.status?.replicas ?? 0,
    },
    {
      name: "Ready",
      type: "integer",
      description: "The number of ready replicas for this replication controller.",
      cell: (rc) => rc.status?.readyReplicas ?? 0,
    },
    ageColumn(),
    {
      name: "Containers",
      type: "string",
      priority: 1,
      description: "Names of each container in the template.",
      cell: (rc) => (rc.spec?.template?.spec?.containers ?? []).map((c) => c.name ?? "").join(","),
    },
    {
      name: "Images",
      type: "string",
      priority: 1,
      description: "Images referenced by each container in the template.",
      cell: (rc) => (rc.spec?.template?.spec?.containers ?? []).map((c) => c.image ?? "").join(","),
    },
    {
      name: "Selector",
      type: "string",
      priority: 1,
      description: "Selector is a label query over pods that should match the Replicas count.",
      cell: selectorText,
    },
  ],
  strategy: {
    prepareForCreate: prepare,
    prepareForUpdate: prepare,
    validate: validateReplicationController,
    validateUpdate: validateReplicationController,
  },
});
