import type { JSONSchemaProps } from "../../../schema/types.js";
import { kindSchema, labelSelectorSchema, stringListSchema } from "../../../resources/schema-parts.js";
import { GROUP, VERSION } from "./types.js";

/** OpenAPI schemas of ValidatingAdmissionPolicy and its binding (what explain and unknown-field checks read). */

const string = (description: string): JSONSchemaProps => ({ type: "string", description });
const objects = (description: string, item: JSONSchemaProps, key?: string): JSONSchemaProps => ({
  type: "array",
  description,
  items: item,
  ...(key === undefined
    ? { "x-kubernetes-list-type": "atomic" as const }
    : { "x-kubernetes-list-type": "map" as const, "x-kubernetes-list-map-keys": [key] }),
});

const namedRule: JSONSchemaProps = {
  type: "object",
  "x-kubernetes-map-type": "atomic",
  properties: {
    apiGroups: stringListSchema("APIGroups is the API groups the resources belong to. '*' is all groups."),
    apiVersions: stringListSchema("APIVersions is the API versions the resources belong to. '*' is all versions."),
    operations: stringListSchema(
      "Operations is the operations the admission hook cares about - CREATE, UPDATE, DELETE, CONNECT or * for all of those operations.",
    ),
    resources: stringListSchema("Resources is a list of resources this rule applies to."),
    resourceNames: stringListSchema("ResourceNames is an optional white list of names that the rule applies to."),
    scope: string('scope specifies the scope of this rule. Valid values are "Cluster", "Namespaced", and "*".'),
  },
};

export const matchResourcesSchema = (description: string): JSONSchemaProps => ({
  type: "object",
  description,
  "x-kubernetes-map-type": "atomic",
  properties: {
    namespaceSelector: labelSelectorSchema(
      "NamespaceSelector decides whether to run the admission control policy on an object based on whether the namespace for that object matches the selector.",
    ),
    objectSelector: labelSelectorSchema("ObjectSelector decides whether to run the validation based on if the object has matching labels."),
    resourceRules: objects(
      "ResourceRules describes what operations on what resources/subresources the ValidatingAdmissionPolicy matches.",
      namedRule,
    ),
    excludeResourceRules: objects(
      "ExcludeResourceRules describes what operations on what resources/subresources the ValidatingAdmissionPolicy should not care about.",
      namedRule,
    ),
    matchPolicy: string(
      'matchPolicy defines how the "MatchResources" list is used to match incoming requests. Allowed values are "Exact" or "Equivalent".',
    ),
  },
});

export const policySchema = kindSchema({
  group: GROUP,
  version: VERSION,
  kind: "ValidatingAdmissionPolicy",
  description:
    "ValidatingAdmissionPolicy describes the definition of an admission validation policy that accepts or rejects an object without changing it.",
  properties: {
    spec: {
      type: "object",
      description: "Specification of the desired behavior of the ValidatingAdmissionPolicy.",
      properties: {
        paramKind: {
          type: "object",
          description: "ParamKind specifies the kind of resources used to parameterize this policy.",
          "x-kubernetes-map-type": "atomic",
          properties: {
            apiVersion: string("APIVersion is the API group version the resources belong to."),
            kind: string("Kind is the API kind the resources belong to."),
          },
        },
        matchConstraints: matchResourcesSchema("MatchConstraints specifies what resources this policy is designed to validate."),
        validations: objects("Validations contain CEL expressions which is used to apply the validation.", {
          type: "object",
          required: ["expression"],
          properties: {
            expression: string("Expression represents the expression which will be evaluated by CEL."),
            message: string("Message represents the message displayed when validation fails."),
            reason: string("Reason represents a machine-readable description of why this validation failed."),
            messageExpression: string(
              "messageExpression declares a CEL expression that evaluates to the validation failure message that is returned when this rule fails.",
            ),
          },
        }),
        failurePolicy: string(
          "failurePolicy defines how to handle failures for the admission policy. Allowed values are Ignore or Fail. Defaults to Fail.",
        ),
        auditAnnotations: objects(
          "auditAnnotations contains CEL expressions which are used to produce audit annotations for the audit event of the API request.",
          {
            type: "object",
            required: ["key", "valueExpression"],
            properties: {
              key: string("key specifies the audit annotation key."),
              valueExpression: string(
                "valueExpression represents the expression which is evaluated by CEL to produce an audit annotation value.",
              ),
            },
          },
        ),
        matchConditions: objects(
          "MatchConditions is a list of conditions that must be met for a request to be validated.",
          {
            type: "object",
            required: ["name", "expression"],
            properties: {
              name: string("Name is an identifier for this match condition."),
              expression: string("Expression represents the expression which will be evaluated by CEL. Must evaluate to bool."),
            },
          },
          "name",
        ),
        variables: objects("Variables contain definitions of variables that can be used in composition of other expressions.", {
          type: "object",
          required: ["name", "expression"],
          "x-kubernetes-map-type": "atomic",
          properties: {
            name: string("Name is the name of the variable."),
            expression: string("Expression is the expression that will be evaluated as the value of the variable."),
          },
        }),
      },
    },
    status: {
      type: "object",
      description:
        "The status of the ValidatingAdmissionPolicy, including warnings that are useful to determine if the policy behaves in the expected way.",
      properties: {
        observedGeneration: { type: "integer", format: "int64", description: "The generation observed by the controller." },
        typeChecking: {
          type: "object",
          description: "The results of type checking for each expression.",
          properties: {
            expressionWarnings: objects("The type checking warnings for each expression.", {
              type: "object",
              properties: {
                fieldRef: string("The path to the field that refers the expression."),
                warning: string("The content of type checking information in a human-readable form."),
              },
            }),
          },
        },
        conditions: objects(
          "The conditions represent the latest available observations of a policy's current state.",
          { type: "object", "x-kubernetes-preserve-unknown-fields": true },
          "type",
        ),
      },
    },
  },
});

export const bindingSchema = kindSchema({
  group: GROUP,
  version: VERSION,
  kind: "ValidatingAdmissionPolicyBinding",
  description: "ValidatingAdmissionPolicyBinding binds the ValidatingAdmissionPolicy with paramerized resources.",
  properties: {
    spec: {
      type: "object",
      description: "Specification of the desired behavior of the ValidatingAdmissionPolicyBinding.",
      properties: {
        policyName: string("PolicyName references a ValidatingAdmissionPolicy name which the ValidatingAdmissionPolicyBinding binds to."),
        paramRef: {
          type: "object",
          description: "paramRef specifies the parameter resource used to configure the admission control policy.",
          "x-kubernetes-map-type": "atomic",
          properties: {
            name: string("name is the name of the resource being referenced."),
            namespace: string("namespace is the namespace of the referenced resource."),
            selector: labelSelectorSchema("selector can be used to match multiple param objects based on their labels."),
            parameterNotFoundAction: string(
              "parameterNotFoundAction controls the behavior of the binding when the resource exists, and name or selector is valid, but there are no parameters matched by the binding.",
            ),
          },
        },
        matchResources: matchResourcesSchema("MatchResources declares what resources match this binding and will be validated by it."),
        validationActions: {
          ...stringListSchema("validationActions declares how Validations of the referenced ValidatingAdmissionPolicy are enforced."),
          "x-kubernetes-list-type": "set",
        },
      },
    },
  },
});
