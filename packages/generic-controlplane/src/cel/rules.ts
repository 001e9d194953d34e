import type { JSONSchemaProps, ValidationRule } from "../schema/types.js";

export type { ValidationRule };

export const SUPPORTED_REASONS = ["FieldValueDuplicate", "FieldValueForbidden", "FieldValueInvalid", "FieldValueRequired"];

export function validationRulesOf(schema: JSONSchemaProps): readonly ValidationRule[] {
  const rules: unknown = schema["x-kubernetes-validations"];
  return Array.isArray(rules) ? (rules as ValidationRule[]) : [];
}

/** Whether a schema or anything below it carries rules. */
export function hasValidationRules(schema: JSONSchemaProps | undefined): boolean {
  if (schema === undefined) return false;
  if (validationRulesOf(schema).length > 0) return true;
  if (schema.properties !== undefined && Object.values(schema.properties).some(hasValidationRules)) return true;
  if (hasValidationRules(schema.items)) return true;
  if (typeof schema.additionalProperties === "object" && hasValidationRules(schema.additionalProperties)) return true;
  return (schema.allOf ?? []).some(hasValidationRules);
}

/** `failed rule: <rule>` when the rule has no message (apiextensions `ruleMessageOrDefault`). */
export function ruleMessageOrDefault(rule: ValidationRule): string {
  const message = (rule.message ?? "").trim();
  return message.length > 0 ? message : `failed rule: ${rule.rule.trim()}`;
}

/** The rule as error texts name it: its message if it has one, else its source. */
export function ruleErrorString(rule: ValidationRule): string {
  const message = (rule.message ?? "").trim();
  return message.length > 0 ? message : rule.rule.trim();
}

/** A transition rule reads `oldSelf`; its schema may only sit where old values correlate. */
export const SELF = "self";
export const OLD_SELF = "oldSelf";
