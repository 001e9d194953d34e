import type { JSONSchemaProps } from "../schema/types.js";
import {
  childPath,
  fieldDuplicate,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  fieldTooMany,
  indexPath,
  isDNS1035Label,
  isDNS1123Subdomain,
  validateImmutableField,
  type FieldError,
} from "../validation/index.js";
import { JsonPathError, parsePath, simpleJsonPathProblem } from "./jsonpath.js";
import {
  isConditionTrue,
  type CustomResourceColumnDefinition,
  type CustomResourceConversion,
  type CustomResourceDefinition,
  type CustomResourceDefinitionNames,
  type CustomResourceDefinitionSpec,
  type CustomResourceDefinitionVersion,
  type CustomResourceSubresources,
} from "./types.js";
import { declaredProperty } from "../schema/declared-property.js";

/**
 * CustomResourceDefinition validation after upstream's
 * `apiextensions-apiserver/pkg/apis/apiextensions/validation`: the same rules, field paths and
 * messages. Schema structure (NonStructuralSchema, defaults, CEL rules) belongs to the schema
 * module and is passed in as `schemaErrors`.
 */

const SCOPES = ["Cluster", "Namespaced"];
const CONVERSION_STRATEGIES = ["None", "Webhook"];
const CONVERSION_REVIEW_VERSIONS = ["v1", "v1beta1"];
/** `printerColumnDatatypes.List()`: sorted. */
const COLUMN_TYPES = ["boolean", "date", "integer", "number", "string"];
const COLUMN_FORMATS = ["byte", "date", "date-time", "double", "float", "int32", "int64", "password"];
const MAX_SELECTABLE_FIELDS = 8;

/** Checks a version's schema for the rules the schema module owns (structural schema, defaults). */
export type SchemaErrors = (schema: JSONSchemaProps, fieldPath: string) => FieldError[];

export interface CrdValidationOptions {
  schemaErrors?: SchemaErrors;
}

/** The `metadata.name` rule of a CRD (upstream checks it inside the name validator). */
export function crdNameErrors(crd: CustomResourceDefinition): FieldError[] {
  const name = crd.metadata?.name;
  if (!name) return [];
  const required = `${crd.spec?.names?.plural ?? ""}.${crd.spec?.group ?? ""}`;
  return name === required ? [] : [fieldInvalid("metadata.name", name, 'must be spec.names.plural+"."+spec.group')];
}

/** `ValidateCustomResourceDefinitionNames`, for `spec.names` and `status.acceptedNames`. */
export function validateNames(names: CustomResourceDefinitionNames | undefined, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const n = names ?? {};
  const label = (value: string | undefined, field: string, mixedCase: boolean) => {
    if (!value) return;
    const problems = isDNS1035Label(mixedCase ? value.toLowerCase() : value);
    if (problems.length > 0)
      errors.push(
        fieldInvalid(
          childPath(path, field),
          value,
          (mixedCase ? "may have mixed case, but should otherwise match: " : "") + problems.join(","),
        ),
      );
  };
  label(n.plural, "plural", false);
  label(n.singular, "singular", false);
  label(n.kind, "kind", true);
  label(n.listKind, "listKind", true);
  (n.shortNames ?? []).forEach((shortName, i) => {
    const problems = isDNS1035Label(shortName);
    if (problems.length > 0) errors.push(fieldInvalid(indexPath(childPath(path, "shortNames"), i), shortName, problems.join(",")));
  });
  if (n.kind && n.kind === n.listKind)
    errors.push(fieldInvalid(childPath(path, "listKind"), n.listKind, "kind and listKind may not be the same"));
  (n.categories ?? []).forEach((category, i) => {
    const problems = isDNS1035Label(category);
    if (problems.length > 0) errors.push(fieldInvalid(indexPath(childPath(path, "categories"), i), category, problems.join(",")));
  });
  return errors;
}

function simplePathErrors(path: string, field: string, under?: ".spec." | ".status."): FieldError[] {
  const problem = simpleJsonPathProblem(path);
  if (problem !== undefined) return [fieldInvalid(field, path, problem)];
  if (under !== undefined && !path.startsWith(under))
    return [fieldInvalid(field, path, `should be a json path under ${under.slice(0, -1)}`)];
  return [];
}

/** `ValidateCustomResourceDefinitionSubresources`. */
export function validateSubresources(subresources: CustomResourceSubresources | undefined, path: string): FieldError[] {
  const scale = subresources?.scale;
  if (scale === undefined) return [];
  const errors: FieldError[] = [];
  if (!scale.specReplicasPath) errors.push(fieldRequired(childPath(path, "scale.specReplicasPath")));
  else errors.push(...simplePathErrors(scale.specReplicasPath, childPath(path, "scale.specReplicasPath"), ".spec."));
  if (!scale.statusReplicasPath) errors.push(fieldRequired(childPath(path, "scale.statusReplicasPath")));
  else errors.push(...simplePathErrors(scale.statusReplicasPath, childPath(path, "scale.statusReplicasPath"), ".status."));
  if (scale.labelSelectorPath)
    errors.push(...simplePathErrors(scale.labelSelectorPath, childPath(path, "scale.labelSelectorPath"), ".status."));
  return errors;
}

/** `ValidateCustomResourceColumnDefinition`. */
export function validateColumn(column: CustomResourceColumnDefinition, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (!column.name) errors.push(fieldRequired(childPath(path, "name")));
  if (!column.type) errors.push(fieldRequired(childPath(path, "type"), `must be one of ${COLUMN_TYPES.join(",")}`));
  else if (!COLUMN_TYPES.includes(column.type))
    errors.push(fieldInvalid(childPath(path, "type"), column.type, `must be one of ${COLUMN_TYPES.join(",")}`));
  if (column.format && !COLUMN_FORMATS.includes(column.format)) {
    errors.push(fieldInvalid(childPath(path, "format"), column.format, `must be one of ${COLUMN_FORMATS.join(",")}`));
  }
  if (!column.jsonPath) errors.push(fieldRequired(childPath(path, "jsonPath")));
  else {
    const simple = simplePathErrors(column.jsonPath, childPath(path, "jsonPath"));
    errors.push(...simple);
    if (simple.length === 0) {
      try {
        parsePath(column.jsonPath);
      } catch (error) {
        if (!(error instanceof JsonPathError)) throw error;
        errors.push(fieldInvalid(childPath(path, "jsonPath"), column.jsonPath, `must be a valid jsonpath: ${error.message}`));
      }
    }
  }
  return errors;
}

/** The schema a dotted field path (`.spec.color`) names, or why it names none. */
function schemaAt(schema: JSONSchemaProps, path: string): { schema: JSONSchemaProps; root: string } | string {
  const simple = simpleJsonPathProblem(path);
  if (simple !== undefined) return simple;
  const parts = path.slice(1).split(".");
  let current: JSONSchemaProps | undefined = schema;
  for (const part of parts) {
    if (part === "" || /[[\]]/.test(part)) return "array notation is not allowed";
    const next: JSONSchemaProps | undefined =
      declaredProperty(current, part) ?? (typeof current?.additionalProperties === "object" ? current.additionalProperties : undefined);
    if (next === undefined) return `does not refer to a valid field`;
    current = next;
  }
  return { schema: current, root: parts[0]! };
}

/** upstream `validateSelectableFields`. */
function validateSelectableFields(version: CustomResourceDefinitionVersion, path: string): FieldError[] {
  const fields = version.selectableFields ?? [];
  if (fields.length === 0) return [];
  const schema = version.schema?.openAPIV3Schema;
  if (schema === undefined) return [fieldForbidden(path, "may only be set when version.schema.openAPIV3Schema is not included")];
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  fields.forEach((field, i) => {
    const jsonPathField = childPath(indexPath(path, i), "jsonPath");
    if (!field.jsonPath) {
      errors.push(fieldRequired(jsonPathField));
      return;
    }
    const found = schemaAt(schema, field.jsonPath);
    if (typeof found === "string") {
      errors.push(fieldInvalid(jsonPathField, field.jsonPath, `is an invalid path: ${found}`));
      return;
    }
    if (found.root === "metadata") errors.push(fieldInvalid(jsonPathField, field.jsonPath, "must not select from metadata"));
    const type = found.schema.type;
    if (type !== "string" && type !== "integer" && type !== "boolean") {
      errors.push(
        fieldInvalid(
          jsonPathField,
          field.jsonPath,
          "must point to a field of type string, boolean or integer. Enum string fields and strings with formats are allowed.",
        ),
      );
    }
    if (seen.has(field.jsonPath)) errors.push(fieldDuplicate(jsonPathField, field.jsonPath));
    seen.add(field.jsonPath);
  });
  if (fields.length > MAX_SELECTABLE_FIELDS) errors.push(fieldTooMany(path, fields.length, MAX_SELECTABLE_FIELDS));
  return errors;
}

function validateVersion(version: CustomResourceDefinitionVersion, path: string, options: CrdValidationOptions): FieldError[] {
  const errors: FieldError[] = [];
  const schema = version.schema?.openAPIV3Schema;
  if (schema === undefined) errors.push(fieldRequired(childPath(path, "schema.openAPIV3Schema"), "schemas are required"));
  else if (options.schemaErrors) errors.push(...options.schemaErrors(schema, childPath(path, "schema.openAPIV3Schema")));
  errors.push(...validateSubresources(version.subresources, childPath(path, "subresources")));
  (version.additionalPrinterColumns ?? []).forEach((column, i) =>
    errors.push(...validateColumn(column, indexPath(childPath(path, "additionalPrinterColumns"), i))),
  );
  errors.push(...validateSelectableFields(version, childPath(path, "selectableFields")));
  return errors;
}

/** upstream `validateConversionReviewVersions`: unique DNS-1035 labels, at least one this server speaks. */
function validateConversionReviewVersions(versions: string[], path: string): FieldError[] {
  if (versions.length === 0) return [fieldRequired(path)];
  const errors: FieldError[] = [];
  const seen = new Set<string>();
  versions.forEach((version, i) => {
    if (seen.has(version)) {
      errors.push(fieldInvalid(indexPath(path, i), version, "duplicate version"));
      return;
    }
    seen.add(version);
    for (const problem of isDNS1035Label(version)) errors.push(fieldInvalid(indexPath(path, i), version, problem));
  });
  if (!versions.some((v) => CONVERSION_REVIEW_VERSIONS.includes(v))) {
    errors.push(fieldInvalid(path, versions, `must include at least one of ${CONVERSION_REVIEW_VERSIONS.join(", ")}`));
  }
  return errors;
}

/** `ValidateCustomResourceConversion` (v1 paths: `spec.conversion.webhook.*`). */
export function validateConversion(conversion: CustomResourceConversion | undefined, path: string): FieldError[] {
  if (conversion === undefined) return [];
  const errors: FieldError[] = [];
  const strategy = conversion.strategy ?? "";
  if (strategy === "") errors.push(fieldRequired(childPath(path, "strategy")));
  else if (!CONVERSION_STRATEGIES.includes(strategy))
    errors.push(fieldNotSupported(childPath(path, "strategy"), strategy, CONVERSION_STRATEGIES));
  const webhook = conversion.webhook;
  if (strategy === "Webhook") {
    const clientConfig = webhook?.clientConfig;
    if (clientConfig === undefined) errors.push(fieldRequired(childPath(path, "webhook"), "required when strategy is set to Webhook"));
    else if ((clientConfig.url === undefined) === (clientConfig.service === undefined)) {
      errors.push(fieldRequired(childPath(path, "webhook.clientConfig"), "exactly one of url or service is required"));
    } else if (clientConfig.url !== undefined) {
      errors.push(...validateWebhookUrl(clientConfig.url, childPath(path, "webhook.clientConfig.url")));
    } else if (clientConfig.service !== undefined) {
      const service = clientConfig.service;
      if (!service.name) errors.push(fieldRequired(childPath(path, "webhook.clientConfig.service.name"), "service name is required"));
      if (!service.namespace)
        errors.push(fieldRequired(childPath(path, "webhook.clientConfig.service.namespace"), "service namespace is required"));
      if (service.port !== undefined && (service.port < 1 || service.port > 65535)) {
        errors.push(
          fieldInvalid(
            childPath(path, "webhook.clientConfig.service.port"),
            service.port,
            "port is not valid: must be between 1 and 65535, inclusive",
          ),
        );
      }
    }
    errors.push(
      ...validateConversionReviewVersions(webhook?.conversionReviewVersions ?? [], childPath(path, "webhook.conversionReviewVersions")),
    );
  } else if (webhook?.clientConfig !== undefined) {
    errors.push(fieldForbidden(childPath(path, "webhook.clientConfig"), "should not be set when strategy is not set to Webhook"));
  }
  return errors;
}

/** upstream `webhook.ValidateWebhookURL` with `forceHttps`. */
function validateWebhookUrl(text: string, path: string): FieldError[] {
  let url: URL;
  try {
    url = new URL(text);
  } catch (error) {
    return [fieldInvalid(path, text, `url must be a valid URL: ${error instanceof Error ? error.message : String(error)}`)];
  }
  const errors: FieldError[] = [];
  if (url.protocol !== "https:") errors.push(fieldInvalid(path, text, `'https' is the only allowed URL scheme`));
  if (url.hostname === "") errors.push(fieldInvalid(path, text, "host must be specified"));
  if (url.username !== "" || url.password !== "") errors.push(fieldInvalid(path, text, "user information is not permitted in the URL"));
  if (url.hash !== "") errors.push(fieldInvalid(path, text, "fragments are not permitted in the URL"));
  if (url.search !== "") errors.push(fieldInvalid(path, text, "query parameters are not permitted in the URL"));
  return errors;
}

/** `ValidateCustomResourceDefinitionSpec`. */
export function validateSpec(spec: CustomResourceDefinitionSpec | undefined, options: CrdValidationOptions = {}): FieldError[] {
  const s = spec ?? {};
  const errors: FieldError[] = [];
  if (!s.group) errors.push(fieldRequired("spec.group"));
  else {
    const problems = isDNS1123Subdomain(s.group);
    if (problems.length > 0) errors.push(fieldInvalid("spec.group", s.group, problems.join(",")));
    else if (s.group.split(".").length < 2) errors.push(fieldInvalid("spec.group", s.group, "should be a domain with at least one dot"));
  }
  if (!s.scope) errors.push(fieldRequired("spec.scope"));
  else if (!SCOPES.includes(s.scope)) errors.push(fieldNotSupported("spec.scope", s.scope, SCOPES));

  const versions = s.versions ?? [];
  let storageCount = 0;
  const names = new Set<string>();
  let unique = true;
  versions.forEach((version, i) => {
    const path = indexPath("spec.versions", i);
    if (version.storage === true) storageCount++;
    const name = version.name ?? "";
    if (names.has(name)) unique = false;
    names.add(name);
    const problems = isDNS1035Label(name);
    if (problems.length > 0) errors.push(fieldInvalid(childPath(path, "name"), name, problems.join(",")));
    errors.push(...validateVersion(version, path, options));
  });
  if (!unique) errors.push(fieldInvalid("spec.versions", versions, "must contain unique version names"));
  if (storageCount !== 1) errors.push(fieldInvalid("spec.versions", versions, "must have exactly one version marked as storage version"));

  const n = s.names ?? {};
  if (!n.plural) errors.push(fieldRequired("spec.names.plural"));
  if (!n.singular) errors.push(fieldRequired("spec.names.singular"));
  if (!n.kind) errors.push(fieldRequired("spec.names.kind"));
  if (!n.listKind) errors.push(fieldRequired("spec.names.listKind"));
  errors.push(...validateNames(s.names, "spec.names"));
  errors.push(...validateConversion(s.conversion, "spec.conversion"));
  if (s.preserveUnknownFields === true) {
    errors.push(
      fieldInvalid(
        "spec.preserveUnknownFields",
        true,
        "cannot set to true, set x-kubernetes-preserve-unknown-fields to true in spec.versions[*].schema instead",
      ),
    );
  }
  return errors;
}

/** `ValidateCustomResourceDefinitionStoredVersions`. */
export function validateStoredVersions(crd: CustomResourceDefinition): FieldError[] {
  const stored = crd.status?.storedVersions ?? [];
  const path = "status.storedVersions";
  if (stored.length === 0) return [fieldInvalid(path, stored, "must have at least one stored version")];
  const errors: FieldError[] = [];
  const remaining = new Map(stored.map((v, i) => [v, i]));
  for (const version of crd.spec?.versions ?? []) {
    const name = version.name ?? "";
    if (version.storage === true && !remaining.has(name)) errors.push(fieldInvalid(path, version, `must have the storage version ${name}`));
    remaining.delete(name);
  }
  for (const [version, i] of remaining) errors.push(fieldInvalid(indexPath(path, i), version, "must appear in spec.versions"));
  return errors;
}

/** `ValidateCustomResourceDefinition` without the object-meta rules the registry applies. */
export function validateCustomResourceDefinition(crd: CustomResourceDefinition, options: CrdValidationOptions = {}): FieldError[] {
  return [...crdNameErrors(crd), ...validateSpec(crd.spec, options), ...validateNames(crd.status?.acceptedNames, "status.acceptedNames")];
}

/** `ValidateCustomResourceDefinitionUpdate` without the object-meta rules the registry applies. */
export function validateCustomResourceDefinitionUpdate(
  crd: CustomResourceDefinition,
  old: CustomResourceDefinition,
  options: CrdValidationOptions = {},
): FieldError[] {
  const errors = [...crdNameErrors(crd), ...validateSpec(crd.spec, options)];
  if (isConditionTrue(old, "Established")) {
    // These shape storage, so they cannot change once objects may exist.
    errors.push(...validateImmutableField(crd.spec?.scope, old.spec?.scope, "spec.scope"));
    errors.push(...validateImmutableField(crd.spec?.names?.kind, old.spec?.names?.kind, "spec.names.kind"));
  }
  // These make up the CRD's name, which never changes.
  errors.push(...validateImmutableField(crd.spec?.group, old.spec?.group, "spec.group"));
  errors.push(...validateImmutableField(crd.spec?.names?.plural, old.spec?.names?.plural, "spec.names.plural"));
  errors.push(...validateNames(crd.status?.acceptedNames, "status.acceptedNames"));
  errors.push(...validateStoredVersions(crd));
  return errors;
}

/** `ValidateUpdateCustomResourceDefinitionStatus`. */
export function validateStatusUpdate(crd: CustomResourceDefinition): FieldError[] {
  return validateNames(crd.status?.acceptedNames, "status.acceptedNames");
}
