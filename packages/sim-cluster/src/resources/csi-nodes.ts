import type { KubeObject } from "@kubekit/generic-controlplane";
import {
  childPath,
  fieldDuplicate,
  fieldInvalid,
  fieldRequired,
  fieldTooLong,
  indexPath,
  isQualifiedName,
  type FieldError,
} from "@kubekit/generic-controlplane/registry";
import { ageColumn } from "./columns.js";
import { validateCSIDriverName } from "./csi-drivers.js";
import { defineResource } from "./define.js";
import { componentSchema } from "./openapi/component-schema.js";

export interface CSINode extends KubeObject {
  spec?: { drivers?: Array<{ name?: string; nodeID?: string; topologyKeys?: string[]; allocatable?: { count?: number } }> };
}

const MAX_NODE_ID_LENGTH = 192;

/** ValidateCSINode: each driver once, with a node ID, qualified topology keys and a count of at least 0. */
export function validateCSINode(csiNode: CSINode): FieldError[] {
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  (csiNode.spec?.drivers ?? []).forEach((driver, i) => {
    const at = indexPath("spec.drivers", i);
    const name = driver.name ?? "";
    errors.push(...validateCSIDriverName(name, childPath(at, "name")));
    if (seen.has(name)) errors.push(fieldDuplicate(childPath(at, "name"), name));
    seen.add(name);
    const nodeID = driver.nodeID ?? "";
    if (nodeID === "") errors.push(fieldRequired(childPath(at, "nodeID"), "nodeID of the driver must not be empty"));
    else if (nodeID.length > MAX_NODE_ID_LENGTH) errors.push(fieldTooLong(childPath(at, "nodeID"), nodeID, MAX_NODE_ID_LENGTH));
    const keys = new Set<string>();
    (driver.topologyKeys ?? []).forEach((key, j) => {
      const keyPath = indexPath(childPath(at, "topologyKeys"), j);
      if (key === "") errors.push(fieldRequired(keyPath));
      else errors.push(...isQualifiedName(key).map((m) => fieldInvalid(keyPath, key, m)));
      if (keys.has(key)) errors.push(fieldDuplicate(keyPath, key));
      keys.add(key);
    });
    const count = driver.allocatable?.count;
    if (count !== undefined && count < 0)
      errors.push(fieldInvalid(childPath(childPath(at, "allocatable"), "count"), count, "must be greater than or equal to 0"));
  });
  return errors;
}

const schema = componentSchema("io.k8s.api.storage.v1.CSINode");

/** storage.k8s.io/v1 CSINode (cluster-scoped). */
export const csiNodesResource = defineResource<CSINode>({
  group: "storage.k8s.io",
  version: "v1",
  kind: "CSINode",
  plural: "csinodes",
  singular: "csinode",
  scope: "Cluster",
  schema,
  printerColumns: [
    {
      name: "Drivers",
      type: "integer",
      description: "Drivers indicates the number of CSI drivers registered on the node",
      cell: (n) => (n.spec?.drivers ?? []).length,
    },
    ageColumn(),
  ],
  strategy: { validate: validateCSINode, validateUpdate: validateCSINode },
});
