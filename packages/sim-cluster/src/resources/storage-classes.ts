import type { KubeObject } from "@kubekit/generic-controlplane";
import {
  fieldForbidden,
  fieldNotSupported,
  fieldRequired,
  isQualifiedName,
  validateImmutableField,
  fieldInvalid,
  type FieldError,
} from "@kubekit/generic-controlplane/registry";
import { isDeepStrictEqual } from "node:util";
import { ageColumn } from "./columns.js";
import { defineResource } from "./define.js";
import { componentSchema } from "./openapi/component-schema.js";

/** The annotation that makes a StorageClass the one claims without a class get. */
export const DEFAULT_CLASS_ANNOTATION = "storageclass.kubernetes.io/is-default-class";

export interface StorageClass extends KubeObject {
  provisioner?: string;
  parameters?: Record<string, string>;
  reclaimPolicy?: string;
  volumeBindingMode?: string;
  allowVolumeExpansion?: boolean;
  mountOptions?: string[];
  allowedTopologies?: unknown[];
}

/** `IsDefaultAnnotation`: only the value "true" counts. */
export function isDefaultClass(storageClass: StorageClass): boolean {
  return storageClass.metadata?.annotations?.[DEFAULT_CLASS_ANNOTATION] === "true";
}

const RECLAIM_POLICIES = ["Delete", "Retain"];
const BINDING_MODES = ["Immediate", "WaitForFirstConsumer"];

/** SetDefaults_StorageClass: Delete, Immediate. */
function prepare(storageClass: StorageClass): void {
  storageClass.reclaimPolicy ??= "Delete";
  storageClass.volumeBindingMode ??= "Immediate";
}

/** ValidateStorageClass. */
export function validateStorageClass(storageClass: StorageClass): FieldError[] {
  const errors: FieldError[] = [];
  const provisioner = storageClass.provisioner ?? "";
  if (provisioner === "") errors.push(fieldRequired("provisioner", ""));
  else {
    for (const message of isQualifiedName(provisioner.toLowerCase())) errors.push(fieldInvalid("provisioner", provisioner, message));
    if (provisioner.length > 63) errors.push(fieldInvalid("provisioner", provisioner, "must be no more than 63 characters"));
  }
  if (!RECLAIM_POLICIES.includes(storageClass.reclaimPolicy ?? ""))
    errors.push(fieldNotSupported("reclaimPolicy", storageClass.reclaimPolicy ?? "", RECLAIM_POLICIES));
  if (!BINDING_MODES.includes(storageClass.volumeBindingMode ?? ""))
    errors.push(fieldNotSupported("volumeBindingMode", storageClass.volumeBindingMode ?? "", BINDING_MODES));
  return errors;
}

/** ValidateStorageClassUpdate: provisioner, parameters and reclaimPolicy stay as created. */
export function validateStorageClassUpdate(storageClass: StorageClass, old: StorageClass): FieldError[] {
  const errors = validateStorageClass(storageClass);
  if (!isDeepStrictEqual(storageClass.parameters ?? {}, old.parameters ?? {}))
    errors.push(fieldForbidden("parameters", "updates to parameters are forbidden."));
  if (storageClass.provisioner !== old.provisioner) errors.push(fieldForbidden("provisioner", "updates to provisioner are forbidden."));
  if (storageClass.reclaimPolicy !== old.reclaimPolicy)
    errors.push(fieldForbidden("reclaimPolicy", "updates to reclaimPolicy are forbidden."));
  errors.push(...validateImmutableField(storageClass.volumeBindingMode ?? null, old.volumeBindingMode ?? null, "volumeBindingMode"));
  return errors;
}

const schema = componentSchema("io.k8s.api.storage.v1.StorageClass");

/** storage.k8s.io/v1 StorageClass. */
export const storageClassesResource = defineResource<StorageClass>({
  group: "storage.k8s.io",
  version: "v1",
  kind: "StorageClass",
  plural: "storageclasses",
  singular: "storageclass",
  scope: "Cluster",
  shortNames: ["sc"],
  schema,
  printerColumns: [
    // printStorageClass names the default class "<name> (default)".
    {
      name: "Name",
      type: "string",
      format: "name",
      description: "Name must be unique within a namespace.",
      cell: (sc) => `${sc.metadata?.name ?? ""}${isDefaultClass(sc) ? " (default)" : ""}`,
    },
    {
      name: "Provisioner",
      type: "string",
      description: "Provisioner indicates the type of the provisioner.",
      cell: (sc) => sc.provisioner ?? "",
    },
    {
      name: "ReclaimPolicy",
      type: "string",
      description: "ReclaimPolicy indicates the reclaim policy of the storage class.",
      cell: (sc) => sc.reclaimPolicy ?? "Delete",
    },
    {
      name: "VolumeBindingMode",
      type: "string",
      description: "VolumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.",
      cell: (sc) => sc.volumeBindingMode ?? "Immediate",
    },
    {
      name: "AllowVolumeExpansion",
      type: "string",
      description: "AllowVolumeExpansion shows whether the storage class allow volume expand.",
      cell: (sc) => String(sc.allowVolumeExpansion ?? false),
    },
    ageColumn(),
  ],
  strategy: {
    prepareForCreate: prepare,
    prepareForUpdate: prepare,
    validate: validateStorageClass,
    validateUpdate: validateStorageClassUpdate,
  },
});
