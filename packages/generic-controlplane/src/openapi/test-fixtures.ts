import type { ResourceDefinition } from "../registry/rest/resource-definition.js";

/** Small resource definitions the discovery and OpenAPI tests build documents from. */
export const testConfigMaps: ResourceDefinition = {
  group: "",
  version: "v1",
  kind: "ConfigMap",
  plural: "configmaps",
  singular: "configmap",
  scope: "Namespaced",
  shortNames: ["cm"],
  schema: {
    type: "object",
    description: "ConfigMap holds configuration data for pods to consume.",
    properties: {
      apiVersion: { type: "string", description: "APIVersion defines the versioned schema of this representation of an object." },
      kind: { type: "string", description: "Kind is a string value representing the REST resource this object represents." },
      metadata: {
        $ref: "#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta",
        description: "Standard object's metadata.",
      },
      data: {
        type: "object",
        description: "Data contains the configuration data. Each key must consist of alphanumeric characters, '-', '_' or '.'.",
        additionalProperties: { type: "string", default: "" },
      },
      binaryData: {
        type: "object",
        description: "BinaryData contains the binary data.",
        additionalProperties: { type: "string", format: "byte" },
      },
      immutable: {
        type: "boolean",
        description: "Immutable, if set to true, ensures that data stored in the ConfigMap cannot be updated.",
      },
    },
  },
};

export const testNamespaces: ResourceDefinition = {
  group: "",
  version: "v1",
  kind: "Namespace",
  plural: "namespaces",
  singular: "namespace",
  scope: "Cluster",
  shortNames: ["ns"],
  statusSubresource: true,
  nameRule: "DNS1123Label",
  schema: {
    type: "object",
    description: "Namespace provides a scope for Names.",
    properties: {
      metadata: { type: "object" },
      spec: {
        type: "object",
        description: "Spec defines the behavior of the Namespace.",
        properties: {
          finalizers: {
            type: "array",
            description: "Finalizers is an opaque list of values that must be empty to permanently remove object from storage.",
            items: { type: "string", default: "" },
            "x-kubernetes-list-type": "atomic",
          },
        },
      },
      status: {
        type: "object",
        description: "Status describes the current status of a Namespace.",
        properties: { phase: { type: "string", description: "Phase is the current lifecycle phase of the namespace." } },
      },
    },
  },
};

export const testLeases: ResourceDefinition = {
  group: "coordination.k8s.io",
  version: "v1",
  kind: "Lease",
  plural: "leases",
  singular: "lease",
  scope: "Namespaced",
  schema: {
    type: "object",
    description: "Lease defines a lease concept.",
    properties: {
      metadata: { type: "object" },
      spec: {
        type: "object",
        description: "spec contains the specification of the Lease.",
        properties: {
          holderIdentity: { type: "string", description: "holderIdentity contains the identity of the holder of a current lease." },
          leaseDurationSeconds: {
            type: "integer",
            format: "int32",
            description: "leaseDurationSeconds is a duration that candidates for a lease need to wait to force acquire it.",
          },
        },
      },
    },
  },
};

export const testWidgetsV1beta1: ResourceDefinition = {
  group: "widgets.example.com",
  version: "v1beta1",
  kind: "Widget",
  plural: "widgets",
  singular: "widget",
  scope: "Namespaced",
  categories: ["all"],
  statusSubresource: true,
};

export const testWidgetsV1: ResourceDefinition = { ...testWidgetsV1beta1, version: "v1", shortNames: ["wd"] };

export const testDefinitions: ResourceDefinition[] = [testNamespaces, testConfigMaps, testLeases, testWidgetsV1beta1, testWidgetsV1];
