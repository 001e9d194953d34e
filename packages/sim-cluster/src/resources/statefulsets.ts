import { isDeepStrictEqual } from "node:util";
import type { KubeObject } from "@kubekit/generic-controlplane";
import { fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, isDNS1123Label, type FieldError } from "@kubekit/generic-controlplane/registry";
import { ageColumn } from "./columns.js";
import { defineResource } from "./define.js";
import { claimSpecSchema, defaultClaimSpec, validateClaimSpec } from "./persistent-volume-claims.js";
import type { PersistentVolumeClaim } from "./persistent-volumes.js";
import { podTemplateSchema } from "./pod-spec.js";
import { SCALE_SUBRESOURCE } from "./scale-subresource.js";
import { conditions, int32, intOrString, kindSchema, labelSelector, open, str } from "./schema.js";
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
  else if (!POLICIES.includes(policy)) errors.push(fieldInvalid("spec.podManagementPolicy", policy, `must be 'OrderedReady' or 'Parallel'`));
  const strategy = spec.updateStrategy ?? {};
  switch (strategy.type ?? "") {
    case "":
      errors.push(fieldRequired("spec.updateStrategy", ""));
      break;
    case "OnDelete":
      if (strategy.rollingUpdate !== undefined && strategy.rollingUpdate !== null) {
        errors.push(fieldInvalid("spec.updateStrategy.rollingUpdate", strategy.rollingUpdate, "only allowed for updateStrategy 'RollingUpdate'"));
      }
      break;
    case "RollingUpdate": {
      const partition = strategy.rollingUpdate?.partition;
      if (typeof partition === "number" && partition < 0) errors.push(fieldInvalid("spec.updateStrategy.rollingUpdate.partition", partition, "must be greater than or equal to 0"));
      break;
    }
    default:
      errors.push(fieldInvalid("spec.updateStrategy", strategy, "must be 'RollingUpdate' or 'OnDelete'"));
  }
  const retention = spec.persistentVolumeClaimRetentionPolicy;
  for (const field of ["whenDeleted", "whenScaled"] as const) {
    const value = retention?.[field];
    if (value !== undefined && !RETENTION.includes(value)) errors.push(fieldNotSupported(`spec.persistentVolumeClaimRetentionPolicy.${field}`, value, RETENTION));
  }
  const start = spec.ordinals?.start;
  if (typeof start === "number" && start < 0) errors.push(fieldInvalid("spec.ordinals.start", start, "must be greater than or equal to 0"));
  errors.push(...validateWorkloadSpec(spec, "statefulset"));
  const deadline = spec.template?.spec?.activeDeadlineSeconds;
  if (deadline !== undefined && deadline !== null) errors.push(fieldForbidden("spec.template.spec.activeDeadlineSeconds", "activeDeadlineSeconds in StatefulSet is not Supported"));
  (spec.volumeClaimTemplates ?? []).forEach((template, i) => {
    const name = template.metadata?.name ?? "";
    const path = `spec.volumeClaimTemplates[${i}]`;
    if (name === "") errors.push(fieldRequired(`${path}.metadata.name`, "name or generateName is required"));
    else for (const message of isDNS1123Label(name)) errors.push(fieldInvalid(`${path}.metadata.name`, name, message));
    errors.push(...validateClaimSpec(template.spec, `${path}.spec`));
  });
  if (spec.serviceName !== undefined && spec.serviceName !== "") for (const message of isDNS1123Label(spec.serviceName)) errors.push(fieldInvalid("spec.serviceName", spec.serviceName, message));
  return errors;
}

/** The spec fields a StatefulSet update may change (ValidateStatefulSetUpdate). */
const MUTABLE = ["replicas", "ordinals", "template", "updateStrategy", "persistentVolumeClaimRetentionPolicy", "minReadySeconds", "revisionHistoryLimit"];

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

const schema = kindSchema("apps", "v1", "StatefulSet", "StatefulSet represents a set of pods with consistent identities.", {
  spec: open("Spec defines the desired identities of pods in this set.", {
    replicas: int32("replicas is the desired number of replicas of the given Template."),
    selector: labelSelector("selector is a label query over pods that should match the replica count."),
    template: podTemplateSchema(),
    volumeClaimTemplates: {
      type: "array",
      "x-kubernetes-list-type": "atomic",
      description: "volumeClaimTemplates is a list of claims that pods are allowed to reference.",
      items: open("PersistentVolumeClaim is a user's request for and claim to a persistent volume", { spec: claimSpecSchema() }),
    },
    serviceName: str("serviceName is the name of the service that governs this StatefulSet."),
    podManagementPolicy: str("podManagementPolicy controls how pods are created during initial scale up, when replacing pods on nodes, or when scaling down."),
    updateStrategy: open("updateStrategy indicates the StatefulSetUpdateStrategy that will be employed to update Pods in the StatefulSet when a revision is made to Template.", {
      type: str("Type indicates the type of the StatefulSetUpdateStrategy. Default is RollingUpdate."),
      rollingUpdate: open("RollingUpdate is used to communicate parameters when Type is RollingUpdateStatefulSetStrategyType.", {
        partition: int32("Partition indicates the ordinal at which the StatefulSet should be partitioned for updates."),
        maxUnavailable: intOrString("The maximum number of pods that can be unavailable during the update."),
      }),
    }),
    revisionHistoryLimit: int32("revisionHistoryLimit is the maximum number of revisions that will be maintained in the StatefulSet's revision history."),
    minReadySeconds: int32("Minimum number of seconds for which a newly created pod should be ready without any of its container crashing for it to be considered available."),
    persistentVolumeClaimRetentionPolicy: open("persistentVolumeClaimRetentionPolicy describes the lifecycle of persistent volume claims created from volumeClaimTemplates.", {
      whenDeleted: str("WhenDeleted specifies what happens to PVCs created from StatefulSet VolumeClaimTemplates when the StatefulSet is deleted."),
      whenScaled: str("WhenScaled specifies what happens to PVCs created from StatefulSet VolumeClaimTemplates when the StatefulSet is scaled down."),
    }),
    ordinals: open("ordinals controls the numbering of replica indices in a StatefulSet.", { start: int32("start is the number representing the first replica's index.") }),
  }),
  status: open("Status is the current status of Pods in this StatefulSet.", { conditions: conditions("Represents the latest available observations of a statefulset's current state.") }),
});

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
    { name: "Ready", type: "string", description: "Number of the pod with ready state", cell: (sts) => `${sts.status?.readyReplicas ?? 0}/${sts.spec?.replicas ?? 0}` },
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
