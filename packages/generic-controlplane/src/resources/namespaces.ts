import type { KubeObject } from "../api/types.js";
import { goType } from "../schema/go-type.js";
import type { ResourceStrategy } from "../registry/rest/resource-definition.js";
import type { FieldError } from "../validation/field-errors.js";
import { FINALIZER_DELETE_DEPENDENTS, FINALIZER_ORPHAN_DEPENDENTS, fieldInvalid, validateFinalizerName } from "../validation/index.js";
import { asRecord, defineResource } from "./define.js";
import { ageColumn } from "./printer-columns.js";
import { kindSchema, stringSchema, timeSchema } from "./schema-parts.js";
import { canonicalTime, normalizeField, type DecodeTarget } from "../validation/wire-values.js";

export interface NamespaceCondition {
  type?: string;
  status?: string;
  lastTransitionTime?: string;
  reason?: string;
  message?: string;
}

export interface Namespace extends KubeObject {
  spec?: { finalizers?: string[] };
  status?: { phase?: string; conditions?: NamespaceCondition[] };
}

/** The spec finalizer the namespace controller removes (through `/finalize`) once the namespace is empty. */
export const NAMESPACE_FINALIZER_KUBERNETES = "kubernetes";
export const NAMESPACE_PHASE_ACTIVE = "Active";
export const NAMESPACE_PHASE_TERMINATING = "Terminating";
/** The label upstream keeps equal to the namespace name, so namespace selectors can pick by name. */
export const NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name";
/** Namespaces NamespaceLifecycle admission refuses to delete. */
export const IMMORTAL_NAMESPACES: readonly string[] = ["default", "kube-system", "kube-public"];
/** Namespaces a control plane creates at start. */
export const SYSTEM_NAMESPACES: readonly string[] = ["default", "kube-system", "kube-public", "kube-node-lease"];

const TARGET: DecodeTarget = { kind: "Namespace", version: "v1" };
const STANDARD_FINALIZERS = new Set([NAMESPACE_FINALIZER_KUBERNETES, FINALIZER_ORPHAN_DEPENDENTS, FINALIZER_DELETE_DEPENDENTS]);

/** The namespace's own name as a label (upstream's `Canonicalize`). */
function labelWithName(object: Namespace): void {
  const name = object.metadata?.name;
  if (name === undefined || name === "") return;
  object.metadata ??= {};
  object.metadata.labels = { ...object.metadata.labels, [NAMESPACE_NAME_LABEL]: name };
}

function normalizeStatus(object: Namespace): void {
  const status = asRecord(object.status) as Namespace["status"];
  if (status === undefined) {
    object.status = { phase: NAMESPACE_PHASE_ACTIVE };
    return;
  }
  if (status.phase === undefined || status.phase === "") status.phase = NAMESPACE_PHASE_ACTIVE;
  for (const condition of status.conditions ?? []) {
    normalizeField(asRecord(condition), "lastTransitionTime", (v) => canonicalTime(v, TARGET));
  }
}

function finalizersOf(object: Namespace): string[] {
  return Array.isArray(object.spec?.finalizers) ? object.spec.finalizers : [];
}

/** Create: the namespace starts Active and carries the `kubernetes` finalizer. */
function prepareForCreate(object: Namespace): void {
  object.status = { phase: NAMESPACE_PHASE_ACTIVE };
  const finalizers = finalizersOf(object);
  object.spec = {
    ...asRecord(object.spec),
    finalizers: finalizers.includes(NAMESPACE_FINALIZER_KUBERNETES) ? finalizers : [...finalizers, NAMESPACE_FINALIZER_KUBERNETES],
  };
  labelWithName(object);
}

/** Update (main resource and `/status`): spec finalizers change only through `/finalize`. */
function prepareForUpdate(object: Namespace, old: Namespace): void {
  const oldFinalizers = old.spec?.finalizers;
  const spec = { ...asRecord(object.spec) } as NonNullable<Namespace["spec"]>;
  if (oldFinalizers === undefined) delete spec.finalizers;
  else spec.finalizers = [...oldFinalizers];
  object.spec = spec;
  normalizeStatus(object);
  labelWithName(object);
}

/** Core's `validateFinalizerName`: qualified, and a bare name must be one of the standard finalizers. */
export function validateNamespaceFinalizers(object: Namespace): FieldError[] {
  const errors: FieldError[] = [];
  for (const finalizer of finalizersOf(object)) {
    errors.push(...validateFinalizerName(finalizer, "spec.finalizers"));
    if (!finalizer.includes("/") && !STANDARD_FINALIZERS.has(finalizer)) {
      errors.push(fieldInvalid("spec.finalizers", finalizer, "name is neither a standard finalizer name nor is it fully qualified"));
    }
  }
  return errors;
}

/** `ValidateNamespaceStatusUpdate`: the phase follows `deletionTimestamp` (path spelled `status.Phase` upstream). */
export function validateNamespacePhase(object: Namespace): FieldError[] {
  const phase = object.status?.phase;
  if (object.metadata?.deletionTimestamp === undefined) {
    return phase === NAMESPACE_PHASE_ACTIVE
      ? []
      : [fieldInvalid("status.Phase", phase ?? "", "may only be 'Active' if `deletionTimestamp` is empty")];
  }
  return phase === NAMESPACE_PHASE_TERMINATING
    ? []
    : [fieldInvalid("status.Phase", phase ?? "", "may only be 'Terminating' if `deletionTimestamp` is not empty")];
}

/**
 * `PUT /api/v1/namespaces/<name>/finalize`: the one way to change `spec.finalizers`. Status stays
 * as stored; metadata may change like on any update (see `createNamespaceStorage`).
 */
export const namespaceFinalizeStrategy: ResourceStrategy = {
  prepareForUpdate(object, old) {
    (object as Namespace).status = (old as Namespace).status ?? { phase: NAMESPACE_PHASE_ACTIVE };
    labelWithName(object);
  },
  validateUpdate(object) {
    return validateNamespaceFinalizers(object);
  },
};

export function isNamespaceTerminating(object: KubeObject): boolean {
  const ns = object as Namespace;
  return ns.metadata?.deletionTimestamp !== undefined || ns.status?.phase === NAMESPACE_PHASE_TERMINATING;
}

/** A terminating namespace with no spec and no metadata finalizers left is gone (upstream's `ShouldDeleteNamespaceDuringUpdate`). */
export function shouldDeleteNamespaceDuringUpdate(object: KubeObject): boolean {
  const ns = object as Namespace;
  return ns.metadata?.deletionTimestamp !== undefined && finalizersOf(ns).length === 0 && (ns.metadata.finalizers ?? []).length === 0;
}

const schema = kindSchema({
  group: "",
  version: "v1",
  kind: "Namespace",
  description: "Namespace provides a scope for Names. Use of multiple namespaces is optional.",
  properties: {
    spec: {
      type: "object",
      default: {},
      description:
        "Spec defines the behavior of the Namespace. See https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status",
      properties: {
        finalizers: {
          type: "array",
          description:
            "Finalizers is an opaque list of values that must be empty to permanently remove the object from storage. See https://kubernetes.io/docs/tasks/administer-cluster/namespaces/",
          items: goType("v1.FinalizerName", { type: "string", default: "" }),
          "x-kubernetes-list-type": "atomic",
        },
      },
    },
    status: {
      type: "object",
      default: {},
      description:
        "Status describes the current status of a Namespace. See https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#spec-and-status",
      properties: {
        conditions: {
          type: "array",
          description: "Represents the latest available observations of a namespace's current state.",
          items: goType("v1.NamespaceCondition", {
            type: "object",
            description: "NamespaceCondition contains details about the state of a namespace.",
            required: ["type", "status"],
            properties: {
              lastTransitionTime: timeSchema("Last time the condition transitioned from one status to another."),
              message: stringSchema("Human-readable message indicating details about the last transition."),
              reason: stringSchema("Unique, one-word, CamelCase reason for the condition's last transition."),
              status: goType("v1.ConditionStatus", stringSchema("Status of the condition, one of True, False, Unknown.")),
              type: goType("v1.NamespaceConditionType", stringSchema("Type of namespace controller condition.")),
            },
          }),
          "x-kubernetes-list-map-keys": ["type"],
          "x-kubernetes-list-type": "map",
          "x-kubernetes-patch-merge-key": "type",
          "x-kubernetes-patch-strategy": "merge",
        },
        phase: goType("v1.NamespacePhase", {
          type: "string",
          enum: [NAMESPACE_PHASE_ACTIVE, NAMESPACE_PHASE_TERMINATING],
          description:
            'Phase is the current lifecycle phase of the namespace. See https://kubernetes.io/docs/tasks/administer-cluster/namespaces/\n\nPossible enum values:\n - `"Active"` means the namespace is available for use in the system\n - `"Terminating"` means the namespace is undergoing graceful termination',
        }),
      },
    },
  },
});

/** core/v1 Namespace, with `/status`; served by `createNamespaceStorage`, which adds `/finalize`. */
export const namespacesResource = defineResource<Namespace>({
  group: "",
  version: "v1",
  kind: "Namespace",
  plural: "namespaces",
  singular: "namespace",
  scope: "Cluster",
  shortNames: ["ns"],
  nameRule: "DNS1123Label",
  statusSubresource: true,
  schema,
  printerColumns: [
    { name: "Status", type: "string", description: "The status of the namespace", cell: (object) => object.status?.phase ?? "" },
    ageColumn(),
  ],
  fieldSelectors: { "status.phase": (object) => object.status?.phase ?? "" },
  strategy: {
    prepareForCreate,
    prepareForUpdate,
    validate: validateNamespaceFinalizers,
    validateUpdate: (object) => [...validateNamespaceFinalizers(object), ...validateNamespacePhase(object)],
    decorate: labelWithName,
    shouldDeleteDuringUpdate: shouldDeleteNamespaceDuringUpdate,
  },
});
