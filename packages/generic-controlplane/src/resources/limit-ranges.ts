import type { KubeObject } from "../api/types.js";
import { milliOf, QUANTITY_FORMAT_MESSAGE, quantityText } from "../api/quantity.js";
import type { FieldError } from "../validation/field-errors.js";
import { childPath, fieldDuplicate, fieldInvalid, fieldRequired, indexPath, isQualifiedName, keyPath } from "../validation/index.js";
import { asRecord, defineResource } from "./define.js";
import { kindSchema, resourceListSchema } from "./schema-parts.js";
import { ownValue, setOwn } from "../patch/json-value.js";

export type ResourceList = Record<string, string>;

export interface LimitRangeItem {
  type?: string;
  max?: ResourceList;
  min?: ResourceList;
  default?: ResourceList;
  defaultRequest?: ResourceList;
  maxLimitRequestRatio?: ResourceList;
}

export interface LimitRange extends KubeObject {
  spec?: { limits?: LimitRangeItem[] };
}

const LIST_FIELDS = ["max", "min", "default", "defaultRequest", "maxLimitRequestRatio"] as const;

/** Resource names a container or pod can be limited in without a domain (`IsStandardContainerResourceName` and friends). */
const STANDARD_RESOURCES = new Set(["cpu", "memory", "ephemeral-storage", "storage"]);

/**
 * `SetDefaults_LimitRangeItem` for Container items: the default limit falls back to the max, the
 * default request to the default limit, then to the min.
 */
function applyDefaults(range: LimitRange): void {
  for (const item of range.spec?.limits ?? []) {
    if (item.type !== "Container") continue;
    const limits = { ...(item.default ?? {}) };
    for (const [name, value] of Object.entries(item.max ?? {})) if (ownValue(limits, name) === undefined) setOwn(limits, name, value);
    const requests = { ...(item.defaultRequest ?? {}) };
    for (const [name, value] of Object.entries(limits)) if (ownValue(requests, name) === undefined) setOwn(requests, name, value);
    for (const [name, value] of Object.entries(item.min ?? {})) if (ownValue(requests, name) === undefined) setOwn(requests, name, value);
    if (Object.keys(limits).length > 0) item.default = limits;
    if (Object.keys(requests).length > 0) item.defaultRequest = requests;
  }
}

function validateResourceName(name: string, field: string): FieldError[] {
  const errors = isQualifiedName(name).map((message) => fieldInvalid(field, name, message));
  if (errors.length > 0) return errors;
  if (!name.includes("/") && !STANDARD_RESOURCES.has(name) && !name.startsWith("hugepages-"))
    return [fieldInvalid(field, name, "must be a standard limit type or fully qualified")];
  return [];
}

/** `ValidateLimitRange`: types, resource names, quantities, and min ≤ default request ≤ default ≤ max with a ratio of at least 1. */
export function validateLimitRange(range: LimitRange): FieldError[] {
  const errors: FieldError[] = [];
  const seenTypes = new Set<string>();
  (range.spec?.limits ?? []).forEach((item, index) => {
    const path = indexPath("spec.limits", index);
    const type = item.type ?? "";
    if (type === "") errors.push(fieldRequired(childPath(path, "type")));
    else if (seenTypes.has(type)) errors.push(fieldDuplicate(childPath(path, "type"), type));
    seenTypes.add(type);
    const values: Record<(typeof LIST_FIELDS)[number], Map<string, bigint>> = {
      max: new Map(),
      min: new Map(),
      default: new Map(),
      defaultRequest: new Map(),
      maxLimitRequestRatio: new Map(),
    };
    for (const field of LIST_FIELDS) {
      for (const [name, value] of Object.entries(asRecord(item[field]) ?? {})) {
        const at = keyPath(childPath(path, field), name);
        errors.push(...validateResourceName(name, at));
        const parsed = milliOf(value);
        if (parsed === undefined) errors.push(fieldInvalid(at, value, QUANTITY_FORMAT_MESSAGE));
        else if (parsed < 0n) errors.push(fieldInvalid(at, value, "must be greater than or equal to 0"));
        else values[field].set(name, parsed);
      }
    }
    if (type === "Pod") {
      if (values.default.size > 0)
        errors.push(fieldInvalid(childPath(path, "default"), item.default, "may not be specified when `type` is 'Pod'"));
      if (values.defaultRequest.size > 0)
        errors.push(fieldInvalid(childPath(path, "defaultRequest"), item.defaultRequest, "may not be specified when `type` is 'Pod'"));
    }
    const text = (field: (typeof LIST_FIELDS)[number], name: string) => quantityText(item[field]?.[name]) ?? "";
    for (const [name, max] of values.max) {
      const min = values.min.get(name);
      if (min !== undefined && min > max)
        errors.push(
          fieldInvalid(
            keyPath(childPath(path, "min"), name),
            text("min", name),
            `min value ${text("min", name)} is greater than max value ${text("max", name)}`,
          ),
        );
    }
    for (const [name, request] of values.defaultRequest) {
      const [min, max, limit] = [values.min.get(name), values.max.get(name), values.default.get(name)];
      const at = keyPath(childPath(path, "defaultRequest"), name);
      if (min !== undefined && min > request)
        errors.push(
          fieldInvalid(
            at,
            text("defaultRequest", name),
            `min value ${text("min", name)} is greater than default request value ${text("defaultRequest", name)}`,
          ),
        );
      if (max !== undefined && request > max)
        errors.push(
          fieldInvalid(
            at,
            text("defaultRequest", name),
            `default request value ${text("defaultRequest", name)} is greater than max value ${text("max", name)}`,
          ),
        );
      if (limit !== undefined && request > limit)
        errors.push(
          fieldInvalid(
            at,
            text("defaultRequest", name),
            `default request value ${text("defaultRequest", name)} is greater than default limit value ${text("default", name)}`,
          ),
        );
    }
    for (const [name, limit] of values.default) {
      const [min, max] = [values.min.get(name), values.max.get(name)];
      const at = keyPath(childPath(path, "default"), name);
      if (min !== undefined && min > limit)
        errors.push(
          fieldInvalid(at, text("default", name), `min value ${text("min", name)} is greater than default value ${text("default", name)}`),
        );
      if (max !== undefined && limit > max)
        errors.push(
          fieldInvalid(at, text("default", name), `default value ${text("default", name)} is greater than max value ${text("max", name)}`),
        );
    }
    for (const [name, ratio] of values.maxLimitRequestRatio) {
      const at = keyPath(childPath(path, "maxLimitRequestRatio"), name);
      if (ratio < 1000n)
        errors.push(fieldInvalid(at, text("maxLimitRequestRatio", name), `ratio ${text("maxLimitRequestRatio", name)} is less than 1`));
      const [min, max] = [values.min.get(name), values.max.get(name)];
      if (min !== undefined && max !== undefined && min > 0n && ratio * min > max * 1000n) {
        errors.push(
          fieldInvalid(
            at,
            text("maxLimitRequestRatio", name),
            `ratio ${text("maxLimitRequestRatio", name)} is greater than max/min = ${(Number(max) / Number(min)).toFixed(6)}`,
          ),
        );
      }
    }
  });
  return errors;
}

const schema = kindSchema({
  group: "",
  version: "v1",
  kind: "LimitRange",
  description: "LimitRange sets resource usage limits for each kind of resource in a Namespace.",
  properties: {
    spec: {
      type: "object",
      description: "Spec defines the limits enforced.",
      required: ["limits"],
      properties: {
        limits: {
          type: "array",
          description: "Limits is the list of LimitRangeItem objects that are enforced.",
          "x-kubernetes-list-type": "atomic",
          items: {
            type: "object",
            required: ["type"],
            properties: {
              type: { type: "string", description: "Type of resource that this limit applies to." },
              max: resourceListSchema("Max usage constraints on this kind by resource name."),
              min: resourceListSchema("Min usage constraints on this kind by resource name."),
              default: resourceListSchema("Default resource requirement limit value by resource name if resource limit is omitted."),
              defaultRequest: resourceListSchema(
                "DefaultRequest is the default resource requirement request value by resource name if resource request is omitted.",
              ),
              maxLimitRequestRatio: resourceListSchema(
                "MaxLimitRequestRatio if specified, the named resource must have a request and limit that are both non-zero where limit divided by request is less than or equal to the enumerated value.",
              ),
            },
          },
        },
      },
    },
  },
});

/** core/v1 LimitRange: defaults and bounds the LimitRanger admission plugin applies to pods (when pods are served). */
export const limitRangesResource = defineResource<LimitRange>({
  group: "",
  version: "v1",
  kind: "LimitRange",
  plural: "limitranges",
  singular: "limitrange",
  scope: "Namespaced",
  shortNames: ["limits"],
  schema,
  // Upstream prints the creation time itself here, not an age.
  printerColumns: [
    {
      name: "Created At",
      type: "string",
      description: "CreationTimestamp is a timestamp representing the server time when this object was created, in UTC.",
      cell: (range) => range.metadata?.creationTimestamp,
    },
  ],
  strategy: {
    allowCreateOnUpdate: true,
    prepareForCreate: applyDefaults,
    prepareForUpdate: applyDefaults,
    validate: validateLimitRange,
    validateUpdate: (range) => validateLimitRange(range),
  },
});
