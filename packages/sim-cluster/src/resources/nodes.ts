import type { KubeObject } from "@kubekit/generic-controlplane";
import { fieldForbidden, fieldInvalid, keyPath, type FieldError } from "@kubekit/generic-controlplane/registry";
import { parseMilli, quantityText } from "../quantity.js";
import { ageColumn, orNone } from "./columns.js";
import { defineResource } from "./define.js";
import { componentSchema } from "./openapi/component-schema.js";

export interface NodeCondition {
  type: string;
  status: "True" | "False" | "Unknown";
  reason?: string;
  message?: string;
  lastHeartbeatTime?: string;
  lastTransitionTime?: string;
}

export interface Node extends KubeObject {
  spec?: {
    podCIDR?: string;
    podCIDRs?: string[];
    providerID?: string;
    unschedulable?: boolean;
    taints?: Array<{ key: string; value?: string; effect: string }>;
  };
  status?: {
    capacity?: Record<string, string>;
    allocatable?: Record<string, string>;
    conditions?: NodeCondition[];
    addresses?: Array<{ type: string; address: string }>;
    nodeInfo?: Record<string, string>;
  };
}

function validateQuantities(map: Record<string, unknown> | undefined, path: string): FieldError[] {
  const errors: FieldError[] = [];
  for (const [name, value] of Object.entries(map ?? {})) {
    const text = quantityText(value);
    const milli = text === undefined ? undefined : parseMilli(text);
    if (milli === undefined) errors.push(fieldInvalid(keyPath(path, name), value, "must be a valid quantity"));
    else if (milli < 0n) errors.push(fieldInvalid(keyPath(path, name), text, "must be greater than or equal to 0"));
  }
  return errors;
}

export function validateNode(node: Node): FieldError[] {
  return [
    ...validateQuantities(node.status?.capacity, "status.capacity"),
    ...validateQuantities(node.status?.allocatable, "status.allocatable"),
  ];
}

/** ValidateNodeUpdate: podCIDRs and providerID may only go from unset to set. */
export function validateNodeUpdate(node: Node, old: Node): FieldError[] {
  const errors = validateNode(node);
  const oldCIDRs = old.spec?.podCIDRs ?? [];
  if (oldCIDRs.length > 0 && JSON.stringify(node.spec?.podCIDRs ?? []) !== JSON.stringify(oldCIDRs)) {
    errors.push(fieldForbidden("spec.podCIDRs", 'node updates may not change podCIDR except from "" to valid'));
  }
  if (old.spec?.providerID && node.spec?.providerID !== old.spec.providerID) {
    errors.push(fieldForbidden("spec.providerID", 'node updates may not change providerID except from "" to valid'));
  }
  return errors;
}

/** kubectl's STATUS for a node: its Ready condition, then SchedulingDisabled when cordoned. */
export function nodeStatusCell(node: Node): string {
  const ready = node.status?.conditions?.find((c) => c.type === "Ready");
  const states = [ready === undefined ? "Unknown" : ready.status === "True" ? "Ready" : "NotReady"];
  if (node.spec?.unschedulable === true) states.push("SchedulingDisabled");
  return states.join(",");
}

function roles(node: Node): string {
  const found: string[] = [];
  for (const [key, value] of Object.entries(node.metadata?.labels ?? {})) {
    if (key.startsWith("node-role.kubernetes.io/")) found.push(key.slice("node-role.kubernetes.io/".length));
    else if (key === "kubernetes.io/role" && value !== "") found.push(value);
  }
  return orNone(found.sort().join(","));
}

function address(node: Node, type: string): string {
  return orNone(node.status?.addresses?.find((a) => a.type === type)?.address);
}

const schema = componentSchema("io.k8s.api.core.v1.Node");

/** core/v1 Node (cluster-scoped, with /status). */
export const nodesResource = defineResource<Node>({
  group: "",
  version: "v1",
  kind: "Node",
  plural: "nodes",
  singular: "node",
  scope: "Cluster",
  shortNames: ["no"],
  statusSubresource: true,
  schema,
  printerColumns: [
    { name: "Status", type: "string", description: "The status of the node", cell: nodeStatusCell },
    { name: "Roles", type: "string", description: "The roles of the node", cell: roles },
    ageColumn(),
    {
      name: "Version",
      type: "string",
      description: "Kubelet Version reported by the node.",
      cell: (n) => n.status?.nodeInfo?.["kubeletVersion"] ?? "",
    },
    {
      name: "Internal-IP",
      type: "string",
      priority: 1,
      description: "List of addresses reachable to the node. Queried from cloud provider, if available.",
      cell: (n) => address(n, "InternalIP"),
    },
    {
      name: "External-IP",
      type: "string",
      priority: 1,
      description: "List of addresses reachable to the node. Queried from cloud provider, if available.",
      cell: (n) => address(n, "ExternalIP"),
    },
    {
      name: "OS-Image",
      type: "string",
      priority: 1,
      description: "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).",
      cell: (n) => orNone(n.status?.nodeInfo?.["osImage"]),
    },
    {
      name: "Kernel-Version",
      type: "string",
      priority: 1,
      description: "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).",
      cell: (n) => orNone(n.status?.nodeInfo?.["kernelVersion"]),
    },
    {
      name: "Container-Runtime",
      type: "string",
      priority: 1,
      description: "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).",
      cell: (n) => orNone(n.status?.nodeInfo?.["containerRuntimeVersion"]),
    },
  ],
  strategy: { validate: validateNode, validateUpdate: validateNodeUpdate },
});
