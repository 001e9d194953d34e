import type { KubeObject } from "../api/types.js";
import { milliOf, QUANTITY_FORMAT_MESSAGE, quantityText } from "../api/quantity.js";
import type { FieldError } from "../validation/field-errors.js";
import { childPath, fieldInvalid, fieldNotSupported, indexPath, isQualifiedName, keyPath } from "../validation/index.js";
import { asRecord, defineResource } from "./define.js";
import { ageColumn } from "./printer-columns.js";
import { kindSchema, resourceListSchema } from "./schema-parts.js";

export interface ResourceQuota extends KubeObject {
  spec?: {
    hard?: Record<string, string>;
    scopes?: string[];
    scopeSelector?: { matchExpressions?: Array<{ scopeName?: string; operator?: string; values?: string[] }> };
  };
  status?: { hard?: Record<string, string>; used?: Record<string, string> };
}

/** Quota names kube-apiserver knows without a `/` (`IsStandardQuotaResourceName`). */
const STANDARD_QUOTA_RESOURCES = new Set([
  "cpu",
  "memory",
  "ephemeral-storage",
  "requests.cpu",
  "requests.memory",
  "requests.storage",
  "requests.ephemeral-storage",
  "limits.cpu",
  "limits.memory",
  "limits.ephemeral-storage",
  "pods",
  "resourcequotas",
  "services",
  "replicationcontrollers",
  "secrets",
  "persistentvolumeclaims",
  "configmaps",
  "services.nodeports",
  "services.loadbalancers",
]);

/** Resources counted in whole objects (`IsIntegerResourceName`): their quantities must be integers. */
const INTEGER_RESOURCES = new Set(["pods", "resourcequotas", "services", "replicationcontrollers", "secrets", "persistentvolumeclaims", "configmaps", "services.nodeports", "services.loadbalancers"]);

const STANDARD_SCOPES = ["Terminating", "NotTerminating", "BestEffort", "NotBestEffort", "PriorityClass", "CrossNamespacePodAffinity"];

/**
 * The quota names that count objects of a resource, as the object count evaluators register them:
 * `count/<resource>[.<group>]`, and for the core types that had quota before it the bare plural.
 */
export function objectCountNames(group: string, plural: string): string[] {
  const names = [group === "" ? `count/${plural}` : `count/${plural}.${group}`];
  if (group === "" && INTEGER_RESOURCES.has(plural)) names.push(plural);
  return names;
}

function isHugePages(name: string): boolean {
  return name.startsWith("hugepages-") || name.startsWith("requests.hugepages-");
}

/** `validateResourceQuotaResourceName`: a qualified name, and a standard one unless it has a `/`. */
function validateQuotaResourceName(name: string, field: string): FieldError[] {
  const errors = isQualifiedName(name).map((message) => fieldInvalid(field, name, message));
  if (errors.length > 0) return errors;
  if (!name.includes("/") && !STANDARD_QUOTA_RESOURCES.has(name) && !isHugePages(name)) return [fieldInvalid(field, name, "must be a standard resource for quota")];
  return [];
}

/** `ValidateResourceQuantityValue`: a quantity, not negative, whole for the integer resources. */
function validateQuantity(name: string, value: unknown, field: string): FieldError[] {
  const text = quantityText(value);
  const milli = milliOf(value);
  if (text === undefined || milli === undefined) return [fieldInvalid(field, value, QUANTITY_FORMAT_MESSAGE)];
  if (milli < 0n) return [fieldInvalid(field, text, "must be greater than or equal to 0")];
  if ((INTEGER_RESOURCES.has(name) || name.startsWith("count/")) && milli % 1000n !== 0n) return [fieldInvalid(field, text, "must be an integer")];
  return [];
}

function validateResourceList(list: unknown, field: string): FieldError[] {
  const errors: FieldError[] = [];
  for (const [name, value] of Object.entries(asRecord(list) ?? {})) {
    const path = keyPath(field, name);
    errors.push(...validateQuotaResourceName(name, path), ...validateQuantity(name, value, path));
  }
  return errors;
}

/** `ValidateResourceQuota` (without the pod-only scope rules, which need pods to mean anything). */
export function validateResourceQuota(quota: ResourceQuota): FieldError[] {
  const errors = [...validateResourceList(quota.spec?.hard, "spec.hard"), ...validateResourceList(quota.status?.hard, "status.hard"), ...validateResourceList(quota.status?.used, "status.used")];
  const scopes = quota.spec?.scopes ?? [];
  scopes.forEach((scope, index) => {
    if (!STANDARD_SCOPES.includes(scope)) errors.push(fieldNotSupported(indexPath("spec.scopes", index), scope, STANDARD_SCOPES));
  });
  const conflicting = (a: string, b: string) => scopes.includes(a) && scopes.includes(b);
  if (conflicting("Terminating", "NotTerminating") || conflicting("BestEffort", "NotBestEffort")) {
    errors.push(fieldInvalid("spec.scopes", scopes, "conflicting scopes"));
  }
  (quota.spec?.scopeSelector?.matchExpressions ?? []).forEach((expression, index) => {
    const path = indexPath(childPath("spec.scopeSelector", "matchExpressions"), index);
    if (!STANDARD_SCOPES.includes(expression.scopeName ?? "")) errors.push(fieldNotSupported(childPath(path, "scopeName"), expression.scopeName ?? "", STANDARD_SCOPES));
    if (!["In", "NotIn", "Exists", "DoesNotExist"].includes(expression.operator ?? "")) {
      errors.push(fieldNotSupported(childPath(path, "operator"), expression.operator ?? "", ["In", "NotIn", "Exists", "DoesNotExist"]));
    }
  });
  return errors;
}

/** kubectl's REQUEST / LIMIT cells: `configmaps: 1/10, secrets: 0/5`, request-side resources and `limits.*` apart. */
function usageCell(quota: ResourceQuota, limits: boolean): string {
  const hard = asRecord(quota.status?.hard) ?? {};
  const used = asRecord(quota.status?.used) ?? {};
  return Object.keys(hard)
    .filter((name) => name.startsWith("limits.") === limits)
    .sort()
    .map((name) => `${name}: ${quantityText(used[name]) ?? "0"}/${quantityText(hard[name]) ?? ""}`)
    .join(", ");
}

const schema = kindSchema({
  group: "",
  version: "v1",
  kind: "ResourceQuota",
  description: "ResourceQuota sets aggregate quota restrictions enforced per namespace",
  properties: {
    spec: {
      type: "object",
      description: "Spec defines the desired quota.",
      properties: {
        hard: resourceListSchema("hard is the set of desired hard limits for each named resource."),
        scopes: { type: "array", description: "A collection of filters that must match each object tracked by a quota.", items: { type: "string" }, "x-kubernetes-list-type": "atomic" },
        scopeSelector: {
          type: "object",
          description: "scopeSelector is also a collection of filters like scopes that must match each object tracked by a quota but expressed using ScopeSelectorOperator in combination with possible values.",
          properties: {
            matchExpressions: {
              type: "array",
              description: "A list of scope selector requirements by scope of the resources.",
              items: {
                type: "object",
                required: ["scopeName", "operator"],
                properties: {
                  scopeName: { type: "string", description: "The name of the scope that the selector applies to." },
                  operator: { type: "string", description: "Represents a scope's relationship to a set of values." },
                  values: { type: "array", items: { type: "string" }, "x-kubernetes-list-type": "atomic" },
                },
              },
              "x-kubernetes-list-type": "atomic",
            },
          },
          "x-kubernetes-map-type": "atomic",
        },
      },
    },
    status: {
      type: "object",
      description: "Status defines the actual enforced quota and its current usage.",
      properties: {
        hard: resourceListSchema("Hard is the set of enforced hard limits for each named resource."),
        used: resourceListSchema("Used is the current observed total usage of the resource in the namespace."),
      },
    },
  },
});

/** core/v1 ResourceQuota: enforced by the ResourceQuota admission plugin, its usage kept by the `resourcequota` controller. */
export const resourceQuotasResource = defineResource<ResourceQuota>({
  group: "",
  version: "v1",
  kind: "ResourceQuota",
  plural: "resourcequotas",
  singular: "resourcequota",
  scope: "Namespaced",
  shortNames: ["quota"],
  schema,
  statusSubresource: true,
  printerColumns: [
    ageColumn(),
    { name: "Request", type: "string", description: "Usage of the resources that are not limits.", cell: (quota) => usageCell(quota, false) },
    { name: "Limit", type: "string", description: "Usage of the limits.* resources.", cell: (quota) => usageCell(quota, true) },
  ],
  strategy: {
    validate: validateResourceQuota,
    validateUpdate: (quota) => validateResourceQuota(quota),
  },
});
