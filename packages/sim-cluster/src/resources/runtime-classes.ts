import type { KubeObject } from "@kubekit/generic-controlplane";
import { fieldInvalid, isDNS1123Label, validateImmutableField, validateLabels, type FieldError } from "@kubekit/generic-controlplane/registry";
import type { Toleration } from "../scheduler/taint-toleration.js";
import { ageColumn } from "./columns.js";
import { defineResource } from "./define.js";
import { validateResourceList, type ResourceList } from "./pod-spec.js";
import { validateTolerations } from "./scheduling-fields.js";
import { kindSchema, open, quantityMap, str, stringMap } from "./schema.js";

export interface RuntimeClass extends KubeObject {
  handler?: string;
  overhead?: { podFixed?: ResourceList };
  scheduling?: { nodeSelector?: Record<string, string>; tolerations?: Toleration[] };
}

/** ValidateRuntimeClass: the handler is a DNS-1123 label; overhead quantities; scheduling's labels and tolerations. */
export function validateRuntimeClass(runtimeClass: RuntimeClass): FieldError[] {
  const handler = runtimeClass.handler ?? "";
  const errors = isDNS1123Label(handler).map((message) => fieldInvalid("handler", handler, message));
  errors.push(...validateResourceList(runtimeClass.overhead?.podFixed, "overhead.podFixed"));
  errors.push(...validateLabels(runtimeClass.scheduling?.nodeSelector, "scheduling.nodeSelector"));
  errors.push(...validateTolerations(runtimeClass.scheduling?.tolerations, "scheduling.tolerations"));
  return errors;
}

export function validateRuntimeClassUpdate(runtimeClass: RuntimeClass, old: RuntimeClass): FieldError[] {
  return [...validateRuntimeClass(runtimeClass), ...validateImmutableField(runtimeClass.handler, old.handler, "handler")];
}

const schema = kindSchema("node.k8s.io", "v1", "RuntimeClass", "RuntimeClass defines a class of container runtime supported in the cluster.", {
  handler: str("handler specifies the underlying runtime and configuration that the CRI implementation will use to handle pods of this class."),
  overhead: open("overhead represents the resource overhead associated with running a pod for a given RuntimeClass.", { podFixed: quantityMap("podFixed represents the fixed resource overhead associated with running a pod.") }),
  scheduling: open("scheduling holds the scheduling constraints to ensure that pods running with this RuntimeClass are scheduled to nodes that support it.", {
    nodeSelector: { ...stringMap("nodeSelector lists labels that must be present on nodes that support this RuntimeClass."), "x-kubernetes-map-type": "atomic" },
    tolerations: { type: "array", "x-kubernetes-list-type": "atomic", description: "tolerations are appended (excluding duplicates) to pods running with this RuntimeClass during admission.", items: open("The pod this Toleration is attached to tolerates any taint that matches the triple <key,value,effect>.") },
  }),
});

/** node.k8s.io/v1 RuntimeClass (cluster-scoped); the RuntimeClass admission plugin applies it to pods. */
export const runtimeClassesResource = defineResource<RuntimeClass>({
  group: "node.k8s.io",
  version: "v1",
  kind: "RuntimeClass",
  plural: "runtimeclasses",
  singular: "runtimeclass",
  scope: "Cluster",
  schema,
  printerColumns: [{ name: "Handler", type: "string", description: "handler specifies the underlying runtime and configuration that the CRI implementation will use to handle pods of this class.", cell: (rc) => rc.handler ?? "" }, ageColumn()],
  strategy: { validate: validateRuntimeClass, validateUpdate: validateRuntimeClassUpdate },
});
