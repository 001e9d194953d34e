import type { JSONSchemaProps } from "@kubekit/generic-controlplane/registry";

/**
 * Schema fragments for the workload types. The fields this package reads, validates or merges
 * are declared with upstream's types and list extensions (so strategic merge patch merges
 * containers by name); the many fields it only stores are kept by
 * `x-kubernetes-preserve-unknown-fields` rather than declared one by one.
 */

export const OBJECT_META_REF = "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta";

export function objectMeta(): JSONSchemaProps {
  return { $ref: OBJECT_META_REF, description: "Standard object's metadata." };
}

export function str(description: string): JSONSchemaProps {
  return { type: "string", description };
}

export function int32(description: string): JSONSchemaProps {
  return { type: "integer", format: "int32", description };
}

export function bool(description: string): JSONSchemaProps {
  return { type: "boolean", description };
}

export function stringMap(description: string): JSONSchemaProps {
  return { type: "object", description, additionalProperties: { type: "string" } };
}

/** An object whose fields beyond those declared are kept as sent. */
export function open(description: string, properties: Record<string, JSONSchemaProps> = {}, extra: Partial<JSONSchemaProps> = {}): JSONSchemaProps {
  return { type: "object", description, properties, "x-kubernetes-preserve-unknown-fields": true, ...extra };
}

/** A list of objects merged by `key` (strategic merge patch and server-side apply). */
export function mapList(description: string, key: string, items: JSONSchemaProps): JSONSchemaProps {
  return {
    type: "array",
    description,
    items,
    "x-kubernetes-list-type": "map",
    "x-kubernetes-list-map-keys": [key],
    "x-kubernetes-patch-merge-key": key,
    "x-kubernetes-patch-strategy": "merge",
  };
}

export function quantityMap(description: string): JSONSchemaProps {
  return { type: "object", description, additionalProperties: { "x-kubernetes-int-or-string": true, anyOf: [{ type: "integer" }, { type: "string" }] } };
}

export function intOrString(description: string): JSONSchemaProps {
  return { "x-kubernetes-int-or-string": true, anyOf: [{ type: "integer" }, { type: "string" }], description };
}

export function labelSelector(description: string): JSONSchemaProps {
  return {
    type: "object",
    description,
    "x-kubernetes-map-type": "atomic",
    properties: {
      matchLabels: stringMap("matchLabels is a map of {key,value} pairs."),
      matchExpressions: {
        type: "array",
        description: "matchExpressions is a list of label selector requirements. The requirements are ANDed.",
        items: {
          type: "object",
          required: ["key", "operator"],
          properties: {
            key: str("key is the label key that the selector applies to."),
            operator: str("operator represents a key's relationship to a set of values. Valid operators are In, NotIn, Exists and DoesNotExist."),
            values: { type: "array", items: { type: "string" }, description: "values is an array of string values." },
          },
        },
      },
    },
  };
}

export function conditions(description: string): JSONSchemaProps {
  return mapList(description, "type", open("A condition.", { type: str("Type of condition."), status: str("Status of the condition: True, False or Unknown.") }));
}

/** The schema of a kind: apiVersion, kind, metadata plus `properties`. */
export function kindSchema(group: string, version: string, kind: string, description: string, properties: Record<string, JSONSchemaProps>): JSONSchemaProps {
  return {
    type: "object",
    description,
    "x-kubernetes-group-version-kind": [{ group, version, kind }],
    properties: {
      apiVersion: str("APIVersion defines the versioned schema of this representation of an object."),
      kind: str("Kind is a string value representing the REST resource this object represents."),
      metadata: objectMeta(),
      ...properties,
    },
  };
}
