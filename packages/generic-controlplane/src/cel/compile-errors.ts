import type { JSONSchemaProps } from "../schema/types.js";
import { fieldForbidden, fieldInvalid, fieldNotSupported, fieldRequired, type FieldError } from "../validation/field-errors.js";
import { maxSizeOf } from "./cost.js";
import { parseRuleFieldPath } from "./field-path.js";
import { STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT, costErrorMessage } from "./limits.js";
import { OLD_SELF, SUPPORTED_REASONS, validationRulesOf } from "./rules.js";
import { compileExpression } from "./compile.js";
import { withTypeAndObjectMeta } from "./values.js";

/**
 * The errors a CRD's `x-kubernetes-validations` earn at CRD create and update (apiextensions'
 * `ValidateCustomResourceDefinitionOpenAPISchema`, its CEL part): malformed rule entries, rules
 * and messageExpressions that do not compile, rules too expensive on their own (cost times how
 * many times the node can occur) or together, `oldSelf` where old values cannot be correlated,
 * and `optionalOldSelf` on rules that do not read `oldSelf`.
 *
 * `fieldPath` is where the schema sits, e.g. `spec.versions[0].schema.openAPIV3Schema`.
 */
export function compileErrors(schema: JSONSchemaProps, fieldPath: string, options: { isResourceRoot?: boolean } = {}): FieldError[] {
  const errors: FieldError[] = [];
  const costs: Array<{ path: string; cost: number }> = [];
  walk(schema, fieldPath, { isResourceRoot: options.isResourceRoot ?? true, cardinality: 1, uncorrelatable: undefined }, errors, costs);
  const total = costs.reduce((sum, c) => sum + c.cost, 0);
  if (total > STATIC_ESTIMATED_CRD_COST_LIMIT) {
    for (const contributor of costs) {
      if (contributor.cost > 0) {
        errors.push(
          fieldForbidden(contributor.path, "contributed to estimated rule cost total exceeding cost limit for entire OpenAPIv3 schema"),
        );
      }
    }
    errors.push(
      fieldForbidden(
        fieldPath,
        costErrorMessage(
          "x-kubernetes-validations estimated rule cost total for entire OpenAPIv3 schema",
          total,
          STATIC_ESTIMATED_CRD_COST_LIMIT,
        ),
      ),
    );
  }
  return errors;
}

interface WalkState {
  isResourceRoot: boolean;
  /** How many times this node can occur in one object: the product of the enclosing lists' and maps' sizes. */
  cardinality: number;
  /** The enclosing list whose items cannot be correlated to old items, if any. */
  uncorrelatable: string | undefined;
}

function walk(
  schema: JSONSchemaProps,
  path: string,
  state: WalkState,
  errors: FieldError[],
  costs: Array<{ path: string; cost: number }>,
): void {
  checkRules(schema, path, state, errors, costs);
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    walk(
      property,
      `${path}.properties[${name}]`,
      { ...state, isResourceRoot: property["x-kubernetes-embedded-resource"] === true },
      errors,
      costs,
    );
  }
  if (schema.items !== undefined) {
    const correlatable = schema["x-kubernetes-list-type"] === "map";
    walk(
      schema.items,
      `${path}.items`,
      {
        isResourceRoot: schema.items["x-kubernetes-embedded-resource"] === true,
        cardinality: state.cardinality * maxSizeOf(schema),
        uncorrelatable: state.uncorrelatable ?? (correlatable ? undefined : path),
      },
      errors,
      costs,
    );
  }
  const additional = schema.additionalProperties;
  if (typeof additional === "object") {
    walk(
      additional,
      `${path}.additionalProperties`,
      {
        isResourceRoot: additional["x-kubernetes-embedded-resource"] === true,
        cardinality: state.cardinality * maxSizeOf(schema),
        uncorrelatable: state.uncorrelatable,
      },
      errors,
      costs,
    );
  }
  (schema.allOf ?? []).forEach((part, i) => {
    if (validationRulesOf(part).length > 0) {
      checkRules(
        { ...schema, ...({ "x-kubernetes-validations": validationRulesOf(part) } as JSONSchemaProps) },
        `${path}.allOf[${i}]`,
        state,
        errors,
        costs,
      );
    }
  });
}

function hasNewlines(text: string): boolean {
  return /[\n\r]/.test(text);
}

function checkRules(
  schema: JSONSchemaProps,
  path: string,
  state: WalkState,
  errors: FieldError[],
  costs: Array<{ path: string; cost: number }>,
): void {
  const rules = validationRulesOf(schema);
  if (rules.length === 0) return;
  const before = errors.length;
  rules.forEach((rule, i) => {
    const at = `${path}.x-kubernetes-validations[${i}]`;
    const trimmedRule = (rule.rule ?? "").trim();
    const trimmedMessage = (rule.message ?? "").trim();
    if (trimmedRule.length === 0) errors.push(fieldRequired(`${at}.rule`, "rule is not specified"));
    else if ((rule.message ?? "").length > 0 && trimmedMessage.length === 0)
      errors.push(fieldInvalid(`${at}.message`, rule.message, "message must be non-empty if specified"));
    else if (hasNewlines(trimmedMessage)) errors.push(fieldInvalid(`${at}.message`, rule.message, "message must not contain line breaks"));
    else if (hasNewlines(trimmedRule) && trimmedMessage.length === 0)
      errors.push(fieldRequired(`${at}.message`, "message must be specified if rule contains line breaks"));
    if ((rule.messageExpression ?? "").length > 0 && (rule.messageExpression ?? "").trim().length === 0) {
      errors.push(fieldRequired(`${at}.messageExpression`, "messageExpression must be non-empty if specified"));
    }
    if (rule.reason !== undefined && !SUPPORTED_REASONS.includes(rule.reason)) {
      errors.push(fieldNotSupported(`${at}.reason`, rule.reason, SUPPORTED_REASONS));
    }
    const fieldPath = rule.fieldPath ?? "";
    if (fieldPath.length > 0 && fieldPath.trim().length === 0)
      errors.push(fieldInvalid(`${at}.fieldPath`, fieldPath, "fieldPath must be non-empty if specified"));
    if (hasNewlines(fieldPath)) errors.push(fieldInvalid(`${at}.fieldPath`, fieldPath, "fieldPath must not contain line breaks"));
    if (fieldPath.trim().length > 0 && !parseRuleFieldPath(fieldPath.trim(), schema).ok) {
      errors.push(fieldInvalid(`${at}.fieldPath`, fieldPath, "fieldPath must be a valid path"));
    }
  });
  // Schema mistakes first: compiling against a malformed node only adds confusing errors.
  if (errors.length > before) return;
  const celSchema = state.isResourceRoot ? withTypeAndObjectMeta(schema) : schema;
  const variables = new Map([
    ["self", celSchema],
    [OLD_SELF, celSchema],
  ]);
  rules.forEach((rule, i) => {
    const at = `${path}.x-kubernetes-validations[${i}]`;
    const compiled = compileExpression(rule.rule, variables);
    if (!compiled.ok) {
      errors.push(fieldInvalid(`${at}.rule`, rule, compiled.error));
    } else {
      const cost = compiled.expression.maxCost * state.cardinality;
      if (cost > STATIC_ESTIMATED_COST_LIMIT)
        errors.push(fieldForbidden(`${at}.rule`, costErrorMessage("estimated rule cost", cost, STATIC_ESTIMATED_COST_LIMIT)));
      costs.push({ path: `${at}.rule`, cost });
      if (compiled.expression.references.has(OLD_SELF)) {
        if (state.uncorrelatable !== undefined) {
          errors.push(
            fieldInvalid(
              `${at}.rule`,
              rule.rule,
              `oldSelf cannot be used on the uncorrelatable portion of the schema within ${state.uncorrelatable}`,
            ),
          );
        }
      } else if (rule.optionalOldSelf !== undefined) {
        errors.push(fieldInvalid(`${at}.optionalOldSelf`, rule.optionalOldSelf, "may not be set if oldSelf is not used in rule"));
      }
    }
    if (rule.messageExpression !== undefined && rule.messageExpression.trim().length > 0) {
      const message = compileExpression(rule.messageExpression, variables);
      if (!message.ok) {
        errors.push(fieldInvalid(`${at}.messageExpression`, rule, `messageExpression ${message.error}`));
      } else {
        const cost = message.expression.maxCost * state.cardinality;
        if (cost > STATIC_ESTIMATED_COST_LIMIT) {
          errors.push(
            fieldForbidden(
              `${at}.messageExpression`,
              costErrorMessage("estimated messageExpression cost", cost, STATIC_ESTIMATED_COST_LIMIT),
            ),
          );
        }
        costs.push({ path: `${at}.messageExpression`, cost });
      }
    }
  });
}
