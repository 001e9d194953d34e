import type { KubeObject } from "../api/types.js";
import type { FieldError } from "../validation/field-errors.js";
import type { JSONSchemaProps } from "../schema/types.js";
import type { FlowSchema, PriorityLevelConfiguration } from "./flowcontrol-types.js";
import { fieldInvalid, fieldNotSupported, fieldRequired } from "../validation/index.js";
import { defineResource } from "./define.js";
import { ageColumn } from "./printer-columns.js";
import { int32Schema, kindSchema, stringSchema } from "./schema-parts.js";

const GROUP = "flowcontrol.apiserver.k8s.io";
const strings = (description: string): JSONSchemaProps => ({
  type: "array",
  description,
  items: { type: "string", default: "" },
  "x-kubernetes-list-type": "set",
});
const conditions: JSONSchemaProps = {
  type: "array",
  description: "`conditions` is a list of the current states of the object.",
  items: {
    type: "object",
    properties: {
      lastTransitionTime: {
        type: "string",
        format: "date-time",
        description: "`lastTransitionTime` is the last time the condition transitioned from one status to another.",
      },
      message: stringSchema("`message` is a human-readable message indicating details about last transition."),
      reason: stringSchema("`reason` is a unique, one-word, CamelCase reason for the condition's last transition."),
      status: stringSchema("`status` is the status of the condition. Can be True, False, Unknown. Required."),
      type: stringSchema("`type` is the type of the condition. Required."),
    },
  },
  "x-kubernetes-list-map-keys": ["type"],
  "x-kubernetes-list-type": "map",
};
const statusSchema: JSONSchemaProps = {
  type: "object",
  default: {},
  description: "`status` is the current status of the object.",
  properties: { conditions },
};

const subjectSchema: JSONSchemaProps = {
  type: "object",
  properties: {
    kind: stringSchema("`kind` indicates which one of the other fields is non-empty. Required"),
    user: {
      type: "object",
      properties: { name: stringSchema('`name` is the username that matches, or "*" to match all usernames. Required.') },
    },
    group: { type: "object", properties: { name: stringSchema('name is the user group that matches, or "*" to match all user groups.') } },
    serviceAccount: {
      type: "object",
      properties: {
        namespace: stringSchema("`namespace` is the namespace of matching ServiceAccount objects. Required."),
        name: stringSchema('`name` is the name of matching ServiceAccount objects, or "*" to match regardless of name. Required.'),
      },
    },
  },
  required: ["kind"],
};

const flowSchemaSchema = kindSchema({
  group: GROUP,
  version: "v1",
  kind: "FlowSchema",
  description: "FlowSchema defines the schema of a group of flows.",
  properties: {
    spec: {
      type: "object",
      default: {},
      description: "`spec` is the specification of the desired behavior of a FlowSchema.",
      properties: {
        priorityLevelConfiguration: {
          type: "object",
          default: {},
          description: "`priorityLevelConfiguration` should reference a PriorityLevelConfiguration in the cluster. Required.",
          properties: { name: stringSchema("`name` is the name of the priority level configuration being referenced Required.") },
        },
        matchingPrecedence: int32Schema("`matchingPrecedence` is used to choose among the FlowSchemas that match a given request."),
        distinguisherMethod: {
          type: "object",
          properties: { type: stringSchema("`type` is the type of flow distinguisher method: ByUser or ByNamespace. Required.") },
        },
        rules: {
          type: "array",
          description: "`rules` describes which requests will match this flow schema.",
          "x-kubernetes-list-type": "atomic",
          items: {
            type: "object",
            properties: {
              subjects: { type: "array", items: subjectSchema, "x-kubernetes-list-type": "atomic" },
              resourceRules: {
                type: "array",
                "x-kubernetes-list-type": "atomic",
                items: {
                  type: "object",
                  properties: {
                    verbs: strings("`verbs` is a list of matching verbs and may not be empty."),
                    apiGroups: strings("`apiGroups` is a list of matching API groups and may not be empty."),
                    resources: strings(
                      "`resources` is a list of matching resources (i.e., lowercase and plural) with, if desired, subresource.",
                    ),
                    clusterScope: {
                      type: "boolean",
                      description: "`clusterScope` indicates whether to match requests that do not specify a namespace.",
                    },
                    namespaces: strings("`namespaces` is a list of target namespaces that restricts matches."),
                  },
                },
              },
              nonResourceRules: {
                type: "array",
                "x-kubernetes-list-type": "atomic",
                items: {
                  type: "object",
                  properties: {
                    verbs: strings("`verbs` is a list of matching verbs and may not be empty."),
                    nonResourceURLs: strings("`nonResourceURLs` is a set of url prefixes that a user should have access to."),
                  },
                },
              },
            },
          },
        },
      },
    },
    status: statusSchema,
  },
});

const priorityLevelSchema = kindSchema({
  group: GROUP,
  version: "v1",
  kind: "PriorityLevelConfiguration",
  description: "PriorityLevelConfiguration represents the configuration of a priority level.",
  properties: {
    spec: {
      type: "object",
      default: {},
      description: "`spec` specifies the configuration of a priority level.",
      properties: {
        type: stringSchema(
          "`type` indicates whether this priority level is subject to limitation on request execution: Exempt or Limited. Required.",
        ),
        exempt: {
          type: "object",
          properties: {
            nominalConcurrencyShares: int32Schema(
              "`nominalConcurrencyShares` (NCS) contributes to the computation of the NominalConcurrencyLimit (NominalCL) of this level.",
            ),
            lendablePercent: int32Schema(
              "`lendablePercent` prescribes the fraction of the level's NominalCL that can be borrowed by other priority levels.",
            ),
          },
        },
        limited: {
          type: "object",
          properties: {
            nominalConcurrencyShares: int32Schema(
              "`nominalConcurrencyShares` (NCS) contributes to the computation of the NominalConcurrencyLimit (NominalCL) of this level.",
            ),
            lendablePercent: int32Schema(
              "`lendablePercent` prescribes the fraction of the level's NominalCL that can be borrowed by other priority levels.",
            ),
            borrowingLimitPercent: int32Schema(
              "`borrowingLimitPercent`, if present, configures a limit on how many seats this priority level can borrow from other priority levels.",
            ),
            limitResponse: {
              type: "object",
              default: {},
              properties: {
                type: stringSchema('`type` is "Queue" or "Reject". Required.'),
                queuing: {
                  type: "object",
                  properties: {
                    queues: int32Schema("`queues` is the number of queues for this priority level."),
                    handSize: int32Schema(
                      "`handSize` is a small positive number that configures the shuffle sharding of requests into queues.",
                    ),
                    queueLengthLimit: int32Schema(
                      "`queueLengthLimit` is the maximum number of requests allowed to be waiting in a given queue of this priority level at a time.",
                    ),
                  },
                },
              },
            },
          },
        },
      },
    },
    status: statusSchema,
  },
});

type FlowSchemaObject = KubeObject & Partial<Pick<FlowSchema, "spec">>;
type PriorityLevelObject = KubeObject & Partial<Pick<PriorityLevelConfiguration, "spec">>;

/** The parts of upstream's `ValidateFlowSchema` this server relies on to classify requests. */
export function validateFlowSchema(object: FlowSchemaObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = object.spec;
  if (!spec?.priorityLevelConfiguration?.name)
    errors.push(fieldRequired("spec.priorityLevelConfiguration.name", "must reference a priority level"));
  const precedence = spec?.matchingPrecedence;
  if (precedence !== undefined && (precedence <= 0 || precedence > 10000))
    errors.push(fieldInvalid("spec.matchingPrecedence", precedence, "must be between 1 and 10000, inclusive"));
  const method = spec?.distinguisherMethod?.type;
  if (spec?.distinguisherMethod !== undefined && method !== "ByUser" && method !== "ByNamespace") {
    errors.push(fieldNotSupported("spec.distinguisherMethod.type", method, ["ByNamespace", "ByUser"]));
  }
  (spec?.rules ?? []).forEach((rule, i) => {
    if ((rule.subjects ?? []).length === 0)
      errors.push(fieldRequired(`spec.rules[${i}].subjects`, "subjects must contain at least one value"));
    if ((rule.resourceRules ?? []).length === 0 && (rule.nonResourceRules ?? []).length === 0) {
      errors.push(fieldRequired(`spec.rules[${i}]`, "at least one of resourceRules and nonResourceRules has to be non-empty"));
    }
  });
  return errors;
}

/** The parts of upstream's `ValidatePriorityLevelConfiguration` this server relies on to size levels. */
export function validatePriorityLevel(object: PriorityLevelObject): FieldError[] {
  const errors: FieldError[] = [];
  const spec = object.spec;
  const type = spec?.type;
  if (type !== "Exempt" && type !== "Limited") return [fieldNotSupported("spec.type", type, ["Exempt", "Limited"])];
  if (type === "Limited") {
    const limited = spec?.type === "Limited" ? spec.limited : undefined;
    if (limited === undefined) return [fieldRequired("spec.limited", "must not be empty when type is Limited")];
    if (limited.nominalConcurrencyShares !== undefined && limited.nominalConcurrencyShares < 0)
      errors.push(
        fieldInvalid("spec.limited.nominalConcurrencyShares", limited.nominalConcurrencyShares, "must be a non-negative integer"),
      );
    const response = limited.limitResponse as
      { type?: string; queuing?: { queues: number; handSize: number; queueLengthLimit: number } } | undefined;
    if (response?.type !== "Queue" && response?.type !== "Reject")
      errors.push(fieldNotSupported("spec.limited.limitResponse.type", response?.type, ["Queue", "Reject"]));
    else if (response.type === "Queue") {
      const queuing = response.queuing;
      if (queuing === undefined)
        errors.push(fieldRequired("spec.limited.limitResponse.queuing", "must not be empty if limited.limitResponse.type is Queue"));
      else {
        if (!(queuing.queues > 0))
          errors.push(fieldInvalid("spec.limited.limitResponse.queuing.queues", queuing.queues, "must be positive"));
        if (!(queuing.queueLengthLimit > 0))
          errors.push(fieldInvalid("spec.limited.limitResponse.queuing.queueLengthLimit", queuing.queueLengthLimit, "must be positive"));
        if (!(queuing.handSize > 0))
          errors.push(fieldInvalid("spec.limited.limitResponse.queuing.handSize", queuing.handSize, "must be positive"));
        else if (queuing.handSize > queuing.queues) {
          errors.push(
            fieldInvalid(
              "spec.limited.limitResponse.queuing.handSize",
              queuing.handSize,
              `should not be greater than queues (${queuing.queues})`,
            ),
          );
        }
      }
    }
  }
  return errors;
}

/** flowcontrol.apiserver.k8s.io/v1 FlowSchema. */
export const flowSchemasResource = defineResource<FlowSchemaObject>({
  group: GROUP,
  version: "v1",
  kind: "FlowSchema",
  plural: "flowschemas",
  singular: "flowschema",
  scope: "Cluster",
  schema: flowSchemaSchema,
  statusSubresource: true,
  printerColumns: [
    {
      name: "PriorityLevel",
      type: "string",
      description: "`priorityLevelConfiguration` should reference a PriorityLevelConfiguration in the cluster.",
      cell: (o) => o.spec?.priorityLevelConfiguration?.name ?? "",
    },
    {
      name: "MatchingPrecedence",
      type: "integer",
      description: "`matchingPrecedence` is used to choose among the FlowSchemas that match a given request.",
      cell: (o) => o.spec?.matchingPrecedence ?? 0,
    },
    {
      name: "DistinguisherMethod",
      type: "string",
      description: "`distinguisherMethod` defines how to compute the flow distinguisher for requests that match this schema.",
      cell: (o) => o.spec?.distinguisherMethod?.type ?? "<none>",
    },
    ageColumn(),
    {
      name: "MissingPL",
      type: "string",
      description: "The priority level this schema references does not exist (its Dangling condition).",
      cell: (o) =>
        ((o as { status?: { conditions?: Array<{ type?: string; status?: string }> } }).status?.conditions ?? []).find(
          (c) => c.type === "Dangling",
        )?.status ?? "?",
    },
  ],
  strategy: {
    prepareForCreate(object) {
      object.spec ??= {} as FlowSchema["spec"];
      object.spec.matchingPrecedence ??= 1000;
    },
    validate: validateFlowSchema,
    validateUpdate: validateFlowSchema,
  },
});

/** flowcontrol.apiserver.k8s.io/v1 PriorityLevelConfiguration. */
export const priorityLevelConfigurationsResource = defineResource<PriorityLevelObject>({
  group: GROUP,
  version: "v1",
  kind: "PriorityLevelConfiguration",
  plural: "prioritylevelconfigurations",
  singular: "prioritylevelconfiguration",
  scope: "Cluster",
  schema: priorityLevelSchema,
  statusSubresource: true,
  printerColumns: [
    {
      name: "Type",
      type: "string",
      description: "`type` indicates whether this priority level is subject to limitation on request execution.",
      cell: (o) => o.spec?.type ?? "",
    },
    {
      name: "NominalConcurrencyShares",
      type: "string",
      description: "`nominalConcurrencyShares` contributes to the computation of the NominalConcurrencyLimit of this level.",
      cell: (o) => (o.spec?.type === "Limited" ? String(o.spec.limited.nominalConcurrencyShares) : "<none>"),
    },
    {
      name: "Queues",
      type: "string",
      description: "`queues` is the number of queues for this priority level.",
      cell: (o) => queuingOf(o)?.queues ?? "<none>",
    },
    {
      name: "HandSize",
      type: "string",
      description: "`handSize` configures the shuffle sharding of requests into queues.",
      cell: (o) => queuingOf(o)?.handSize ?? "<none>",
    },
    {
      name: "QueueLengthLimit",
      type: "string",
      description: "`queueLengthLimit` is the maximum number of waiting requests per queue.",
      cell: (o) => queuingOf(o)?.queueLengthLimit ?? "<none>",
    },
    ageColumn(),
  ],
  strategy: {
    prepareForCreate: defaultPriorityLevel,
    prepareForUpdate: defaultPriorityLevel,
    validate: validatePriorityLevel,
    validateUpdate: validatePriorityLevel,
  },
});

/** Upstream's v1 defaults: 30 shares, 0 % lendable, and queuing 64 queues × hand 8 × 50 long. */
function defaultPriorityLevel(object: PriorityLevelObject): void {
  const spec = object.spec as { type?: string; limited?: Record<string, unknown>; exempt?: Record<string, unknown> } | undefined;
  if (spec?.type === "Limited" && spec.limited !== undefined && spec.limited !== null && typeof spec.limited === "object") {
    spec.limited.nominalConcurrencyShares ??= 30;
    spec.limited.lendablePercent ??= 0;
    const response = spec.limited.limitResponse as { type?: string; queuing?: Record<string, unknown> } | undefined;
    if (response?.type === "Queue") {
      response.queuing ??= {};
      response.queuing.queues ??= 64;
      response.queuing.handSize ??= 8;
      response.queuing.queueLengthLimit ??= 50;
    }
  }
  if (spec?.type === "Exempt") {
    spec.exempt ??= {};
    spec.exempt.nominalConcurrencyShares ??= 0;
    spec.exempt.lendablePercent ??= 0;
  }
}

function queuingOf(object: PriorityLevelObject): { queues: string; handSize: string; queueLengthLimit: string } | undefined {
  if (object.spec?.type !== "Limited" || object.spec.limited.limitResponse.type !== "Queue") return undefined;
  const q = object.spec.limited.limitResponse.queuing;
  return { queues: String(q.queues), handSize: String(q.handSize), queueLengthLimit: String(q.queueLengthLimit) };
}
