import type { KubeObject } from "@kubekit/generic-controlplane";
import { fieldInvalid, fieldNotSupported, fieldRequired, type FieldError } from "@kubekit/generic-controlplane/registry";
import { ageColumn } from "./columns.js";
import { validateIntOrPercent } from "./int-or-percent.js";
import { defineResource } from "./define.js";
import { defaultPodSpec } from "./pod-spec.js";
import { componentSchema } from "./openapi/component-schema.js";
import {
  containersCell,
  imagesCell,
  selectorCell,
  validateSelectorUnchanged,
  validateWorkloadSpec,
  type WorkloadSpec,
} from "./workloads.js";

export interface DaemonSetSpec extends WorkloadSpec {
  updateStrategy?: { type?: string; rollingUpdate?: { maxUnavailable?: number | string; maxSurge?: number | string } };
}

export interface DaemonSetStatus {
  currentNumberScheduled?: number;
  numberMisscheduled?: number;
  desiredNumberScheduled?: number;
  numberReady?: number;
  observedGeneration?: number;
  updatedNumberScheduled?: number;
  numberAvailable?: number;
  numberUnavailable?: number;
  collisionCount?: number;
  [field: string]: unknown;
}

export interface DaemonSet extends KubeObject {
  spec?: DaemonSetSpec;
  status?: DaemonSetStatus;
}

const UPDATE_STRATEGIES = ["OnDelete", "RollingUpdate"];

function percentOrInt(value: number | string | undefined): number {
  if (value === undefined) return 0;
  if (typeof value === "number") return value;
  return /^[0-9]+%$/.test(value) ? Number(value.slice(0, -1)) : 0;
}

/** apps/v1 ValidateDaemonSetSpec for the fields users rely on. */
export function validateDaemonSet(ds: DaemonSet): FieldError[] {
  const errors = validateWorkloadSpec(ds.spec, "daemonset");
  const limit = ds.spec?.revisionHistoryLimit;
  if (typeof limit === "number" && limit < 0)
    errors.push(fieldInvalid("spec.revisionHistoryLimit", limit, "must be greater than or equal to 0"));
  const strategy = ds.spec?.updateStrategy;
  const type = strategy?.type;
  if (!UPDATE_STRATEGIES.includes(type ?? "")) errors.push(fieldNotSupported("spec.updateStrategy.type", type ?? "", UPDATE_STRATEGIES));
  if (type === "RollingUpdate") {
    const rolling = strategy?.rollingUpdate;
    if (rolling === undefined) errors.push(fieldRequired("spec.updateStrategy.rollingUpdate", ""));
    else {
      errors.push(...validateIntOrPercent(rolling.maxUnavailable, "spec.updateStrategy.rollingUpdate.maxUnavailable"));
      errors.push(...validateIntOrPercent(rolling.maxSurge, "spec.updateStrategy.rollingUpdate.maxSurge"));
      const hasUnavailable = percentOrInt(rolling.maxUnavailable) !== 0;
      const hasSurge = percentOrInt(rolling.maxSurge) !== 0;
      if (hasUnavailable && hasSurge)
        errors.push(
          fieldInvalid("spec.updateStrategy.rollingUpdate.maxSurge", rolling.maxSurge, "may not be set when maxUnavailable is non-zero"),
        );
      else if (!hasUnavailable && !hasSurge)
        errors.push(fieldRequired("spec.updateStrategy.rollingUpdate.maxUnavailable", "cannot be 0 when maxSurge is 0"));
    }
  }
  return errors;
}

/** SetDefaults_DaemonSet: RollingUpdate with maxUnavailable 1 and maxSurge 0, ten revisions kept. */
function prepare(ds: DaemonSet): void {
  ds.spec ??= {};
  const spec = ds.spec;
  spec.template ??= {};
  spec.template.spec ??= {};
  defaultPodSpec(spec.template.spec);
  spec.updateStrategy ??= {};
  spec.updateStrategy.type ??= "RollingUpdate";
  if (spec.updateStrategy.type === "RollingUpdate") {
    spec.updateStrategy.rollingUpdate ??= {};
    spec.updateStrategy.rollingUpdate.maxUnavailable ??= 1;
    spec.updateStrategy.rollingUpdate.maxSurge ??= 0;
  }
  spec.revisionHistoryLimit ??= 10;
}

function nodeSelectorCell(ds: DaemonSet): string {
  const selector = ds.spec?.template?.spec?.nodeSelector ?? {};
  const text = Object.keys(selector)
    .sort()
    .map((k) => `${k}=${selector[k]}`)
    .join(",");
  return text === "" ? "<none>" : text;
}

const schema = componentSchema("io.k8s.api.apps.v1.DaemonSet");

/** apps/v1 DaemonSet (with /status). */
export const daemonSetsResource = defineResource<DaemonSet>({
  group: "apps",
  version: "v1",
  kind: "DaemonSet",
  plural: "daemonsets",
  singular: "daemonset",
  scope: "Namespaced",
  shortNames: ["ds"],
  categories: ["all"],
  statusSubresource: true,
  tracksGeneration: true,
  schema,
  printerColumns: [
    {
      name: "Desired",
      type: "integer",
      description: "The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod).",
      cell: (ds) => ds.status?.desiredNumberScheduled ?? 0,
    },
    {
      name: "Current",
      type: "integer",
      description: "The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod.",
      cell: (ds) => ds.status?.currentNumberScheduled ?? 0,
    },
    {
      name: "Ready",
      type: "integer",
      description: "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and ready.",
      cell: (ds) => ds.status?.numberReady ?? 0,
    },
    {
      name: "Up-to-date",
      type: "integer",
      description: "The total number of nodes that are running updated daemon pod.",
      cell: (ds) => ds.status?.updatedNumberScheduled ?? 0,
    },
    {
      name: "Available",
      type: "integer",
      description:
        "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds).",
      cell: (ds) => ds.status?.numberAvailable ?? 0,
    },
    {
      name: "Node Selector",
      type: "string",
      description: "NodeSelector is a selector which must be true for the pod to fit on a node.",
      cell: nodeSelectorCell,
    },
    ageColumn(),
    { name: "Containers", type: "string", priority: 1, description: "Names of each container in the template.", cell: containersCell },
    { name: "Images", type: "string", priority: 1, description: "Images referenced by each container in the template.", cell: imagesCell },
    {
      name: "Selector",
      type: "string",
      priority: 1,
      description: "A label query over pods that are managed by the daemon set.",
      cell: selectorCell,
    },
  ],
  strategy: {
    prepareForCreate: prepare,
    prepareForUpdate: prepare,
    validate: validateDaemonSet,
    validateUpdate: (ds, old) => [...validateDaemonSet(ds), ...validateSelectorUnchanged(ds.spec, old.spec)],
  },
});
