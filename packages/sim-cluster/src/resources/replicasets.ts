import type { FieldError } from "@kubekit/generic-controlplane/registry";
import { ageColumn } from "./columns.js";
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
} from "./workloads.js";

export type ReplicaSet = Workload;

export function validateReplicaSet(replicaSet: ReplicaSet): FieldError[] {
  return validateWorkloadSpec(replicaSet.spec, "replicaset");
}

function prepare(replicaSet: ReplicaSet): void {
  replicaSet.spec ??= {};
  defaultWorkloadTemplate(replicaSet.spec);
}

const schema = componentSchema("io.k8s.api.apps.v1.ReplicaSet");

/** apps/v1 ReplicaSet (with /status and /scale). */
export const replicaSetsResource = defineResource<ReplicaSet>({
  group: "apps",
  version: "v1",
  kind: "ReplicaSet",
  plural: "replicasets",
  singular: "replicaset",
  scope: "Namespaced",
  shortNames: ["rs"],
  categories: ["all"],
  statusSubresource: true,
  tracksGeneration: true,
  subresources: [SCALE_SUBRESOURCE],
  schema,
  printerColumns: [
    { name: "Desired", type: "integer", description: "Replicas is the number of desired replicas.", cell: (rs) => rs.spec?.replicas ?? 0 },
    {
      name: "Current",
      type: "integer",
      description: "Replicas is the most recently observed number of replicas.",
      cell: (rs) => rs.status?.replicas ?? 0,
    },
    {
      name: "Ready",
      type: "integer",
      description: "The number of ready replicas for this replica set.",
      cell: (rs) => rs.status?.readyReplicas ?? 0,
    },
    ageColumn(),
    { name: "Containers", type: "string", priority: 1, description: "Names of each container in the template.", cell: containersCell },
    { name: "Images", type: "string", priority: 1, description: "Images referenced by each container in the template.", cell: imagesCell },
    {
      name: "Selector",
      type: "string",
      priority: 1,
      description: "Selector is a label query over pods that should match the replica count.",
      cell: selectorCell,
    },
  ],
  strategy: {
    prepareForCreate: prepare,
    prepareForUpdate: prepare,
    validate: validateReplicaSet,
    validateUpdate: (rs, old) => [...validateReplicaSet(rs), ...validateSelectorUnchanged(rs.spec, old.spec)],
  },
});
