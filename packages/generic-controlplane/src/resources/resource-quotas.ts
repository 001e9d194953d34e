import type { KubeObject } from "../api/types.js";
import { milliOf, QUANTITY_FORMAT_MESSAGE, quantityText } from "../api/quantity.js";
import type { FieldError } from "../validation/field-errors.js";
import { childPath, fieldInvalid, fieldRequired, isQualifiedName, keyPath } from "../validation/index.js";
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
const INTEGER_RESOURCES = new Set([
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

const STANDARD_SCOPES = ["Terminating", "NotTerminating", "BestEffort", "NotBestEffort", "PriorityClass", "CrossNamespacePodAffinity"];

function isHugePages(name: string): boolean {
  return name.startsWith("hugepages-") || name.startsWith("requests.hugepages-");
}

/** `validateResourceQuotaResourceName`: a qualified name, and a standard one unless it has a `/`. */
function validateQuotaResourceName(name: string, field: string): FieldError[] {
  const errors = isQualifiedName(name).map((message) => fieldInvalid(field, name, message));
  if (errors.length > 0) return errors;
  if (!name.includes("/") && !STANDARD_QUOTA_RESOURCES.has(name) && !isHugePages(name))
    return [fieldInvalid(field, name, "must be a standard resource for quota")];
  return [];
}

/** `ValidateResourceQuantityValue`: a quantity, not negative, whole for the integer resources. */
function validateQuantity(name: string, value: unknown, field: string): FieldError[] {
  const text = quantityText(value);
  const milli = milliOf(value);
  if (text === undefined || milli === undefined) return [fieldInvalid(field, value, QUANTITY_FORMAT_MESSAGE)];
  if (milli < 0n) return [fieldInvalid(field, text, "must be greater than or equal to 0")];
  if ((INTEGER_RESOURCES.has(name) || name.startsWith("count/")) && milli % 1000n !== 0n)
    return [fieldInvalid(field, text, "must be an integer")];
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

/** The resources a scope may limit (`IsResourceQuotaScopeValidForResource`): pod-only scopes limit pods and their cpu and memory. */
const POD_COMPUTE_RESOURCES = new Set(["pods", "cpu", "memory", "limits.cpu", "limits.memory", "requests.cpu", "requests.memory"]);
function scopeValidForResource(scope: string, resource: string): boolean {
  if (scope === "BestEffort") return resource === "pods";
  if (STANDARD_SCOPES.includes(scope)) return POD_COMPUTE_RESOURCES.has(resource);
  return true;
}

/** Standard names under the hard limits that `scope` cannot limit (names with a `/` are not checked, as upstream). */
const unsupportedUnder = (scope: string, hard: readonly string[]): string[] =>
  hard.filter((name) => STANDARD_QUOTA_RESOURCES.has(name) && !scopeValidForResource(scope, name));

const SCOPE_PAIRS = [
  ["BestEffort", "NotBestEffort"],
  ["Terminating", "NotTerminating"],
] as const;

/** `validateResourceQuotaScopes`. */
function validateScopes(quota: ResourceQuota, hard: readonly string[]): FieldError[] {
  const scopes = quota.spec?.scopes ?? [];
  const errors: FieldError[] = [];
  for (const scope of scopes) {
    if (!STANDARD_SCOPES.includes(scope)) errors.push(fieldInvalid("spec.scopes", scopes, "unsupported scope"));
    errors.push(...unsupportedUnder(scope, hard).map(() => fieldInvalid("spec.scopes", scopes, "unsupported scope applied to resource")));
  }
  if (SCOPE_PAIRS.some(([a, b]) => scopes.includes(a) && scopes.includes(b)))
    errors.push(fieldInvalid("spec.scopes", scopes, "conflicting scopes"));
  return errors;
}

const EXISTS_ONLY = ["BestEffort", "NotBestEffort", "Terminating", "NotTerminating", "CrossNamespacePodAffinity"];

/** `validateScopedResourceSelectorRequirement`: upstream names the list, not the entry. */
function validateScopeSelector(quota: ResourceQuota, hard: readonly string[]): FieldError[] {
  const selector = quota.spec?.scopeSelector;
  if (selector === undefined || selector === null) return [];
  const path = childPath("spec.scopeSelector", "matchExpressions");
  const errors: FieldError[] = [];
  const names: string[] = [];
  for (const requirement of selector.matchExpressions ?? []) {
    const scope = requirement.scopeName ?? "";
    const operator = requirement.operator ?? "";
    const values = requirement.values ?? [];
    if (!STANDARD_SCOPES.includes(scope)) errors.push(fieldInvalid(childPath(path, "scopeName"), scope, "unsupported scope"));
    errors.push(...unsupportedUnder(scope, hard).map(() => fieldInvalid(path, selector, "unsupported scope applied to resource")));
    if (EXISTS_ONLY.includes(scope) && operator !== "Exists") {
      errors.push(
        fieldInvalid(
          childPath(path, "operator"),
          operator,
          "must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity",
        ),
      );
    }
    if (operator === "In" || operator === "NotIn") {
      if (values.length === 0)
        errors.push(
          fieldRequired(childPath(path, "values"), "must be at least one value when `operator` is 'In' or 'NotIn' for scope selector"),
        );
    } else if (operator === "Exists" || operator === "DoesNotExist") {
      if (values.length !== 0)
        errors.push(
          fieldInvalid(
            childPath(path, "values"),
            values,
            "must be no value when `operator` is 'Exist' or 'DoesNotExist' for scope selector",
          ),
        );
    } else errors.push(fieldInvalid(childPath(path, "operator"), operator, "not a valid selector operator"));
    names.push(scope);
  }
  if (SCOPE_PAIRS.some(([a, b]) => names.includes(a) && names.includes(b))) errors.push(fieldInvalid(path, selector, "conflicting scopes"));
  return errors;
}

/** `ValidateResourceQuota`: the resource lists, and the scopes against the resources they limit. */
export function validateResourceQuota(quota: ResourceQuota): FieldError[] {
  const hard = Object.keys(asRecord(quota.spec?.hard) ?? {}).sort();
  return [
    ...validateResourceList(quota.spec?.hard, "spec.hard"),
    ...validateScopes(quota, hard),
    ...validateScopeSelector(quota, hard),
    ...validateResourceList(quota.status?.hard, "status.hard"),
    ...validateResourceList(quota.status?.used, "status.used"),
  ];
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
        scopes: {
          type: "array",
          description: "A collection of filters that must match each object tracked by a quota.",
          items: { type: "string" },
          "x-kubernetes-list-type": "atomic",
        },
        scopeSelector: {
          type: "object",
          description:
            "scopeSelector is also a collection of filters like scopes that must match each object tracked by a quota but expressed using ScopeSelectorOperator in combination with possible values.",
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
    {
      name: "Request",
      type: "string",
      description: "Usage of the resources that are not limits.",
      cell: (quota) => usageCell(quota, false),
    },
    { name: "Limit", type: "string", description: "Usage of the limits.* resources.", cell: (quota) => usageCell(quota, true) },
  ],
  strategy: {
    validate: validateResourceQuota,
    validateUpdate: (quota) => validateResourceQuota(quota),
  },
});
