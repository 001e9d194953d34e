import { goType } from "../schema/go-type.js";
import type { JSONSchemaProps } from "../schema/types.js";

/**
 * Schema fragments shared by the built-in types, mirroring the definitions upstream publishes.
 * Sub-objects are inlined (rather than `$ref`ed) so strategic merge patch and unknown-field
 * detection can read their `x-kubernetes-*` extensions without resolving references; only
 * ObjectMeta is a reference, to the definition the OpenAPI documents publish.
 */

export const OBJECT_META_REF = "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

export function objectMetaSchema(): JSONSchemaProps {
  return {
    $ref: OBJECT_META_REF,
    description:
      "Standard object metadata: name, namespace, labels, annotations and the fields the server maintains. See https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata",
  };
}

export function timeSchema(description: string): JSONSchemaProps {
  return goType("v1.Time", {
    type: "string",
    format: "date-time",
    description: `${description} An RFC 3339 timestamp with second precision.`,
  });
}

export function microTimeSchema(description: string): JSONSchemaProps {
  return goType("v1.MicroTime", {
    type: "string",
    format: "date-time",
    description: `${description} An RFC 3339 timestamp with microsecond precision.`,
  });
}

/** A `ResourceList` (`map[ResourceName]resource.Quantity`): quantities as JSON strings or integers. */
export function resourceListSchema(description: string): JSONSchemaProps {
  return {
    type: "object",
    description,
    additionalProperties: { "x-kubernetes-int-or-string": true, anyOf: [{ type: "integer" }, { type: "string" }] },
  };
}

/** A `[]string` kube replaces whole (`x-kubernetes-list-type: atomic`). */
export function stringListSchema(description: string): JSONSchemaProps {
  return { type: "array", description, items: { type: "string", default: "" }, "x-kubernetes-list-type": "atomic" };
}

/** A `metav1.LabelSelector` field, with upstream's descriptions of its parts. */
export function labelSelectorSchema(description: string): JSONSchemaProps {
  return {
    type: "object",
    description,
    "x-kubernetes-map-type": "atomic",
    properties: {
      matchExpressions: {
        type: "array",
        description: "matchExpressions is a list of label selector requirements. The requirements are ANDed.",
        "x-kubernetes-list-type": "atomic",
        items: {
          type: "object",
          required: ["key", "operator"],
          properties: {
            key: stringSchema("key is the label key that the selector applies to."),
            operator: stringSchema(
              "operator represents a key's relationship to a set of values. Valid operators are In, NotIn, Exists and DoesNotExist.",
            ),
            values: stringListSchema(
              "values is an array of string values. If the operator is In or NotIn, the values array must be non-empty. If the operator is Exists or DoesNotExist, the values array must be empty. This array is replaced during a strategic merge patch.",
            ),
          },
        },
      },
      matchLabels: {
        type: "object",
        description:
          'matchLabels is a map of {key,value} pairs. A single {key,value} in the matchLabels map is equivalent to an element of matchExpressions, whose key field is "key", the operator is "In", and the values array contains only "value". The requirements are ANDed.',
        additionalProperties: { type: "string", default: "" },
      },
    },
  };
}

export function stringSchema(description: string): JSONSchemaProps {
  return { type: "string", description };
}

export function int32Schema(description: string): JSONSchemaProps {
  return { type: "integer", format: "int32", description };
}

export function booleanSchema(description: string): JSONSchemaProps {
  return { type: "boolean", description };
}

export function objectReferenceSchema(description: string): JSONSchemaProps {
  return goType("v1.ObjectReference", {
    type: "object",
    description,
    "x-kubernetes-map-type": "atomic",
    properties: {
      apiVersion: stringSchema("API version of the referent."),
      fieldPath: stringSchema(
        'If referring to a piece of an object instead of an entire object, a JSONPath-like expression naming it, e.g. "spec.containers{name}" or "spec.containers[2]".',
      ),
      kind: stringSchema(
        "Kind of the referent. See https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds",
      ),
      name: stringSchema("Name of the referent. See https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names"),
      namespace: stringSchema(
        "Namespace of the referent. See https://kubernetes.io/docs/concepts/overview/working-with-objects/namespaces/",
      ),
      resourceVersion: stringSchema("Specific resourceVersion of the referent, if any."),
      uid: goType(
        "types.UID",
        stringSchema("UID of the referent. See https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#uids"),
      ),
    },
  });
}

export function localObjectReferenceSchema(description: string): JSONSchemaProps {
  return goType("v1.LocalObjectReference", {
    type: "object",
    description,
    "x-kubernetes-map-type": "atomic",
    properties: {
      name: {
        type: "string",
        default: "",
        description:
          "Name of the referent. An empty value is allowed only for compatibility. See https://kubernetes.io/docs/concepts/overview/working-with-objects/names/#names",
      },
    },
  });
}

export function eventSourceSchema(description: string): JSONSchemaProps {
  return goType("v1.EventSource", {
    type: "object",
    description,
    properties: {
      component: stringSchema("Component from which the event is generated."),
      host: stringSchema("Node name on which the event is generated."),
    },
  });
}

export interface KindSchemaOptions {
  group: string;
  version: string;
  kind: string;
  description: string;
  properties: Record<string, JSONSchemaProps>;
  required?: string[];
}

/** The top-level schema of an object kind: apiVersion, kind, metadata and its own fields. */
export function kindSchema(options: KindSchemaOptions): JSONSchemaProps {
  const schema: JSONSchemaProps = {
    type: "object",
    description: options.description,
    properties: {
      apiVersion: stringSchema(
        "The versioned schema of this representation of an object. Servers convert recognized schemas to the latest internal value and may reject unrecognized values. See https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources",
      ),
      kind: stringSchema(
        "The REST resource this object represents, in CamelCase. Servers may infer it from the endpoint the client submits requests to; it cannot be updated. See https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds",
      ),
      metadata: objectMetaSchema(),
      ...options.properties,
    },
    "x-kubernetes-group-version-kind": [{ group: options.group, version: options.version, kind: options.kind }],
  };
  if (options.required !== undefined) schema.required = options.required;
  return schema;
}
