import type { KubeObject } from "@kubekit/generic-controlplane";
import {
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  keyPath,
  parseMilli,
  quantityText,
  type FieldError,
} from "@kubekit/generic-controlplane/registry";
import type { LabelSelector } from "../selector.js";
import { ageColumn } from "./columns.js";
import { defineResource } from "./define.js";
import { componentSchema } from "./openapi/component-schema.js";

export const ACCESS_MODES = ["ReadWriteOnce", "ReadOnlyMany", "ReadWriteMany", "ReadWriteOncePod"];
const ACCESS_MODE_SHORT: Record<string, string> = {
  ReadWriteOnce: "RWO",
  ReadOnlyMany: "ROX",
  ReadWriteMany: "RWX",
  ReadWriteOncePod: "RWOP",
};
const RECLAIM_POLICIES = ["Recycle", "Delete", "Retain"];
const VOLUME_MODES = ["Block", "Filesystem"];

/** What a PersistentVolume's spec may name as its volume (one of them, as upstream requires). */
const VOLUME_SOURCES = [
  "gcePersistentDisk",
  "awsElasticBlockStore",
  "hostPath",
  "glusterfs",
  "nfs",
  "rbd",
  "iscsi",
  "cinder",
  "cephfs",
  "fc",
  "flocker",
  "flexVolume",
  "azureFile",
  "vsphereVolume",
  "quobyte",
  "azureDisk",
  "photonPersistentDisk",
  "portworxVolume",
  "scaleIO",
  "local",
  "storageos",
  "csi",
];

export interface PersistentVolume extends KubeObject {
  spec?: {
    capacity?: Record<string, string>;
    accessModes?: string[];
    claimRef?: { kind?: string; apiVersion?: string; namespace?: string; name?: string; uid?: string; resourceVersion?: string };
    persistentVolumeReclaimPolicy?: string;
    storageClassName?: string;
    volumeMode?: string;
    nodeAffinity?: unknown;
    [field: string]: unknown;
  };
  status?: { phase?: string; message?: string; reason?: string; lastPhaseTransitionTime?: string };
}

export interface PersistentVolumeClaim extends KubeObject {
  spec?: {
    accessModes?: string[];
    selector?: LabelSelector;
    resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
    volumeName?: string;
    storageClassName?: string | null;
    volumeMode?: string;
    [field: string]: unknown;
  };
  status?: { phase?: string; accessModes?: string[]; capacity?: Record<string, string>; conditions?: unknown[]; [field: string]: unknown };
}

/** `GetAccessModesAsString`: short names in upstream's fixed order. */
export function accessModesText(modes: readonly string[] | undefined): string {
  return ACCESS_MODES.filter((m) => modes?.includes(m))
    .map((m) => ACCESS_MODE_SHORT[m])
    .join(",");
}

/** The storage quantity of a capacity or requests map, in milli-units. */
export function storageMilli(list: Record<string, unknown> | undefined): bigint | undefined {
  const text = quantityText(list?.storage);
  return text === undefined ? undefined : parseMilli(text);
}

/** `validatePersistentVolumeClaimAccessModes` and friends: at least one mode, each known. */
export function validateAccessModes(modes: readonly string[] | undefined, path: string): FieldError[] {
  if (modes === undefined || modes.length === 0) return [fieldRequired(path, "at least 1 access mode is required")];
  const errors = modes.filter((m) => !ACCESS_MODES.includes(m)).map((m) => fieldNotSupported(path, m, ACCESS_MODES));
  if (modes.includes("ReadWriteOncePod") && modes.length > 1)
    errors.push(fieldForbidden(path, "may not use ReadWriteOncePod with other access modes"));
  return errors;
}

/** SetDefaults_PersistentVolume: Retain, Filesystem, phase Pending (the binder makes it Available). */
function prepareForCreate(pv: PersistentVolume): void {
  const spec = (pv.spec ??= {});
  spec.persistentVolumeReclaimPolicy ??= "Retain";
  spec.volumeMode ??= "Filesystem";
  pv.status = { ...(pv.status ?? {}), phase: pv.status?.phase ?? "Pending" };
}

/** ValidatePersistentVolumeSpec for the fields the binder reads, and one volume source. */
export function validatePersistentVolume(pv: PersistentVolume): FieldError[] {
  const errors: FieldError[] = [];
  const spec = pv.spec ?? {};
  errors.push(...validateAccessModes(spec.accessModes, "spec.accessModes"));
  const capacity = spec.capacity;
  if (capacity === undefined || Object.keys(capacity).length === 0) errors.push(fieldRequired("spec.capacity", ""));
  else if (!Object.hasOwn(capacity, "storage"))
    errors.push(fieldNotSupported("spec.capacity", Object.keys(capacity)[0] ?? "", ["storage"]));
  else if (storageMilli(capacity) === undefined)
    errors.push(fieldInvalid(keyPath("spec.capacity", "storage"), capacity.storage, "must be a valid quantity"));
  if (spec.persistentVolumeReclaimPolicy !== undefined && !RECLAIM_POLICIES.includes(spec.persistentVolumeReclaimPolicy)) {
    errors.push(fieldNotSupported("spec.persistentVolumeReclaimPolicy", spec.persistentVolumeReclaimPolicy, RECLAIM_POLICIES));
  }
  if (spec.volumeMode !== undefined && !VOLUME_MODES.includes(spec.volumeMode))
    errors.push(fieldNotSupported("spec.volumeMode", spec.volumeMode, VOLUME_MODES));
  const sources = VOLUME_SOURCES.filter((s) => Object.hasOwn(spec, s) && spec[s] !== null && spec[s] !== undefined);
  if (sources.length === 0) errors.push(fieldRequired("spec", "must specify a volume type"));
  else if (sources.length > 1) errors.push(fieldForbidden(`spec.${sources[1]}`, "may not specify more than 1 volume type"));
  return errors;
}

const claimText = (pv: PersistentVolume) => (pv.spec?.claimRef ? `${pv.spec.claimRef.namespace ?? ""}/${pv.spec.claimRef.name ?? ""}` : "");

const schema = componentSchema("io.k8s.api.core.v1.PersistentVolume");

/** core/v1 PersistentVolume (with /status). */
export const persistentVolumesResource = defineResource<PersistentVolume>({
  group: "",
  version: "v1",
  kind: "PersistentVolume",
  plural: "persistentvolumes",
  singular: "persistentvolume",
  scope: "Cluster",
  shortNames: ["pv"],
  statusSubresource: true,
  schema,
  printerColumns: [
    {
      name: "Capacity",
      type: "string",
      description: "capacity is the description of the persistent volume's resources and capacity.",
      cell: (pv) => String(pv.spec?.capacity?.storage ?? ""),
    },
    {
      name: "Access Modes",
      type: "string",
      description: "accessModes contains all ways the volume can be mounted.",
      cell: (pv) => accessModesText(pv.spec?.accessModes),
    },
    {
      name: "Reclaim Policy",
      type: "string",
      description: "persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim.",
      cell: (pv) => pv.spec?.persistentVolumeReclaimPolicy ?? "",
    },
    {
      name: "Status",
      type: "string",
      description: "phase indicates if a volume is available, bound to a claim, or released by a claim.",
      cell: (pv) => (pv.metadata?.deletionTimestamp ? "Terminating" : (pv.status?.phase ?? "")),
    },
    {
      name: "Claim",
      type: "string",
      description: "claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim.",
      cell: claimText,
    },
    { name: "StorageClass", type: "string", description: "StorageClass of the pv", cell: (pv) => pv.spec?.storageClassName ?? "" },
    {
      name: "VolumeAttributesClass",
      type: "string",
      description: "VolumeAttributesClass of the pv",
      cell: (pv) => (typeof pv.spec?.volumeAttributesClassName === "string" ? pv.spec.volumeAttributesClassName : "<unset>"),
    },
    {
      name: "Reason",
      type: "string",
      description:
        "reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.",
      cell: (pv) => pv.status?.reason ?? "",
    },
    ageColumn(),
    {
      name: "VolumeMode",
      type: "string",
      priority: 1,
      description: "volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state.",
      cell: (pv) => pv.spec?.volumeMode ?? "<unset>",
    },
  ],
  strategy: { prepareForCreate, validate: validatePersistentVolume, validateUpdate: validatePersistentVolume },
});
