import { defineResource } from "../resources/define.js";
import { booleanSchema, int32Schema, kindSchema, stringSchema } from "../resources/schema-parts.js";
import type { ResourceDefinition } from "../registry/rest/resource-definition.js";
import type { JSONSchemaProps } from "../schema/types.js";
import { schemaErrors } from "./schema/index.js";
import { CRD_GROUP, CRD_PLURAL, CRD_VERSION, storageVersionOf, type CustomResourceDefinition } from "./types.js";
import { validateCustomResourceDefinition, validateCustomResourceDefinitionUpdate, type CrdValidationOptions } from "./validation.js";

/** Any JSON object, kept as sent (a JSONSchemaProps document, a subresource marker). */
const anyObject = (description: string): JSONSchemaProps => ({ type: "object", description, "x-kubernetes-preserve-unknown-fields": true });
const stringList = (description: string): JSONSchemaProps => ({
  type: "array",
  description,
  items: { type: "string" },
  "x-kubernetes-list-type": "atomic",
});

const namesSchema = (description: string): JSONSchemaProps => ({
  type: "object",
  description,
  required: ["plural", "kind"],
  properties: {
    categories: stringList(
      "categories is a list of grouped resources this custom resource belongs to (e.g. 'all'). This is published in API discovery documents, and used by clients to support invocations like `kubectl get all`.",
    ),
    kind: stringSchema(
      "kind is the serialized kind of the resource. It is normally CamelCase and singular. Custom resource instances will use this value as the `kind` attribute in API calls.",
    ),
    listKind: stringSchema('listKind is the serialized kind of the list for this resource. Defaults to "`kind`List".'),
    plural: stringSchema(
      "plural is the plural name of the resource to serve. The custom resources are served under `/apis/<group>/<version>/.../<plural>`. Must match the name of the CustomResourceDefinition (in the form `<names.plural>.<group>`). Must be all lowercase.",
    ),
    shortNames: stringList(
      "shortNames are short names for the resource, exposed in API discovery documents, and used by clients to support invocations like `kubectl get <shortname>`. It must be all lowercase.",
    ),
    singular: stringSchema("singular is the singular name of the resource. It must be all lowercase. Defaults to lowercased `kind`."),
  },
});

const conditionSchema: JSONSchemaProps = {
  type: "object",
  description: "CustomResourceDefinitionCondition contains details for the current condition of this pod.",
  required: ["type", "status"],
  properties: {
    lastTransitionTime: {
      type: "string",
      format: "date-time",
      description: "lastTransitionTime last time the condition transitioned from one status to another.",
    },
    message: stringSchema("message is a human-readable message indicating details about last transition."),
    reason: stringSchema("reason is a unique, one-word, CamelCase reason for the condition's last transition."),
    status: stringSchema("status is the status of the condition. Can be True, False, Unknown."),
    type: stringSchema("type is the type of the condition. Types include Established, NamesAccepted and Terminating."),
  },
};

const schema = kindSchema({
  group: CRD_GROUP,
  version: CRD_VERSION,
  kind: "CustomResourceDefinition",
  description:
    "CustomResourceDefinition represents a resource that should be exposed on the API server.  Its name MUST be in the format <.spec.name>.<.spec.group>.",
  required: ["spec"],
  properties: {
    spec: {
      type: "object",
      description: "spec describes how the user wants the resources to appear",
      required: ["group", "names", "scope", "versions"],
      properties: {
        conversion: anyObject("conversion defines conversion settings for the CRD."),
        group: stringSchema(
          "group is the API group of the defined custom resource. The custom resources are served under `/apis/<group>/...`. Must match the name of the CustomResourceDefinition (in the form `<names.plural>.<group>`).",
        ),
        names: namesSchema("names specify the resource and kind names for the custom resource."),
        preserveUnknownFields: booleanSchema(
          "preserveUnknownFields indicates that object fields which are not specified in the OpenAPI schema should be preserved when persisting to storage. apiVersion, kind, metadata and known fields inside metadata are always preserved. This field is deprecated in favor of setting `x-preserve-unknown-fields` to true in `spec.versions[*].schema.openAPIV3Schema`.",
        ),
        scope: stringSchema(
          "scope indicates whether the defined custom resource is cluster- or namespace-scoped. Allowed values are `Cluster` and `Namespaced`.",
        ),
        versions: {
          type: "array",
          "x-kubernetes-list-type": "atomic",
          description:
            "versions is the list of all API versions of the defined custom resource. Version names are used to compute the order in which served versions are listed in API discovery.",
          items: {
            type: "object",
            description: "CustomResourceDefinitionVersion describes a version for CRD.",
            required: ["name", "served", "storage"],
            properties: {
              additionalPrinterColumns: {
                type: "array",
                "x-kubernetes-list-type": "atomic",
                description:
                  "additionalPrinterColumns specifies additional columns returned in Table output. If no columns are specified, a single column displaying the age of the custom resource is used.",
                items: {
                  type: "object",
                  description: "CustomResourceColumnDefinition specifies a column for server side printing.",
                  required: ["name", "type", "jsonPath"],
                  properties: {
                    description: stringSchema("description is a human readable description of this column."),
                    format: stringSchema(
                      "format is an optional OpenAPI type definition for this column. The 'name' format is applied to the primary identifier column to assist in clients identifying column is the resource name.",
                    ),
                    jsonPath: stringSchema(
                      "jsonPath is a simple JSON path (i.e. with array notation) which is evaluated against each custom resource to produce the value for this column.",
                    ),
                    name: stringSchema("name is a human readable name for the column."),
                    priority: int32Schema(
                      "priority is an integer defining the relative importance of this column compared to others. Lower numbers are considered higher priority. Columns that may be omitted in limited space scenarios should be given a priority greater than 0.",
                    ),
                    type: stringSchema("type is an OpenAPI type definition for this column."),
                  },
                },
              },
              deprecated: booleanSchema("deprecated indicates this version of the custom resource API is deprecated."),
              deprecationWarning: stringSchema("deprecationWarning overrides the default warning returned to API clients."),
              name: stringSchema("name is the version name, e.g. “v1”, “v2beta1”, etc."),
              schema: anyObject(
                "schema describes the schema used for validation, pruning, and defaulting of this version of the custom resource.",
              ),
              selectableFields: {
                type: "array",
                "x-kubernetes-list-type": "atomic",
                description:
                  "selectableFields specifies paths to fields that may be used as field selectors. A maximum of 8 selectable fields are allowed.",
                items: {
                  type: "object",
                  required: ["jsonPath"],
                  properties: {
                    jsonPath: stringSchema(
                      "jsonPath is a simple JSON path which is evaluated against each custom resource to produce a field selector value.",
                    ),
                  },
                },
              },
              served: booleanSchema("served is a flag enabling/disabling this version from being served via REST APIs"),
              storage: booleanSchema(
                "storage indicates this version should be used when persisting custom resources to storage. There must be exactly one version with storage=true.",
              ),
              subresources: anyObject("subresources specify what subresources this version of the defined custom resource have."),
            },
          },
        },
      },
    },
    status: {
      type: "object",
      description: "status indicates the actual state of the CustomResourceDefinition",
      properties: {
        acceptedNames: namesSchema(
          "acceptedNames are the names that are actually being used to serve discovery. They may be different than the names in spec.",
        ),
        conditions: {
          type: "array",
          description: "conditions indicate state for particular aspects of a CustomResourceDefinition",
          items: conditionSchema,
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["type"],
        },
        storedVersions: stringList("storedVersions lists all versions of CustomResources that were ever persisted."),
      },
    },
  },
});

/** upstream v1 `SetDefaults_CustomResourceDefinitionSpec`. */
export function defaultCrd(crd: CustomResourceDefinition): void {
  const spec = crd.spec;
  if (spec === undefined || spec === null || typeof spec !== "object") return;
  const names = spec.names;
  if (names !== undefined && names !== null && typeof names === "object") {
    if (!names.singular && typeof names.kind === "string") names.singular = names.kind.toLowerCase();
    if (!names.listKind && names.kind) names.listKind = `${names.kind}List`;
  }
  spec.conversion ??= { strategy: "None" };
  const service = spec.conversion.webhook?.clientConfig?.service;
  if (service !== undefined && service.port === undefined) service.port = 443;
}

/** The storage version joins `status.storedVersions` whenever objects may be written in it. */
function recordStorageVersion(crd: CustomResourceDefinition): void {
  const storage = storageVersionOf(crd);
  if (storage === undefined) return;
  const status = (crd.status ??= {});
  const stored = (status.storedVersions ??= []);
  if (!stored.includes(storage)) stored.push(storage);
}

/**
 * apiextensions.k8s.io/v1 CustomResourceDefinitions with their `/status`, defaulting and
 * upstream's validation. v1 requires structural schemas, so the schema module's structural
 * checks, with the schema module's default, keyword and list-type rules, are validation errors
 * here (`options.schemaErrors` replaces them).
 */
export function customResourceDefinitionsResource(options: CrdValidationOptions = { schemaErrors }): ResourceDefinition {
  return defineResource<CustomResourceDefinition>({
    group: CRD_GROUP,
    version: CRD_VERSION,
    kind: "CustomResourceDefinition",
    plural: CRD_PLURAL,
    singular: "customresourcedefinition",
    scope: "Cluster",
    shortNames: ["crd", "crds"],
    categories: ["api-extensions"],
    schema,
    statusSubresource: true,
    tracksGeneration: true,
    printerColumns: [
      {
        // A timestamp, not an age: upstream's default table convertor prints CRDs this way.
        name: "Created At",
        type: "string",
        format: "date",
        description: "CreationTimestamp is a timestamp representing the server time when this object was created.",
        cell: (crd) => crd.metadata?.creationTimestamp,
      },
    ],
    strategy: {
      prepareForCreate(crd) {
        defaultCrd(crd);
        crd.status = {};
        recordStorageVersion(crd);
      },
      prepareForUpdate(crd) {
        defaultCrd(crd);
        recordStorageVersion(crd);
      },
      validate: (crd) => validateCustomResourceDefinition(crd, options),
      validateUpdate: (crd, old) => validateCustomResourceDefinitionUpdate(crd, old, options),
    },
  });
}
