import type { KubeObject } from "@kubekit/generic-controlplane";
import {
  fieldForbidden,
  fieldNotSupported,
  fieldRequired,
  validateImmutableField,
  type FieldError,
} from "@kubekit/generic-controlplane/registry";
import { ageColumn } from "./columns.js";
import { defineResource } from "./define.js";
import { componentSchema } from "./openapi/component-schema.js";

export interface PriorityClass extends KubeObject {
  value?: number;
  globalDefault?: boolean;
  description?: string;
  preemptionPolicy?: string;
}

/** Upstream's HighestUserDefinablePriority: values above it are reserved for system classes. */
export const HIGHEST_USER_DEFINABLE_PRIORITY = 1_000_000_000;
export const SYSTEM_PRIORITY_CLASS_PREFIX = "system-";

/** The two classes kube-apiserver creates at startup (scheduling `SystemPriorityClasses`). */
export const SYSTEM_PRIORITY_CLASSES: readonly PriorityClass[] = [
  {
    apiVersion: "scheduling.k8s.io/v1",
    kind: "PriorityClass",
    metadata: { name: "system-node-critical" },
    value: 2_000_001_000,
    description: "Used for system critical pods that must not be moved from their current node.",
  },
  {
    apiVersion: "scheduling.k8s.io/v1",
    kind: "PriorityClass",
    metadata: { name: "system-cluster-critical" },
    value: 2_000_000_000,
    description: "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
  },
];

const PREEMPTION_POLICIES = ["Never", "PreemptLowerPriority"];

/** ValidatePriorityClass: names starting `system-` are reserved, values above 1e9 too. */
export function validatePriorityClass(pc: PriorityClass): FieldError[] {
  const errors: FieldError[] = [];
  const name = pc.metadata?.name ?? "";
  const system = SYSTEM_PRIORITY_CLASSES.find((s) => s.metadata?.name === name);
  if (system !== undefined) {
    if (pc.value !== system.value) errors.push(fieldForbidden("metadata.name", `priority class "${name}" must have value ${system.value}`));
  } else if (name.startsWith(SYSTEM_PRIORITY_CLASS_PREFIX)) {
    errors.push(
      fieldForbidden(
        "metadata.name",
        `priority class names with '${SYSTEM_PRIORITY_CLASS_PREFIX}' prefix are reserved for system use only. error: priority class ${name} is not known`,
      ),
    );
  } else if (typeof pc.value === "number" && pc.value > HIGHEST_USER_DEFINABLE_PRIORITY) {
    errors.push(fieldForbidden("value", `maximum allowed value of a user defined priority is ${HIGHEST_USER_DEFINABLE_PRIORITY}`));
  }
  if (typeof pc.value !== "number") errors.push(fieldRequired("value"));
  if (pc.preemptionPolicy !== undefined && !PREEMPTION_POLICIES.includes(pc.preemptionPolicy)) {
    errors.push(fieldNotSupported("preemptionPolicy", pc.preemptionPolicy, PREEMPTION_POLICIES));
  }
  return errors;
}

export function validatePriorityClassUpdate(pc: PriorityClass, old: PriorityClass): FieldError[] {
  const errors = validatePriorityClass(pc);
  if (pc.value !== old.value) errors.push(fieldForbidden("value", "may not be changed in an update."));
  errors.push(...validateImmutableField(pc.preemptionPolicy, old.preemptionPolicy, "preemptionPolicy"));
  return errors;
}

const schema = componentSchema("io.k8s.api.scheduling.v1.PriorityClass");

/** scheduling.k8s.io/v1 PriorityClass (cluster-scoped). */
export const priorityClassesResource = defineResource<PriorityClass>({
  group: "scheduling.k8s.io",
  version: "v1",
  kind: "PriorityClass",
  plural: "priorityclasses",
  singular: "priorityclass",
  scope: "Cluster",
  shortNames: ["pc"],
  schema,
  printerColumns: [
    {
      name: "Value",
      type: "integer",
      description: "value represents the integer value of this priority class.",
      cell: (pc) => pc.value ?? 0,
    },
    {
      name: "Global-Default",
      type: "boolean",
      description: "globalDefault specifies whether this PriorityClass should be considered as the default priority.",
      cell: (pc) => pc.globalDefault ?? false,
    },
    ageColumn(),
    {
      name: "PreemptionPolicy",
      type: "string",
      description: "preemptionPolicy is the Policy for preempting pods with lower priority.",
      cell: (pc) => pc.preemptionPolicy ?? "",
    },
  ],
  strategy: {
    prepareForCreate: (pc) => {
      pc.preemptionPolicy ??= "PreemptLowerPriority";
      pc.globalDefault ??= false;
    },
    validate: validatePriorityClass,
    validateUpdate: validatePriorityClassUpdate,
  },
});
