import { defineResource } from "../../../resources/define.js";
import { ageColumn } from "../../../resources/printer-columns.js";
import { int32Schema, kindSchema, labelSelectorSchema, stringListSchema, stringSchema } from "../../../resources/schema-parts.js";
import type { ResourceDefinition } from "../../../registry/rest/resource-definition.js";
import type { JSONSchemaProps } from "../../../schema/types.js";
import { admissionMatchConditionEvaluator } from "../../../cel/admission.js";
import type { MatchConditionEvaluator } from "./match-conditions.js";
import type { WebhookConfiguration, WebhookKind } from "./types.js";
import { defaultWebhookConfiguration, validateWebhookConfiguration } from "./validation.js";

const GROUP = "admissionregistration.k8s.io";

const clientConfig: JSONSchemaProps = {
  type: "object",
  description: "ClientConfig defines how to communicate with the hook. Required",
  properties: {
    caBundle: {
      type: "string",
      format: "byte",
      description:
        "`caBundle` is a PEM encoded CA bundle which will be used to validate the webhook's server certificate. If unspecified, system trust roots on the apiserver are used.",
    },
    service: {
      type: "object",
      description: "`service` is a reference to the service for this webhook. Either `service` or `url` must be specified.",
      required: ["namespace", "name"],
      properties: {
        name: stringSchema("`name` is the name of the service. Required"),
        namespace: stringSchema("`namespace` is the namespace of the service. Required"),
        path: stringSchema("`path` is an optional URL path which will be sent in any request to this service."),
        port: int32Schema(
          "If specified, the port on the service that hosting webhook. Default to 443 for backward compatibility. `port` should be a valid port number (1-65535, inclusive).",
        ),
      },
    },
    url: stringSchema(
      '`url` gives the location of the webhook, in standard URL form (`scheme://host:port/path`). Exactly one of `url` or `service` must be specified. The scheme must be "https".',
    ),
  },
};

function webhookSchema(kind: WebhookKind): JSONSchemaProps {
  const properties: Record<string, JSONSchemaProps> = {
    admissionReviewVersions: stringListSchema(
      "AdmissionReviewVersions is an ordered list of preferred `AdmissionReview` versions the Webhook expects.",
    ),
    clientConfig,
    failurePolicy: stringSchema(
      "FailurePolicy defines how unrecognized errors from the admission endpoint are handled - allowed values are Ignore or Fail. Defaults to Fail.",
    ),
    matchConditions: {
      type: "array",
      description:
        "MatchConditions is a list of conditions that must be met for a request to be sent to this webhook. Match conditions filter requests that have already been matched by the rules, namespaceSelector, and objectSelector.",
      "x-kubernetes-list-type": "map",
      "x-kubernetes-list-map-keys": ["name"],
      "x-kubernetes-patch-merge-key": "name",
      "x-kubernetes-patch-strategy": "merge",
      items: {
        type: "object",
        required: ["name", "expression"],
        properties: {
          expression: stringSchema("Expression represents the expression which will be evaluated by CEL. Must evaluate to bool."),
          name: stringSchema(
            "Name is an identifier for this match condition, used for strategic merging of MatchConditions, as well as providing an identifier for logging purposes.",
          ),
        },
      },
    },
    matchPolicy: stringSchema(
      'matchPolicy defines how the "rules" list is used to match incoming requests. Allowed values are "Exact" or "Equivalent". Defaults to "Equivalent".',
    ),
    name: stringSchema("The name of the admission webhook. Name should be fully qualified, e.g., imagepolicy.kubernetes.io."),
    namespaceSelector: labelSelectorSchema(
      "NamespaceSelector decides whether to run the webhook on an object based on whether the namespace for that object matches the selector.",
    ),
    objectSelector: labelSelectorSchema("ObjectSelector decides whether to run the webhook based on if the object has matching labels."),
    rules: {
      type: "array",
      description: "Rules describes what operations on what resources/subresources the webhook cares about.",
      "x-kubernetes-list-type": "atomic",
      items: {
        type: "object",
        properties: {
          apiGroups: stringListSchema("APIGroups is the API groups the resources belong to. '*' is all groups."),
          apiVersions: stringListSchema("APIVersions is the API versions the resources belong to. '*' is all versions."),
          operations: stringListSchema(
            "Operations is the operations the admission hook cares about - CREATE, UPDATE, DELETE, CONNECT or * for all of those operations and any future admission operations that are added.",
          ),
          resources: stringListSchema(
            "Resources is a list of resources this rule applies to. 'pods/status' means the status subresource of pods, '*' all resources, '*/*' all resources and their subresources.",
          ),
          scope: stringSchema('scope specifies the scope of this rule. Valid values are "Cluster", "Namespaced", and "*". Default is "*".'),
        },
      },
    },
    sideEffects: stringSchema("SideEffects states whether this webhook has side effects. Acceptable values are: None, NoneOnDryRun."),
    timeoutSeconds: int32Schema(
      "TimeoutSeconds specifies the timeout for this webhook. The timeout value must be between 1 and 30 seconds. Default to 10 seconds.",
    ),
  };
  if (kind === "Mutating") {
    properties.reinvocationPolicy = stringSchema(
      'reinvocationPolicy indicates whether this webhook should be called multiple times as part of a single admission evaluation. Allowed values are "Never" and "IfNeeded". Defaults to "Never".',
    );
  }
  return { type: "object", required: ["name", "clientConfig", "sideEffects", "admissionReviewVersions"], properties };
}

function configurationResource(kind: WebhookKind, evaluator: MatchConditionEvaluator | undefined): ResourceDefinition {
  const kindName = `${kind}WebhookConfiguration`;
  return defineResource<WebhookConfiguration>({
    group: GROUP,
    version: "v1",
    kind: kindName,
    plural: `${kind.toLowerCase()}webhookconfigurations`,
    singular: `${kind.toLowerCase()}webhookconfiguration`,
    scope: "Cluster",
    categories: ["api-extensions"],
    schema: kindSchema({
      group: GROUP,
      version: "v1",
      kind: kindName,
      description: `${kindName} describes the configuration of an admission webhook that ${kind === "Mutating" ? "accepts, rejects or patches" : "accepts or rejects"} objects.`,
      properties: {
        webhooks: {
          type: "array",
          description: "Webhooks is a list of webhooks and the affected resources and operations.",
          "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": ["name"],
          "x-kubernetes-patch-merge-key": "name",
          "x-kubernetes-patch-strategy": "merge",
          items: webhookSchema(kind),
        },
      },
    }),
    printerColumns: [
      {
        name: "Webhooks",
        type: "integer",
        description: "Webhooks is a list of webhooks and the affected resources and operations.",
        cell: (o) => (o.webhooks ?? []).length,
      },
      ageColumn(),
    ],
    strategy: {
      prepareForCreate: (object) => defaultWebhookConfiguration(object, kind),
      prepareForUpdate: (object) => defaultWebhookConfiguration(object, kind),
      validate: (object) => validateWebhookConfiguration(object, kind, evaluator),
      validateUpdate: (object, old) => validateWebhookConfiguration(object, kind, evaluator, old),
    },
  });
}

/**
 * admissionregistration.k8s.io/v1 MutatingWebhookConfiguration and ValidatingWebhookConfiguration;
 * `evaluator` compiles matchConditions (without one, configurations with matchConditions are refused;
 * the built-ins use the admission CEL environment).
 */
export function webhookConfigurationResources(evaluator?: MatchConditionEvaluator): {
  mutating: ResourceDefinition;
  validating: ResourceDefinition;
} {
  return { mutating: configurationResource("Mutating", evaluator), validating: configurationResource("Validating", evaluator) };
}

/** The admission CEL environment (upstream's), the default for matchConditions. */
export const defaultMatchConditionEvaluator: MatchConditionEvaluator = admissionMatchConditionEvaluator();

const builtins = webhookConfigurationResources(defaultMatchConditionEvaluator);
export const mutatingWebhookConfigurationsResource = builtins.mutating;
export const validatingWebhookConfigurationsResource = builtins.validating;

/** `definitions` with the built-in webhook configuration types swapped for ones validating matchConditions with `evaluator`. */
export function withMatchConditionEvaluator(
  definitions: readonly ResourceDefinition[],
  evaluator: MatchConditionEvaluator | undefined,
): ResourceDefinition[] {
  if (evaluator === undefined || evaluator === defaultMatchConditionEvaluator) return [...definitions];
  const replacements = webhookConfigurationResources(evaluator);
  return definitions.map((d) =>
    d === mutatingWebhookConfigurationsResource
      ? replacements.mutating
      : d === validatingWebhookConfigurationsResource
        ? replacements.validating
        : d,
  );
}
