import { isDeepStrictEqual } from "node:util";
import {
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  isDNS1123Subdomain,
  keyPath,
  type FieldError,
} from "@kubekit/generic-controlplane/registry";
import { ageColumn } from "./columns.js";
import { defineResource } from "./define.js";
import { accessModesText, storageMilli, validateAccessModes, type PersistentVolumeClaim } from "./persistent-volumes.js";
import { componentSchema } from "./openapi/component-schema.js";

const VOLUME_MODES = ["Block", "Filesystem"];

/** SetDefaults_PersistentVolumeClaim (Filesystem) and a new claim's Pending phase. */
function prepareForCreate(claim: PersistentVolumeClaim): void {
  defaultClaimSpec(claim);
  claim.status = { ...(claim.status ?? {}), phase: "Pending" };
}

export function defaultClaimSpec(claim: Pick<PersistentVolumeClaim, "spec">): void {
  (claim.spec ??= {}).volumeMode ??= "Filesystem";
}

/** ValidatePersistentVolumeClaimSpec for the fields the binder reads. */
export function validateClaimSpec(spec: PersistentVolumeClaim["spec"], path: string): FieldError[] {
  const errors = validateAccessModes(spec?.accessModes, `${path}.accessModes`);
  const requests = spec?.resources?.requests;
  const storage = requests !== undefined && Object.hasOwn(requests, "storage") ? storageMilli(requests) : undefined;
  if (requests === undefined || !Object.hasOwn(requests, "storage"))
    errors.push(fieldRequired(keyPath(`${path}.resources`, "storage"), ""));
  else if (storage === undefined)
    errors.push(fieldInvalid(keyPath(`${path}.resources.requests`, "storage"), requests.storage, "must be a valid quantity"));
  else if (storage <= 0n)
    errors.push(fieldInvalid(keyPath(`${path}.resources.requests`, "storage"), requests.storage, "must be greater than zero"));
  const className = spec?.storageClassName;
  if (typeof className === "string" && className !== "")
    for (const message of isDNS1123Subdomain(className)) errors.push(fieldInvalid(`${path}.storageClassName`, className, message));
  if (spec?.volumeMode !== undefined && !VOLUME_MODES.includes(spec.volumeMode))
    errors.push(fieldNotSupported(`${path}.volumeMode`, spec.volumeMode, VOLUME_MODES));
  return errors;
}

export function validateClaim(claim: PersistentVolumeClaim): FieldError[] {
  return validateClaimSpec(claim.spec, "spec");
}

/**
 * ValidatePersistentVolumeClaimUpdate: the spec is fixed once created, except the requests, the
 * volume name and class a binder fills in when they were empty.
 */
export function validateClaimUpdate(claim: PersistentVolumeClaim, old: PersistentVolumeClaim): FieldError[] {
  const errors = validateClaim(claim);
  const comparable = (spec: PersistentVolumeClaim["spec"], other: PersistentVolumeClaim["spec"]) => {
    const { resources: _resources, volumeAttributesClassName: _vac, ...rest } = spec ?? {};
    if (!other?.volumeName) delete rest.volumeName;
    if (other?.storageClassName === undefined || other.storageClassName === null) delete rest.storageClassName;
    return rest;
  };
  if (!isDeepStrictEqual(comparable(claim.spec, old.spec), comparable(old.spec, old.spec))) {
    errors.push(
      fieldForbidden("spec", "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims"),
    );
  }
  return errors;
}

const schema = componentSchema("io.k8s.api.core.v1.PersistentVolumeClaim");

const bound = (claim: PersistentVolumeClaim) => Boolean(claim.spec?.volumeName);

/** core/v1 PersistentVolumeClaim (with /status). */
export const persistentVolumeClaimsResource = defineResource<PersistentVolumeClaim>({
  group: "",
  version: "v1",
  kind: "PersistentVolumeClaim",
  plural: "persistentvolumeclaims",
  singular: "persistentvolumeclaim",
  scope: "Namespaced",
  shortNames: ["pvc"],
  statusSubresource: true,
  schema,
  printerColumns: [
    {
      name: "Status",
      type: "string",
      description: "phase represents the current phase of PersistentVolumeClaim.",
      cell: (c) => (c.metadata?.deletionTimestamp ? "Terminating" : (c.status?.phase ?? "")),
    },
    {
      name: "Volume",
      type: "string",
      description: "volumeName is the binding reference to the PersistentVolume backing this claim.",
      cell: (c) => c.spec?.volumeName ?? "",
    },
    {
      name: "Capacity",
      type: "string",
      description: "capacity represents the actual resources of the underlying volume.",
      cell: (c) => (bound(c) ? String(c.status?.capacity?.storage ?? "") : ""),
    },
    {
      name: "Access Modes",
      type: "string",
      description: "accessModes contains the actual access modes the volume backing the PVC has.",
      cell: (c) => (bound(c) ? accessModesText(c.status?.accessModes) : ""),
    },
    { name: "StorageClass", type: "string", description: "StorageClass of the pvc", cell: (c) => c.spec?.storageClassName ?? "" },
    {
      name: "VolumeAttributesClass",
      type: "string",
      description: "VolumeAttributesClass of the pvc",
      cell: (c) => (typeof c.spec?.volumeAttributesClassName === "string" ? c.spec.volumeAttributesClassName : "<unset>"),
    },
    ageColumn(),
    {
      name: "VolumeMode",
      type: "string",
      priority: 1,
      description: "volumeMode defines what type of volume is required by the claim.",
      cell: (c) => c.spec?.volumeMode ?? "<unset>",
    },
  ],
  strategy: { prepareForCreate, validate: validateClaim, validateUpdate: validateClaimUpdate },
});
