import { isDeepStrictEqual } from "node:util";
import type { KubeObject } from "@kubekit/generic-controlplane";
import {
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  isDNS1123Label,
  type FieldError,
} from "@kubekit/generic-controlplane/registry";
import { ageColumn } from "./columns.js";
import { defineResource } from "./define.js";
import { defaultClaimSpec, validateClaimSpec } from "./persistent-volume-claims.js";
import type { PersistentVolumeClaim } from "./persistent-volumes.js";
import { SCALE_SUBRESOURCE } from "./scale-subresource.js";
import { componentSchema } from "./openapi/component-schema.js";
import { containersCell, defaultWorkloadTemplate, imagesCell, validateWorkloadSpec, type WorkloadSpec } from "./workloads.js";

export interface StatefulSetSpec extends WorkloadSpec {
  serviceName?: string;
  podManagementPolicy?: string;
  updateStrategy?: { type?: string; rollingUpdate?: { partition?: number; maxUnavailable?: number | string } };
  volumeClaimTemplates?: PersistentVolumeClaim[];
  persistentVolumeClaimRetentionPolicy?: { whenDeleted?: string; whenScaled?: string };
  ordinals?: { start?: number };
}

export interface StatefulSetStatus {
  observedGeneration?: number;
  replicas?: number;
  readyReplicas?: number;
  currentReplicas?: number;
  updatedReplicas?: number;
  availableReplicas?: number;
  currentRevision?: string;
  updateRevision?: string;
  collisionCount?: number;
  conditions?: unknown[];
  [field: string]: unknown;
}

export interface StatefulSet extends KubeObject {
  spec?: StatefulSetSpec;
  status?: StatefulSetStatus;
}

const POLICIES = ["OrderedReady", "Parallel"];
const RETENTION = ["Retain", "Delete"];

/**
 * SetDefaults_StatefulSet (1.32): OrderedReady, RollingUpdate with partition 0, claims retained,
 * ten revisions kept. maxUnavailable is not defaulted: MaxUnavailableStatefulSet is off in 1.32.
 */
function prepare(sts: StatefulSet): void {
  const spec = (sts.spec ??= {});
  defaultWorkloadTemplate(spec);
  spec.podManagementPolicy ??= "OrderedReady";
  spec.updateStrategy ??= {};
  spec.updateStrategy.type ??= "RollingUpdate";
  if (spec.updateStrategy.type === "RollingUpdate") {
    spec.updateStrategy.rollingUpdate ??= {};
    spec.updateStrategy.rollingUpdate.partition ??= 0;
  }
  spec.persistentVolumeClaimRetentionPolicy ??= {};
  spec.persistentVolumeClaimRetentionPolicy.whenDeleted ??= "Retain";
  spec.persistentVolumeClaimRetentionPolicy.whenScaled ??= "Retain";
  spec.revisionHistoryLimit ??= 10;
  for (const template of spec.volumeClaimTemplates ?? []) defaultClaimSpec(template);
}

/**
 * `dropStatefulSetDisabledFields`: with MaxUnavailableStatefulSet off (its 1.32 default),
 * `rollingUpdate.maxUnavailable` is dropped unless the stored object already has it.
 */
function dropMaxUnavailable(sts: StatefulSet, old: StatefulSet | undefined): void {
  if (old?.spec?.updateStrategy?.rollingUpdate?.maxUnavailable !== undefined) return;
  const rolling = sts.spec?.updateStrategy?.rollingUpdate;
  if (rolling !== undefined && rolling !== null) delete rolling.maxUnavailable;
}

/** ValidateStatefulSetSpec. */
export function validateStatefulSet(sts: StatefulSet): FieldError[] {
  const spec = sts.spec ?? {};
  const errors: FieldError[] = [];
  const policy = spec.podManagementPolicy ?? "";
  if (policy === "") errors.push(fieldRequired("spec.podManagementPolicy", ""));
  else if (!POLICIES.includes(policy))
    errors.push(fieldInvalid("spec.podManagementPolicy", policy, `must be 'OrderedReady' or 'Parallel'`));
  const strategy = spec.updateStrategy ?? {};
  switch (strategy.type ?? "") {
    case "":
      errors.push(fieldRequired("spec.updateStrategy", ""));
      break;
    case "OnDelete":
      if (strategy.rollingUpdate !== undefined && strategy.rollingUpdate !== null) {
        errors.push(
          fieldInvalid("spec.updateStrategy.rollingUpdate", strategy.rollingUpdate, "only allowed for updateStrategy 'RollingUpdate'"),
        );
      }
      break;
    case "RollingUpdate": {
      const partition = strategy.rollingUpdate?.partition;
      if (typeof partition === "number" && partition < 0)
        errors.push(fieldInvalid("spec.updateStrategy.rollingUpdate.partition", partition, "must be greater than or equal to 0"));
      break;
    }
    default:
      errors.push(fieldInvalid("spec.updateStrategy", strategy, "must be 'RollingUpdate' or 'OnDelete'"));
  }
  const retention = spec.persistentVolumeClaimRetentionPolicy;
  for (const field of ["whenDeleted", "whenScaled"] as const) {
    const value = retention?.[field];
    if (value !== undefined && !RETENTION.includes(value))
      errors.push(fieldNotSupported(`spec.persistentVolumeClaimRetentionPolicy.${field}`, value, RETENTION));
  }
  const start = spec.ordinals?.start;
  if (typeof start === "number" && start < 0) errors.push(fieldInvalid("spec.ordinals.start", start, "must be greater than or equal to 0"));
  errors.push(...validateWorkloadSpec(spec, "statefulset"));
  const deadline = spec.template?.spec?.activeDeadlineSeconds;
  if (deadline !== undefined && deadline !== null)
    errors.push(fieldForbidden("spec.template.spec.activeDeadlineSeconds", "activeDeadlineSeconds in StatefulSet is not Supported"));
  (spec.volumeClaimTemplates ?? []).forEach((template, i) => {
    const name = template.metadata?.name ?? "";
    const path = `spec.volumeClaimTemplates[${i}]`;
    if (name === "") errors.push(fieldRequired(`${path}.metadata.name`, "name or generateName is required"));
    else for (const message of isDNS1123Label(name)) errors.push(fieldInvalid(`${path}.metadata.name`, name, message));
    errors.push(...validateClaimSpec(template.spec, `${path}.spec`));
  });
  if (spec.serviceName !== undefined && spec.serviceName !== "")
    for (const message of isDNS1123Label(spec.serviceName)) errors.push(fieldInvalid("spec.serviceName", spec.serviceName, message));
  return errors;
}

/** The spec fields a StatefulSet update may change (ValidateStatefulSetUpdate). */
const MUTABLE = [
  "replicas",
  "ordinals",
  "template",
  "updateStrategy",
  "persistentVolumeClaimRetentionPolicy",
  "minReadySeconds",
  "revisionHistoryLimit",
];

export function validateStatefulSetUpdate(sts: StatefulSet, old: StatefulSet): FieldError[] {
  const errors = validateStatefulSet(sts);
  const fixed = (spec: StatefulSetSpec | undefined) => Object.fromEntries(Object.entries(spec ?? {}).filter(([k]) => !MUTABLE.includes(k)));
  if (!isDeepStrictEqual(fixed(sts.spec), fixed(old.spec))) {
    errors.push(
      fieldForbidden(
        "spec",
        "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
      ),
    );
  }
  return errors;
}

const schema = componentSchema("io.k8s.api.apps.v1.StatefulSet");

/** apps/v1 StatefulSet (with /status and /scale). */
export const statefulSetsResource = defineResource<StatefulSet>({
  group: "apps",
  version: "v1",
  kind: "StatefulSet",
  plural: "statefulsets",
  singular: "statefulset",
  scope: "Namespaced",
  shortNames: ["sts"],
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
      cell: (sts) => `${sts.status?.readyReplicas ?? 0}/${sts.spec?.replicas ?? 0}`,
    },
    ageColumn(),
    { name: "Containers", type: "string", priority: 1, description: "Names of each container in the template.", cell: containersCell },
    { name: "Images", type: "string", priority: 1, description: "Images referenced by each container in the template.", cell: imagesCell },
  ],
  strategy: {
    prepareForCreate: (sts) => {
      dropMaxUnavailable(sts, undefined);
      prepare(sts);
    },
    prepareForUpdate: (sts, old) => {
      dropMaxUnavailable(sts, old);
      prepare(sts);
    },
    validate: validateStatefulSet,
    validateUpdate: validateStatefulSetUpdate,
  },
});
