import type { JSONSchemaProps } from "../schema/types.js";
import { defineResource } from "../resources/define.js";
import { ageColumn } from "../resources/printer-columns.js";
import { booleanSchema, int32Schema, kindSchema, stringSchema } from "../resources/schema-parts.js";
import { childPath, fieldInvalid, fieldRequired, type FieldError } from "../validation/field-errors.js";
import { isDNS1035Label, isDNS1123Subdomain } from "@kubekit/apimachinery";
import type { APIService } from "./types.js";

export const APIREGISTRATION_GROUP = "apiregistration.k8s.io";

/** kube-aggregator `ValidateAPIService`: name, group, version, priorities, and Local versus service-backed fields. */
function validateAPIService(apiService: APIService): FieldError[] {
  const errors: FieldError[] = [];
  const spec = apiService.spec ?? {};
  const group = spec.group ?? "";
  const version = spec.version ?? "";
  const name = apiService.metadata?.name ?? "";
  if (name !== `${version}.${group}`) errors.push(fieldInvalid("metadata.name", name, 'must be `spec.version+"."+spec.group`'));
  if (group === "" && version !== "v1")
    errors.push(fieldRequired("spec.group", "only v1 may have an empty group and it better be legacy kube"));
  if (group !== "") for (const problem of isDNS1123Subdomain(group)) errors.push(fieldInvalid("spec.group", group, problem));
  if (version === "") errors.push(fieldRequired("spec.version"));
  else for (const problem of isDNS1035Label(version)) errors.push(fieldInvalid("spec.version", version, problem));
  const groupPriority = spec.groupPriorityMinimum ?? 0;
  if (groupPriority <= 0 || groupPriority > 20000)
    errors.push(fieldInvalid("spec.groupPriorityMinimum", groupPriority, "must be positive and less than 20000"));
  const versionPriority = spec.versionPriority ?? 0;
  if (versionPriority <= 0 || versionPriority > 1000)
    errors.push(fieldInvalid("spec.versionPriority", versionPriority, "must be positive and less than 1000"));
  const caBytes = spec.caBundle ? Buffer.from(spec.caBundle, "base64").length : 0;
  if (spec.service === undefined) {
    if (caBytes > 0) errors.push(fieldInvalid("spec.caBundle", `${caBytes} bytes`, "local APIServices may not have a caBundle"));
    if (spec.insecureSkipTLSVerify === true)
      errors.push(fieldInvalid("spec.insecureSkipTLSVerify", true, "local APIServices may not have insecureSkipTLSVerify"));
    return errors;
  }
  const service = spec.service;
  if (!service.namespace) errors.push(fieldRequired(childPath("spec.service", "namespace")));
  if (!service.name) errors.push(fieldRequired(childPath("spec.service", "name")));
  const port = service.port ?? 443;
  if (!Number.isInteger(port) || port < 1 || port > 65535)
    errors.push(fieldInvalid("spec.service.port", port, "port is not valid: must be between 1 and 65535, inclusive"));
  if (spec.insecureSkipTLSVerify === true && caBytes > 0)
    errors.push(fieldInvalid("spec.insecureSkipTLSVerify", true, "may not be true if caBundle is present"));
  return errors;
}

function availableColumn(apiService: APIService): string {
  const condition = apiService.status?.conditions?.find((c) => c.type === "Available");
  if (condition === undefined) return "Unknown";
  return condition.status === "True" ? "True" : `${condition.status} (${condition.reason ?? ""})`;
}

const conditionsSchema: JSONSchemaProps = {
  type: "array",
  description: "Current service state of apiService.",
  "x-kubernetes-list-type": "map",
  "x-kubernetes-list-map-keys": ["type"],
  "x-kubernetes-patch-merge-key": "type",
  "x-kubernetes-patch-strategy": "merge",
  items: {
    type: "object",
    required: ["type", "status"],
    properties: {
      lastTransitionTime: {
        type: "string",
        format: "date-time",
        description: "Last time the condition transitioned from one status to another.",
      },
      message: stringSchema("Human-readable message indicating details about last transition."),
      reason: stringSchema("Unique, one-word, CamelCase reason for the condition's last transition."),
      status: stringSchema("Status is the status of the condition. Can be True, False, Unknown."),
      type: stringSchema("Type is the type of the condition."),
    },
  },
};

/** apiregistration.k8s.io/v1 APIService, with its `/status` subresource. */
export const apiServicesResource = defineResource<APIService>({
  group: APIREGISTRATION_GROUP,
  version: "v1",
  kind: "APIService",
  plural: "apiservices",
  singular: "apiservice",
  scope: "Cluster",
  categories: ["api-extensions"],
  // `v1.` (the core group's) is no DNS subdomain: upstream only requires a valid path segment.
  nameRule: "PathSegment",
  statusSubresource: true,
  schema: kindSchema({
    group: APIREGISTRATION_GROUP,
    version: "v1",
    kind: "APIService",
    description: 'APIService represents a server for a particular GroupVersion. Name must be "version.group".',
    properties: {
      spec: {
        type: "object",
        description: "Spec contains information for locating and communicating with a server",
        properties: {
          caBundle: {
            type: "string",
            format: "byte",
            description:
              "CABundle is a PEM encoded CA bundle which will be used to validate an API server's serving certificate. If unspecified, system trust roots on the apiserver are used.",
            "x-kubernetes-list-type": "atomic",
          },
          group: stringSchema("Group is the API group name this server hosts"),
          groupPriorityMinimum: int32Schema(
            "GroupPriorityMinimum is the priority this group should have at least. Higher priority means that the group is preferred by clients over lower priority ones.",
          ),
          insecureSkipTLSVerify: booleanSchema(
            "InsecureSkipTLSVerify disables TLS certificate verification when communicating with this server. This is strongly discouraged.",
          ),
          service: {
            type: "object",
            description:
              "Service is a reference to the service for this API server. It must communicate on port 443. If the Service is nil, that means the handling for the API groupversion is handled locally on this server.",
            properties: {
              name: stringSchema("Name is the name of the service"),
              namespace: stringSchema("Namespace is the namespace of the service"),
              port: int32Schema(
                "If specified, the port on the service that hosting webhook. Default to 443 for backward compatibility. `port` should be a valid port number (1-65535, inclusive).",
              ),
            },
          },
          version: stringSchema('Version is the API version this server hosts.  For example, "v1"'),
          versionPriority: int32Schema(
            "VersionPriority controls the ordering of this API version inside of its group. Must be greater than zero.",
          ),
        },
      },
      status: {
        type: "object",
        description: "Status contains derived information about an API server",
        properties: { conditions: conditionsSchema },
      },
    },
  }),
  printerColumns: [
    {
      name: "Service",
      type: "string",
      description: "The service that serves the group version, or Local.",
      cell: (o) => (o.spec?.service ? `${o.spec.service.namespace ?? ""}/${o.spec.service.name ?? ""}` : "Local"),
    },
    { name: "Available", type: "string", description: "Whether the group version is available.", cell: availableColumn },
    ageColumn(),
  ],
  strategy: {
    prepareForCreate(object) {
      const service = object.spec?.service;
      if (service !== undefined) service.port ??= 443;
    },
    prepareForUpdate(object) {
      const service = object.spec?.service;
      if (service !== undefined) service.port ??= 443;
    },
    validate: validateAPIService,
    validateUpdate: validateAPIService,
  },
});
