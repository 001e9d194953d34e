import { goType } from "../schema/go-type.js";
import type { JSONSchemaProps } from "../schema/types.js";

/** Prefix of every meta/v1 definition name, as kube-apiserver publishes them. */
export const META_V1 = "io.k8s.apimachinery.pkg.apis.meta.v1";

/** `#/components/schemas/<name>`: the reference form schemas in this package use (OpenAPI v3). */
export function schemaRef(name: string): string {
  return `#/components/schemas/${name}`;
}

/** The definition name a `$ref` points at, for both the v3 (`#/components/schemas/`) and v2 (`#/definitions/`) forms. */
export function refName(ref: string): string {
  const slash = ref.lastIndexOf("/");
  return slash === -1 ? ref : ref.slice(slash + 1);
}

function ref(name: string, description?: string): JSONSchemaProps {
  const schema: JSONSchemaProps = { $ref: schemaRef(`${META_V1}.${name}`) };
  if (description !== undefined) schema.description = description;
  return schema;
}

const stringMap = (description: string): JSONSchemaProps => ({
  type: "object",
  description,
  additionalProperties: { type: "string", default: "" },
});

const API_VERSION: JSONSchemaProps = {
  type: "string",
  description:
    "APIVersion names the versioned schema of this representation of an object. Servers convert recognized schemas to the latest internal value and may reject unrecognized values.",
};
const KIND: JSONSchemaProps = {
  type: "string",
  description:
    "Kind is a string value naming the REST resource this object represents. Servers may infer it from the endpoint the client submits requests to. It cannot be updated and is in CamelCase.",
};

/**
 * The meta/v1 definitions (ObjectMeta, OwnerReference, ManagedFieldsEntry, Time, ListMeta, Status,
 * DeleteOptions, WatchEvent, Patch …) with upstream's strategic-merge extensions. Strategic merge
 * patch resolves `$ref`s into them (so `ownerReferences` merge by `uid` and `finalizers` merge as a
 * set), unknown-field detection walks them, and both OpenAPI documents publish them.
 */
export const patchMetaSchemas: Readonly<Record<string, JSONSchemaProps>> = {
  [`${META_V1}.Time`]: {
    type: "string",
    format: "date-time",
    description: "A timestamp in RFC 3339 form with second precision, e.g. 2006-01-02T15:04:05Z.",
  },
  [`${META_V1}.MicroTime`]: {
    type: "string",
    format: "date-time",
    description: "A timestamp in RFC 3339 form with microsecond precision.",
  },
  [`${META_V1}.FieldsV1`]: {
    type: "object",
    description:
      "FieldsV1 stores a set of fields as a JSON trie: each key is a field (`f:<name>`), a map key (`k:<keys>`), a list value (`v:<value>`) or an item index (`i:<index>`), and each value is the trie of its sub-fields.",
    "x-kubernetes-preserve-unknown-fields": true,
  },
  [`${META_V1}.OwnerReference`]: {
    type: "object",
    description:
      "OwnerReference names an object that owns this one. The owner must be in the same namespace as the dependent, or cluster-scoped; the garbage collector deletes dependents whose owners are gone.",
    required: ["apiVersion", "kind", "name", "uid"],
    properties: {
      apiVersion: { type: "string", default: "", description: "API version of the referent." },
      blockOwnerDeletion: {
        type: "boolean",
        description:
          "If true and the owner has the foregroundDeletion finalizer, the owner cannot be deleted from storage until this reference is removed. Defaults to false.",
      },
      controller: { type: "boolean", description: "If true, this reference points to the managing controller." },
      kind: { type: "string", default: "", description: "Kind of the referent." },
      name: { type: "string", default: "", description: "Name of the referent." },
      uid: goType("types.UID", { type: "string", default: "", description: "UID of the referent." }),
    },
    "x-kubernetes-map-type": "atomic",
  },
  [`${META_V1}.ManagedFieldsEntry`]: {
    type: "object",
    description:
      "ManagedFieldsEntry records which fields a workflow (field manager) owns, at which API version, and through which operation.",
    properties: {
      apiVersion: {
        type: "string",
        description: "The version of the resource the field set applies to; tracked because field names change between versions.",
      },
      fieldsType: { type: "string", description: 'The format of the fields field; the only one defined is "FieldsV1".' },
      fieldsV1: ref("FieldsV1", "The field set, in FieldsV1 form."),
      manager: { type: "string", description: "The identifier of the workflow managing these fields." },
      operation: goType("v1.ManagedFieldsOperationType", {
        type: "string",
        description: "The kind of operation that produced this entry: Apply or Update.",
      }),
      subresource: {
        type: "string",
        description: "The subresource used to update the object, or empty for the main resource.",
      },
      time: ref("Time", "When the fields were last changed by this manager."),
    },
  },
  [`${META_V1}.ObjectMeta`]: {
    type: "object",
    description: "ObjectMeta is the metadata every persisted resource carries, including objects users create.",
    properties: {
      annotations: stringMap(
        "Annotations is an unstructured key value map set by external tools to store and retrieve arbitrary metadata. They are not queryable and are preserved when modifying objects.",
      ),
      creationTimestamp: ref(
        "Time",
        "CreationTimestamp is the server time when this object was created. Set by the system; read-only; clients may not set it.",
      ),
      deletionGracePeriodSeconds: {
        type: "integer",
        format: "int64",
        description:
          "Seconds allowed for this object to terminate gracefully before it is removed. Only set when deletionTimestamp is set. Read-only.",
      },
      deletionTimestamp: ref(
        "Time",
        "DeletionTimestamp is the time after which this resource will be deleted, set by the server when a graceful deletion is requested. The object stays visible until its finalizers are gone. Read-only.",
      ),
      finalizers: {
        type: "array",
        description:
          "Finalizers must be empty before the object is deleted from the registry. Each entry names a component responsible for removing it. Once deletionTimestamp is set, entries can only be removed. Order is not significant.",
        items: { type: "string", default: "" },
        "x-kubernetes-list-type": "set",
        "x-kubernetes-patch-strategy": "merge",
      },
      generateName: {
        type: "string",
        description:
          "GenerateName is an optional prefix the server uses to generate a unique name when name is not provided, by appending a random suffix.",
      },
      generation: {
        type: "integer",
        format: "int64",
        description: "A sequence number representing a specific generation of the desired state. Set by the system; read-only.",
      },
      labels: stringMap(
        "Map of string keys and values that can be used to organize and categorize (scope and select) objects. Label selectors match on them.",
      ),
      managedFields: {
        type: "array",
        description:
          "ManagedFields maps workflow-id and version to the set of fields that workflow manages. Mostly for internal housekeeping; users typically need not set or understand it.",
        items: ref("ManagedFieldsEntry"),
        "x-kubernetes-list-type": "atomic",
      },
      name: {
        type: "string",
        description:
          "Name must be unique within a namespace. It is required when creating resources, although some resources allow a client to request a generated name. Cannot be updated.",
      },
      namespace: {
        type: "string",
        description:
          'Namespace defines the space within which each name must be unique. An empty namespace is equivalent to "default"; cluster-scoped objects have none. Cannot be updated.',
      },
      ownerReferences: {
        type: "array",
        description:
          "List of objects this object depends on. When all of them are deleted, this object is garbage collected. At most one entry may have controller set to true.",
        items: ref("OwnerReference"),
        "x-kubernetes-list-map-keys": ["uid"],
        "x-kubernetes-list-type": "map",
        "x-kubernetes-patch-merge-key": "uid",
        "x-kubernetes-patch-strategy": "merge",
      },
      resourceVersion: {
        type: "string",
        description:
          "An opaque value representing the internal version of this object, used for optimistic concurrency, change detection and watch. Clients must treat it as opaque and pass it back unmodified.",
      },
      selfLink: { type: "string", description: "Deprecated: no longer populated by the system." },
      uid: goType("types.UID", {
        type: "string",
        description: "UID is the unique identifier of this object in time and space. Generated by the server on create; read-only.",
      }),
    },
  },
  [`${META_V1}.ListMeta`]: {
    type: "object",
    description: "ListMeta describes metadata that synthetic resources such as lists must have.",
    properties: {
      continue: {
        type: "string",
        description:
          "Set when the list was truncated by a limit: pass it back as the continue parameter to get the next set of results. It may expire, in which case the server answers 410 Expired.",
      },
      remainingItemCount: {
        type: "integer",
        format: "int64",
        description: "The number of items after this list when a limit was applied; an estimate the server may omit.",
      },
      resourceVersion: {
        type: "string",
        description: "The version of the collection, used to start a watch from exactly this point.",
      },
      selfLink: { type: "string", description: "Deprecated: no longer populated by the system." },
    },
  },
  [`${META_V1}.StatusCause`]: {
    type: "object",
    description: "StatusCause gives more information about one part of an API failure.",
    properties: {
      field: {
        type: "string",
        description: "The field of the resource that caused this error, in JSON path form, e.g. spec.containers[0].name.",
      },
      message: { type: "string", description: "A human-readable description of the cause." },
      reason: { type: "string", description: "A machine-readable description of the cause. Empty when unknown." },
    },
  },
  [`${META_V1}.StatusDetails`]: {
    type: "object",
    description: "StatusDetails is a set of additional properties a server may set to report a failure in more detail.",
    properties: {
      causes: {
        type: "array",
        description: "Extended data about the failure.",
        items: ref("StatusCause"),
        "x-kubernetes-list-type": "atomic",
      },
      group: { type: "string", description: "The group of the resource the failure concerns." },
      kind: { type: "string", description: "The kind (resource) of the object the failure concerns." },
      name: { type: "string", description: "The name of the object the failure concerns." },
      retryAfterSeconds: {
        type: "integer",
        format: "int32",
        description: "How long the client should wait before retrying, when the failure is temporary.",
      },
      uid: { type: "string", description: "The UID of the object the failure concerns." },
    },
  },
  [`${META_V1}.Status`]: {
    type: "object",
    description: "Status is the return value for calls that do not return other objects, and for every failure.",
    properties: {
      apiVersion: API_VERSION,
      code: { type: "integer", format: "int32", description: "The HTTP status code of this status, 0 if not set." },
      details: ref("StatusDetails", "Extended data associated with the reason. Each reason may define its own details."),
      kind: KIND,
      message: { type: "string", description: "A human-readable description of this status." },
      metadata: ref("ListMeta", "Standard list metadata."),
      reason: {
        type: "string",
        description: 'A machine-readable reason why this operation failed ("NotFound", "Conflict", …). Empty means no further information.',
      },
      status: { type: "string", description: 'Either "Success" or "Failure".' },
    },
  },
  [`${META_V1}.Preconditions`]: {
    type: "object",
    description: "Preconditions must be fulfilled before an operation (update, delete, …) is carried out.",
    properties: {
      resourceVersion: { type: "string", description: "The target resourceVersion." },
      uid: goType("types.UID", { type: "string", description: "The target UID." }),
    },
  },
  [`${META_V1}.DeleteOptions`]: {
    type: "object",
    description: "DeleteOptions may be provided when deleting an API object.",
    properties: {
      apiVersion: API_VERSION,
      dryRun: {
        type: "array",
        description: "When present, modifications are not persisted. The only valid value is All.",
        items: { type: "string", default: "" },
        "x-kubernetes-list-type": "atomic",
      },
      gracePeriodSeconds: {
        type: "integer",
        format: "int64",
        description: "The duration in seconds before the object is deleted. Zero means delete immediately.",
      },
      kind: KIND,
      orphanDependents: {
        type: "boolean",
        description: "Deprecated: use propagationPolicy. Whether dependents should be orphaned.",
      },
      preconditions: ref("Preconditions", "Must be fulfilled before a deletion is carried out; otherwise the server answers 409 Conflict."),
      propagationPolicy: {
        type: "string",
        description: "Whether and how garbage collection is performed: Orphan, Background or Foreground.",
      },
    },
  },
  [`${META_V1}.WatchEvent`]: {
    type: "object",
    description: "Event represents a single event to a watched resource.",
    required: ["type", "object"],
    properties: {
      object: {
        type: "object",
        description:
          "Object is the object that changed: the new state for ADDED and MODIFIED, the last state for DELETED, a Status for ERROR, and an object carrying only the resourceVersion for BOOKMARK.",
        "x-kubernetes-preserve-unknown-fields": true,
        "x-kubernetes-embedded-resource": true,
      },
      type: { type: "string", default: "", description: "ADDED, MODIFIED, DELETED, BOOKMARK or ERROR." },
    },
  },
  [`${META_V1}.Patch`]: {
    type: "object",
    description: "Patch is provided to give a concrete name and type to the Kubernetes PATCH request body.",
  },
};

/** The schema a `$ref` names, from `patchMetaSchemas` or the extra definitions given. */
export function resolveRef(
  reference: string,
  definitions: Readonly<Record<string, JSONSchemaProps>> = patchMetaSchemas,
): JSONSchemaProps | undefined {
  const name = refName(reference);
  return definitions[name] ?? patchMetaSchemas[name];
}

/** The ObjectMeta reference with the description kube-apiserver gives `metadata` fields. */
export function objectMetaProperty(): JSONSchemaProps {
  return ref(
    "ObjectMeta",
    "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
  );
}

export { API_VERSION as apiVersionProperty, KIND as kindProperty };
