import { fieldInvalid, fieldNotSupported, fieldForbidden, type FieldError } from "@kubekit/generic-controlplane/registry";
import { ageColumn } from "./columns.js";
import { validateIntOrPercent } from "./int-or-percent.js";
import { SCALE_SUBRESOURCE } from "./scale-subresource.js";
import { defineResource } from "./define.js";
import { componentSchema } from "./openapi/component-schema.js";
import {
  containersCell,
  defaultWorkloadTemplate,
  imagesCell,
  selectorCell,
  validateSelectorUnchanged,
  validateWorkloadSpec,
  type Workload,
  type WorkloadSpec,
} from "./workloads.js";

export interface DeploymentSpec extends WorkloadSpec {
  strategy?: { type?: string; rollingUpdate?: { maxSurge?: number | string; maxUnavailable?: number | string } };
  paused?: boolean;
  progressDeadlineSeconds?: number;
}

export interface Deployment extends Workload {
  spec?: DeploymentSpec;
}

const STRATEGIES = ["Recreate", "RollingUpdate"];

function isZero(value: number | string | undefined): boolean {
  return value === 0 || value === "0%";
}

export function validateDeployment(deployment: Deployment): FieldError[] {
  const errors = validateWorkloadSpec(deployment.spec, "deployment");
  const strategy = deployment.spec?.strategy;
  const type = strategy?.type;
  if (type !== undefined && !STRATEGIES.includes(type)) errors.push(fieldNotSupported("spec.strategy.type", type, STRATEGIES));
  if (type === "Recreate" && strategy?.rollingUpdate !== undefined) {
    errors.push(fieldForbidden("spec.strategy.rollingUpdate", "may not be specified when strategy `type` is 'Recreate'"));
  }
  const rolling = strategy?.rollingUpdate;
  if (type === "RollingUpdate" && rolling !== undefined) {
    errors.push(...validateIntOrPercent(rolling.maxUnavailable, "spec.strategy.rollingUpdate.maxUnavailable"));
    errors.push(...validateIntOrPercent(rolling.maxSurge, "spec.strategy.rollingUpdate.maxSurge"));
    if (isZero(rolling.maxSurge) && isZero(rolling.maxUnavailable)) {
      errors.push(fieldInvalid("spec.strategy.rollingUpdate.maxUnavailable", rolling.maxUnavailable, "may not be 0 when `maxSurge` is 0"));
    }
  }
  const deadline = deployment.spec?.progressDeadlineSeconds;
  if (typeof deadline === "number" && deadline <= (deployment.spec?.minReadySeconds ?? 0)) {
    errors.push(fieldInvalid("spec.progressDeadlineSeconds", deadline, "must be greater than minReadySeconds"));
  }
  return errors;
}

function prepare(deployment: Deployment): void {
  deployment.spec ??= {};
  const spec = deployment.spec;
  defaultWorkloadTemplate(spec);
  spec.strategy ??= {};
  spec.strategy.type ??= "RollingUpdate";
  if (spec.strategy.type === "RollingUpdate") {
    spec.strategy.rollingUpdate ??= {};
    spec.strategy.rollingUpdate.maxUnavailable ??= "25%";
    spec.strategy.rollingUpdate.maxSurge ??= "25%";
  }
  spec.revisionHistoryLimit ??= 10;
  spec.progressDeadlineSeconds ??= 600;
}

const schema = componentSchema("io.k8s.api.apps.v1.Deployment");

/** apps/v1 Deployment (with /status and /scale). */
export const deploymentsResource = defineResource<Deployment>({
  group: "apps",
  version: "v1",
  kind: "Deployment",
  plural: "deployments",
  singular: "deployment",
  scope: "Namespaced",
  shortNames: ["deploy"],
  categories: ["all"],
  statusSubresource: true,
  tracksGeneration: true,
  subresources: [SCALE_SUBRESOURCE],
  schema,
  printerColumns: [
    {
      name: "Ready",
      type: "string",
      description: "Number of the pod with ready state",
      cell: (d) => `${d.status?.readyReplicas ?? 0}/${d.spec?.replicas ?? 0}`,
    },
    {
      name: "Up-to-date",
      type: "string",
      description: "Total number of non-terminated pods targeted by this deployment that have the desired template spec.",
      cell: (d) => d.status?.updatedReplicas ?? 0,
    },
    {
      name: "Available",
      type: "string",
      description: "Total number of available pods (ready for at least minReadySeconds) targeted by this deployment.",
      cell: (d) => d.status?.availableReplicas ?? 0,
    },
    ageColumn(),
    { name: "Containers", type: "string", priority: 1, description: "Names of each container in the template.", cell: containersCell },
    { name: "Images", type: "string", priority: 1, description: "Images referenced by each container in the template.", cell: imagesCell },
    {
      name: "Selector",
      type: "string",
      priority: 1,
      description:
        "Label selector for pods. Existing ReplicaSets whose pods are selected by this will be the ones affected by this deployment.",
      cell: selectorCell,
    },
  ],
  strategy: {
    prepareForCreate: prepare,
    prepareForUpdate: prepare,
    validate: validateDeployment,
    validateUpdate: (deployment, old) => [...validateDeployment(deployment), ...validateSelectorUnchanged(deployment.spec, old.spec)],
  },
});
