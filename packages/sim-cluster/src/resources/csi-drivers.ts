import type { KubeObject } from "@kubekit/generic-controlplane";
import {
  childPath,
  fieldDuplicate,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  fieldTooLong,
  indexPath,
  isDNS1123Subdomain,
  validateImmutableField,
  type FieldError,
} from "@kubekit/generic-controlplane/registry";
import { ageColumn } from "./columns.js";
import { defineResource } from "./define.js";
import { componentSchema } from "./openapi/component-schema.js";

export interface CSIDriver extends KubeObject {
  spec?: {
    attachRequired?: boolean;
    podInfoOnMount?: boolean;
    volumeLifecycleModes?: string[];
    storageCapacity?: boolean;
    fsGroupPolicy?: string;
    tokenRequests?: Array<{ audience?: string; expirationSeconds?: number }>;
    requiresRepublish?: boolean;
    seLinuxMount?: boolean;
  };
}

const FS_GROUP_POLICIES = ["File", "None", "ReadWriteOnceWithFSType"];
const LIFECYCLE_MODES = ["Ephemeral", "Persistent"];
const MIN_TOKEN_AGE_SECONDS = 600;
const MAX_TOKEN_AGE_SECONDS = 2 ** 32;
const MAX_CSI_DRIVER_NAME_LENGTH = 63;

/** ValidateCSIDriverName, shared by every storage type that names a driver: a DNS-1123 subdomain (any case) of at most 63 characters. */
export function validateCSIDriverName(name: string, path: string): FieldError[] {
  if (name === "") return [fieldRequired(path)];
  const errors: FieldError[] = [];
  if (name.length > MAX_CSI_DRIVER_NAME_LENGTH) errors.push(fieldTooLong(path, name, MAX_CSI_DRIVER_NAME_LENGTH));
  errors.push(...isDNS1123Subdomain(name.toLowerCase()).map((m) => fieldInvalid(path, name, m)));
  return errors;
}

/** SetDefaults_CSIDriver as a 1.32 kube-apiserver (SELinuxMountReadWriteOncePod on). */
function prepare(driver: CSIDriver): void {
  const spec = (driver.spec ??= {});
  spec.attachRequired ??= true;
  spec.podInfoOnMount ??= false;
  spec.storageCapacity ??= false;
  spec.fsGroupPolicy ??= "ReadWriteOnceWithFSType";
  if (spec.volumeLifecycleModes === undefined || spec.volumeLifecycleModes.length === 0) spec.volumeLifecycleModes = ["Persistent"];
  spec.requiresRepublish ??= false;
  spec.seLinuxMount ??= false;
}

/** ValidateCSIDriver: modes, fsGroupPolicy and token requests (unique audiences, 10 minutes to 2^32 seconds). */
export function validateCSIDriver(driver: CSIDriver): FieldError[] {
  const errors = validateCSIDriverName(driver.metadata?.name ?? "", "metadata.name");
  const spec = driver.spec ?? {};
  if (spec.attachRequired === undefined) errors.push(fieldRequired("spec.attachedRequired"));
  if (spec.podInfoOnMount === undefined) errors.push(fieldRequired("spec.podInfoOnMount"));
  if (spec.storageCapacity === undefined) errors.push(fieldRequired("spec.storageCapacity"));
  (spec.volumeLifecycleModes ?? []).forEach((mode, i) => {
    if (!LIFECYCLE_MODES.includes(mode)) errors.push(fieldNotSupported(indexPath("spec.volumeLifecycleModes", i), mode, LIFECYCLE_MODES));
  });
  if (spec.fsGroupPolicy !== undefined && !FS_GROUP_POLICIES.includes(spec.fsGroupPolicy))
    errors.push(fieldNotSupported("spec.fsGroupPolicy", spec.fsGroupPolicy, FS_GROUP_POLICIES));
  const audiences = new Set<string>();
  (spec.tokenRequests ?? []).forEach((request, i) => {
    const at = indexPath("spec.tokenRequests", i);
    const audience = request.audience ?? "";
    if (audiences.has(audience)) errors.push(fieldDuplicate(childPath(at, "audience"), audience));
    audiences.add(audience);
    const seconds = request.expirationSeconds;
    if (seconds !== undefined && seconds < MIN_TOKEN_AGE_SECONDS)
      errors.push(fieldInvalid(childPath(at, "expirationSeconds"), seconds, "may not specify a duration less than 10 minutes"));
    if (seconds !== undefined && seconds > MAX_TOKEN_AGE_SECONDS)
      errors.push(fieldInvalid(childPath(at, "expirationSeconds"), seconds, "may not specify a duration larger than 2^32 seconds"));
  });
  return errors;
}

/** ValidateCSIDriverUpdate: attachRequired and volumeLifecycleModes never change (upstream's path says `attachedRequired`). */
export function validateCSIDriverUpdate(driver: CSIDriver, old: CSIDriver): FieldError[] {
  return [
    ...validateCSIDriver(driver),
    ...validateImmutableField(driver.spec?.attachRequired, old.spec?.attachRequired, "spec.attachedRequired"),
    ...validateImmutableField(driver.spec?.volumeLifecycleModes, old.spec?.volumeLifecycleModes, "spec.volumeLifecycleModes"),
  ];
}

function tokenRequestsCell(driver: CSIDriver): string {
  const requests = driver.spec?.tokenRequests ?? [];
  return requests.length === 0 ? "<unset>" : requests.map((r) => r.audience || "<api-server-audience>").join(",");
}

const schema = componentSchema("io.k8s.api.storage.v1.CSIDriver");

/** storage.k8s.io/v1 CSIDriver (cluster-scoped). */
export const csiDriversResource = defineResource<CSIDriver>({
  group: "storage.k8s.io",
  version: "v1",
  kind: "CSIDriver",
  plural: "csidrivers",
  singular: "csidriver",
  scope: "Cluster",
  schema,
  printerColumns: [
    {
      name: "AttachRequired",
      type: "boolean",
      description: "attachRequired indicates this CSI volume driver requires an attach operation.",
      cell: (d) => d.spec?.attachRequired ?? true,
    },
    {
      name: "PodInfoOnMount",
      type: "boolean",
      description: "podInfoOnMount indicates this CSI volume driver requires additional pod information during mount operations.",
      cell: (d) => d.spec?.podInfoOnMount ?? false,
    },
    {
      name: "StorageCapacity",
      type: "boolean",
      description: "storageCapacity indicates that the CSI volume driver wants pod scheduling to consider the storage capacity.",
      cell: (d) => d.spec?.storageCapacity ?? false,
    },
    {
      name: "TokenRequests",
      type: "string",
      description:
        "tokenRequests indicates the CSI driver needs pods' service account tokens it is mounting volume for to do necessary authentication.",
      cell: tokenRequestsCell,
    },
    {
      name: "RequiresRepublish",
      type: "boolean",
      description: "requiresRepublish indicates the CSI driver wants `NodePublishVolume` being periodically called.",
      cell: (d) => d.spec?.requiresRepublish ?? false,
    },
    {
      name: "Modes",
      type: "string",
      description: "volumeLifecycleModes defines what kind of volumes this CSI volume driver supports.",
      cell: (d) => (d.spec?.volumeLifecycleModes ?? []).join(",") || "<none>",
    },
    ageColumn(),
  ],
  strategy: { prepareForCreate: prepare, prepareForUpdate: prepare, validate: validateCSIDriver, validateUpdate: validateCSIDriverUpdate },
});
