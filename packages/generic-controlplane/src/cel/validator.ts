import { isCelError, type CelInput, type CelResult } from "@bufbuild/cel";
import type { JSONSchemaProps } from "../schema/types.js";
import {
  childPath,
  fieldDuplicate,
  fieldForbidden,
  fieldInvalid,
  fieldRequired,
  indexPath,
  keyPath,
  type FieldError,
} from "../validation/field-errors.js";
import { compileExpression, type CompiledExpression } from "./compile.js";
import { parseRuleFieldPath } from "./field-path.js";
import { MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES, PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET } from "./limits.js";
import { boundedSchema } from "./value-bounds.js";
import { optionalNone, optionalOf } from "./library/optional.js";
import {
  OLD_SELF,
  SELF,
  hasValidationRules,
  ruleErrorString,
  ruleMessageOrDefault,
  validationRulesOf,
  type ValidationRule,
} from "./rules.js";
import { toCelValue, withTypeAndObjectMeta } from "./values.js";
import { ownValue } from "../patch/json-value.js";

/**
 * Evaluation of `x-kubernetes-validations` (apiextensions `schema/cel.Validator`): one node per
 * schema node that has rules at or below it. Each rule sees `self` typed by its schema; a rule that
 * reads `oldSelf` only runs on update where an old value correlates (same property, same map key,
 * same list-map entry) unless `optionalOldSelf` makes `oldSelf` an optional.
 */

export type RuleValidator = (self: unknown, oldSelf: unknown) => FieldError[];

interface CompiledRule {
  rule: ValidationRule;
  expression?: CompiledExpression;
  message?: CompiledExpression;
  error?: string;
  /** The rule's `fieldPath`, in Go notation relative to the node. */
  fieldPath: string;
}

interface ValidatorNode {
  schema: JSONSchemaProps;
  /** The schema `self` is typed by (the resource root also sees apiVersion, kind and metadata.name). */
  celSchema: JSONSchemaProps;
  rules: CompiledRule[];
  properties: Map<string, ValidatorNode>;
  items?: ValidatorNode;
  additionalProperties?: ValidatorNode;
  allOf: ValidatorNode[];
}

export interface CompileValidationOptions {
  /** Whether the schema is the root of a resource (the default): `self.metadata.name` is visible. */
  isResourceRoot?: boolean;
  /** The field path the root of `self` is reported at; upstream reports root errors at `<nil>`. */
  fieldPath?: string;
}

/**
 * Compiles every rule of the schema into one function that validates a value (and its old value
 * on update) and returns the field errors, or `undefined` when the schema has no rules.
 */
export function compileValidationRules(schema: JSONSchemaProps, options: CompileValidationOptions = {}): RuleValidator | undefined {
  if (!hasValidationRules(schema)) return undefined;
  const root = buildNode(schema, options.isResourceRoot ?? true);
  const rootPath = options.fieldPath ?? "";
  return (self, oldSelf) => {
    const errors: FieldError[] = [];
    validateNode(root, rootPath, self, oldSelf, { errors, remaining: RUNTIME_CEL_COST_BUDGET });
    return errors;
  };
}

export function compileRule(rule: ValidationRule, celSchema: JSONSchemaProps, nodeSchema: JSONSchemaProps): CompiledRule {
  let fieldPath = "";
  if (rule.fieldPath !== undefined && rule.fieldPath.trim() !== "") {
    const parsed = parseRuleFieldPath(rule.fieldPath.trim(), nodeSchema);
    if (parsed.ok) fieldPath = parsed.path;
  }
  const variables = new Map([
    [SELF, celSchema],
    [OLD_SELF, celSchema],
  ]);
  if (rule.rule.trim() === "") return { rule, fieldPath };
  const compiled = compileExpression(rule.rule, variables);
  if (!compiled.ok) return { rule, fieldPath, error: compiled.error };
  const result: CompiledRule = { rule, fieldPath, expression: compiled.expression };
  if (rule.messageExpression !== undefined && rule.messageExpression.trim() !== "") {
    const message = compileExpression(rule.messageExpression, variables);
    if (message.ok) result.message = message.expression;
  }
  return result;
}

function buildNode(schema: JSONSchemaProps, isResourceRoot: boolean): ValidatorNode {
  const celSchema = isResourceRoot ? withTypeAndObjectMeta(schema) : schema;
  const node: ValidatorNode = {
    schema,
    celSchema,
    rules: validationRulesOf(schema).map((rule) => compileRule(rule, celSchema, schema)),
    properties: new Map(),
    allOf: [],
  };
  for (const [name, property] of Object.entries(schema.properties ?? {})) {
    if (hasValidationRules(property)) node.properties.set(name, buildNode(property, property["x-kubernetes-embedded-resource"] === true));
  }
  if (schema.items !== undefined && hasValidationRules(schema.items)) {
    node.items = buildNode(schema.items, schema.items["x-kubernetes-embedded-resource"] === true);
  }
  const additional = schema.additionalProperties;
  if (typeof additional === "object" && hasValidationRules(additional)) {
    node.additionalProperties = buildNode(additional, additional["x-kubernetes-embedded-resource"] === true);
  }
  for (const part of schema.allOf ?? []) {
    if (validationRulesOf(part).length > 0) {
      // Rules under allOf run against the node's value, typed by the node's own schema.
      node.allOf.push({ ...buildNode({ ...schema, ...pick(part) }, isResourceRoot), properties: new Map(), allOf: [] });
    }
  }
  return node;
}

function pick(part: JSONSchemaProps): JSONSchemaProps {
  return { "x-kubernetes-validations": validationRulesOf(part) } as JSONSchemaProps;
}

function typeName(schema: JSONSchemaProps): string {
  return schema.type ?? "";
}

/** One object's validation: its errors and what is left of its cost budget (negative once exhausted). */
interface Run {
  errors: FieldError[];
  remaining: number;
}

function validateNode(node: ValidatorNode, path: string, value: unknown, oldValue: unknown, run: Run): void {
  if (value === null || value === undefined || run.remaining < 0) return;
  evaluateRules(node, path, value, oldValue, run);
  for (const part of node.allOf) evaluateRules(part, path, value, oldValue, run);
  if (Array.isArray(value)) {
    if (node.items === undefined) return;
    const oldItems = correlatedListItems(node.schema, oldValue);
    value.forEach((item, i) => {
      if (node.items !== undefined) validateNode(node.items, indexPath(path, i), item, oldItems(item), run);
    });
    return;
  }
  if (typeof value !== "object") return;
  const object = value as Record<string, unknown>;
  const oldObject =
    node.schema["x-kubernetes-map-type"] !== "atomic" && typeof oldValue === "object" && oldValue !== null && !Array.isArray(oldValue)
      ? (oldValue as Record<string, unknown>)
      : undefined;
  if (node.additionalProperties !== undefined) {
    for (const [key, child] of Object.entries(object)) {
      validateNode(node.additionalProperties, keyPath(path, key), child, oldObject && ownValue(oldObject, key), run);
    }
  }
  for (const [name, property] of node.properties) {
    if (Object.hasOwn(object, name))
      validateNode(property, childPath(path, name), object[name], oldObject && ownValue(oldObject, name), run);
  }
}

/** Old list items correlate to new ones only in `x-kubernetes-list-type: map` lists, by their keys. */
function correlatedListItems(schema: JSONSchemaProps, oldValue: unknown): (item: unknown) => unknown {
  const keys = schema["x-kubernetes-list-map-keys"];
  if (schema["x-kubernetes-list-type"] !== "map" || keys === undefined || !Array.isArray(oldValue)) return () => undefined;
  const keyOf = (item: unknown) =>
    typeof item === "object" && item !== null ? JSON.stringify(keys.map((k) => (item as Record<string, unknown>)[k])) : undefined;
  const byKey = new Map<string, unknown>();
  for (const old of oldValue) {
    const key = keyOf(old);
    if (key !== undefined) byKey.set(key, old);
  }
  return (item) => {
    const key = keyOf(item);
    return key === undefined ? undefined : byKey.get(key);
  };
}

function evaluateRules(node: ValidatorNode, path: string, value: unknown, oldValue: unknown, run: Run): void {
  if (node.rules.length === 0 || run.remaining < 0) return;
  const { errors } = run;
  const type = typeName(node.schema);
  const reportPath = path === "" ? "<nil>" : path;
  let self: CelInput | undefined;
  let oldSelf: CelInput | undefined;
  const selfValue = () => (self ??= toCelValue(value, node.celSchema));
  const oldSelfValue = () => (oldSelf ??= toCelValue(oldValue, node.celSchema));
  const hasOld = oldValue !== null && oldValue !== undefined;
  let bounds: Map<string, JSONSchemaProps> | undefined;
  /** Charges an evaluation's cost bound to the budget; false (with the error recorded) when it does not fit. */
  const charge = (expression: CompiledExpression, rule: ValidationRule): boolean => {
    bounds ??= new Map([
      [SELF, boundedSchema(value, node.celSchema)],
      [OLD_SELF, boundedSchema(oldValue, node.celSchema)],
    ]);
    const cost = expression.costFor(bounds);
    if (cost > PER_CALL_LIMIT) {
      errors.push(
        fieldInvalid(
          reportPath,
          type,
          `'operation cancelled: actual cost limit exceeded': no further validation rules will be run due to call cost exceeds limit for rule: ${ruleErrorString(rule)}`,
        ),
      );
      run.remaining = -1;
      return false;
    }
    if (cost > run.remaining) {
      errors.push(
        fieldInvalid(reportPath, type, "validation failed due to running out of cost budget, no further validation rules will be run"),
      );
      run.remaining = -1;
      return false;
    }
    run.remaining -= cost;
    return true;
  };
  for (const compiled of node.rules) {
    const { rule, expression } = compiled;
    if (compiled.error !== undefined) {
      errors.push(fieldInvalid(reportPath, type, `rule compile error: ${compiled.error}`));
      continue;
    }
    if (expression === undefined) continue;
    const usesOldSelf = expression.references.has(OLD_SELF);
    const optionalOldSelf = rule.optionalOldSelf === true;
    if (usesOldSelf && !hasOld && !optionalOldSelf) continue;
    const bindings: Record<string, unknown> = { [SELF]: selfValue() };
    if (usesOldSelf) {
      if (optionalOldSelf) bindings[OLD_SELF] = hasOld ? optionalOf(oldSelfValue()) : optionalNone();
      else bindings[OLD_SELF] = oldSelfValue();
    }
    if (!charge(expression, rule)) return;
    const result = expression.evaluate(bindings);
    if (isCelError(result)) {
      errors.push(fieldInvalid(reportPath, type, evaluationErrorDetail(result.message, rule)));
      continue;
    }
    if (result === true) continue;
    if (typeof result !== "boolean") {
      errors.push(fieldInvalid(reportPath, type, `rule did not evaluate to a bool evaluating rule: ${ruleErrorString(rule)}`));
      continue;
    }
    const target = compiled.fieldPath === "" ? reportPath : appendFieldPath(path, compiled.fieldPath);
    if (compiled.message !== undefined && !charge(compiled.message, rule)) return;
    const detail =
      (compiled.message !== undefined ? messageExpressionResult(compiled.message.evaluate(bindings)) : undefined) ??
      ruleMessageOrDefault(rule);
    errors.push(errorForReason(target, type, detail, rule.reason));
  }
}

function appendFieldPath(path: string, fieldPath: string): string {
  if (fieldPath.startsWith("[")) return `${path}${fieldPath}`;
  return childPath(path, fieldPath);
}

/** cel-go's wording for runtime failures (`no such key: x`, `no such overload`). */
function evaluationErrorDetail(message: string, rule: ValidationRule): string {
  const missing = /^field not found: (.*)$/.exec(message);
  if (missing !== null) return `no such key: ${missing[1]} evaluating rule: ${ruleErrorString(rule)}`;
  if (message.startsWith("found no matching overload") || message.startsWith("no such overload")) {
    return `'no such overload': call arguments did not match a supported operator, function or macro signature for rule: ${ruleErrorString(rule)}`;
  }
  return `${message} evaluating rule: ${ruleErrorString(rule)}`;
}

/** A messageExpression's message, or `undefined` to fall back to the rule's message as upstream does. */
function messageExpressionResult(result: CelResult): string | undefined {
  if (isCelError(result) || typeof result !== "string") return undefined;
  const trimmed = result.trim();
  if (trimmed.length === 0 || trimmed.length > MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES || /[\n]/.test(trimmed)) return undefined;
  return trimmed;
}

function errorForReason(path: string, type: string, detail: string, reason: string | undefined): FieldError {
  switch (reason) {
    case "FieldValueForbidden":
      return fieldForbidden(path, detail);
    case "FieldValueRequired":
      return fieldRequired(path, detail);
    case "FieldValueDuplicate":
      return fieldDuplicate(path, type);
    default:
      return fieldInvalid(path, type, detail);
  }
}
