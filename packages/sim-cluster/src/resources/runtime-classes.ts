import type { KubeObject } from "@kubekit/generic-controlplane";
import {
  fieldInvalid,
  isDNS1123Label,
  validateImmutableField,
  validateLabels,
  type FieldError,
} from "@kubekit/generic-controlplane/registry";
import type { Toleration } from "../scheduler/taint-toleration.js";
import { ageColumn } from "./columns.js";
import { defineResource } from "./define.js";
import { validateResourceList, type ResourceList } from "./pod-spec.js";
import { validateTolerations } from "./scheduling-fields.js";
import { componentSchema } from "./openapi/component-schema.js";

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

const schema = componentSchema("io.k8s.api.node.v1.RuntimeClass");

/** node.k8s.io/v1 RuntimeClass (cluster-scoped); the RuntimeClass admission plugin applies it to pods. */
export const runtimeClassesResource = defineResource<RuntimeClass>({
  group: "node.k8s.io",
  version: "v1",
  kind: "RuntimeClass",
  plural: "runtimeclasses",
  singular: "runtimeclass",
  scope: "Cluster",
  schema,
  printerColumns: [
    {
      name: "Handler",
      type: "string",
      description:
        "handler specifies the underlying runtime and configuration that the CRI implementation will use to handle pods of this class.",
      cell: (rc) => rc.handler ?? "",
    },
    ageColumn(),
  ],
  strategy: { validate: validateRuntimeClass, validateUpdate: validateRuntimeClassUpdate },
});
