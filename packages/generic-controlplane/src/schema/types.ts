/**
 * An OpenAPI v3 schema as Kubernetes uses it (apiextensions `JSONSchemaProps`), including the
 * `x-kubernetes-*` extensions that drive strategic merge patch, list semantics and pruning.
 * Built-in resources and consumer-registered resources describe themselves with it; OpenAPI
 * documents, `kubectl explain`, strategic merge patch and unknown-field detection all read it.
 */
export interface JSONSchemaProps {
  type?: "object" | "array" | "string" | "integer" | "number" | "boolean";
  format?: string;
  description?: string;
  properties?: Record<string, JSONSchemaProps>;
  additionalProperties?: JSONSchemaProps | boolean;
  items?: JSONSchemaProps;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  nullable?: boolean;
  maxLength?: number;
  minLength?: number;
  maximum?: number;
  minimum?: number;
  maxItems?: number;
  minItems?: number;
  maxProperties?: number;
  minProperties?: number;
  exclusiveMaximum?: boolean;
  exclusiveMinimum?: boolean;
  multipleOf?: number;
  uniqueItems?: boolean;
  pattern?: string;
  title?: string;
  example?: unknown;
  externalDocs?: { description?: string; url?: string };
  /** Forbidden in CustomResourceDefinition schemas; present so they can be reported. */
  id?: string;
  $schema?: string;
  additionalItems?: JSONSchemaProps | boolean;
  patternProperties?: Record<string, JSONSchemaProps>;
  definitions?: Record<string, JSONSchemaProps>;
  dependencies?: Record<string, JSONSchemaProps | string[]>;
  not?: JSONSchemaProps;
  allOf?: JSONSchemaProps[];
  anyOf?: JSONSchemaProps[];
  oneOf?: JSONSchemaProps[];
  /** Reference to a shared definition, e.g. `#/components/schemas/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta`. */
  $ref?: string;
  "x-kubernetes-preserve-unknown-fields"?: boolean;
  "x-kubernetes-embedded-resource"?: boolean;
  "x-kubernetes-int-or-string"?: boolean;
  "x-kubernetes-list-type"?: "atomic" | "set" | "map";
  "x-kubernetes-list-map-keys"?: string[];
  "x-kubernetes-map-type"?: "atomic" | "granular";
  /** CEL rules of a CustomResourceDefinition schema, checked against the value at this node. */
  "x-kubernetes-validations"?: ValidationRule[];
  /** Strategic merge patch: the key that identifies list items to merge (e.g. `name`, `uid`). */
  "x-kubernetes-patch-merge-key"?: string;
  /** Strategic merge patch: `merge`, `replace`, `retainKeys` or `merge,retainKeys`. */
  "x-kubernetes-patch-strategy"?: string;
  "x-kubernetes-group-version-kind"?: Array<{ group: string; version: string; kind: string }>;
}

/** One `x-kubernetes-validations` entry (apiextensions `ValidationRule`). */
export interface ValidationRule {
  rule: string;
  message?: string;
  messageExpression?: string;
  reason?: "FieldValueInvalid" | "FieldValueForbidden" | "FieldValueRequired" | "FieldValueDuplicate";
  fieldPath?: string;
  optionalOldSelf?: boolean;
}
