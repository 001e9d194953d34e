import { celMap, type CelInput } from "@bufbuild/cel";
import { admissionActivation, compileAdmissionExpression, evaluate, type AdmissionBindings } from "../../../cel/admission.js";
import type { CompiledExpression } from "../../../cel/compile.js";
import { MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES } from "../../../cel/limits.js";
import type { ValidatingAdmissionPolicy } from "./types.js";

/**
 * A policy's expressions compiled once per policy generation, and their evaluation against one
 * request (apiserver's `validating.validator.Validate`): matchConditions, then variables in
 * order, then every validation and audit annotation.
 */

type Compiled = { ok: true; expression: CompiledExpression } | { ok: false; error: string };

export interface ValidationOutcome {
  /** The validation failed (false) or could not be evaluated. */
  failed: boolean;
  /** Evaluation failed: failurePolicy decides. */
  error: boolean;
  message: string;
  reason: string | undefined;
  expressionIndex: number;
}

export type PolicyEvaluation =
  | { kind: "skipped" }
  | { kind: "error"; message: string }
  | { kind: "evaluated"; validations: ValidationOutcome[]; auditAnnotations: Array<{ key: string; value: string }> };

function compile(source: string): Compiled {
  const result = compileAdmissionExpression(source);
  return result.ok ? result : { ok: false, error: result.error };
}

export class CompiledPolicy {
  private readonly matchConditions: Array<{ name: string; expression: Compiled }>;
  private readonly variables: Array<{ name: string; expression: Compiled }>;
  private readonly validations: Array<{
    source: string;
    expression: Compiled;
    message: Compiled | undefined;
    text: string | undefined;
    reason: string | undefined;
  }>;
  private readonly auditAnnotations: Array<{ key: string; expression: Compiled }>;

  constructor(readonly policy: ValidatingAdmissionPolicy) {
    const spec = policy.spec ?? {};
    this.matchConditions = (spec.matchConditions ?? []).map((c) => ({ name: c.name, expression: compile(c.expression) }));
    this.variables = (spec.variables ?? []).map((v) => ({ name: v.name, expression: compile(v.expression) }));
    this.validations = (spec.validations ?? []).map((v) => ({
      source: v.expression,
      expression: compile(v.expression),
      message: v.messageExpression !== undefined && v.messageExpression.trim() !== "" ? compile(v.messageExpression) : undefined,
      text: v.message,
      reason: v.reason,
    }));
    this.auditAnnotations = (spec.auditAnnotations ?? []).map((a) => ({ key: a.key, expression: compile(a.valueExpression) }));
  }

  evaluate(bindings: AdmissionBindings): PolicyEvaluation {
    const activation = admissionActivation(bindings);
    const matched = this.matchConditionsHold(activation);
    if (matched !== true) return matched;
    activation.variables = this.compose(activation);
    const validations: ValidationOutcome[] = [];
    this.validations.forEach((validation, i) => {
      const expressionError = (error: string): ValidationOutcome => ({
        failed: true,
        error: true,
        message: `expression '${validation.source}' resulted in error: ${error}`,
        reason: undefined,
        expressionIndex: i,
      });
      if (!validation.expression.ok) {
        validations.push(expressionError(validation.expression.error));
        return;
      }
      const result = evaluate(validation.expression.expression, activation);
      if (!result.ok) {
        validations.push(expressionError(result.error));
        return;
      }
      if (result.value === true) return;
      if (typeof result.value !== "boolean") {
        validations.push(expressionError("validation expression must evaluate to a bool"));
        return;
      }
      validations.push({
        failed: true,
        error: false,
        message: this.message(validation, activation),
        reason: validation.reason,
        expressionIndex: i,
      });
    });
    const auditAnnotations: Array<{ key: string; value: string }> = [];
    for (const annotation of this.auditAnnotations) {
      if (!annotation.expression.ok) continue;
      const result = evaluate(annotation.expression.expression, activation);
      if (!result.ok || result.value === null) continue;
      if (typeof result.value === "string" && result.value !== "") auditAnnotations.push({ key: annotation.key, value: result.value });
    }
    return { kind: "evaluated", validations, auditAnnotations };
  }

  /** true, `skipped` when a condition is false, or the evaluation error (failurePolicy decides). */
  private matchConditionsHold(activation: Record<string, CelInput>): true | PolicyEvaluation {
    const errors: string[] = [];
    for (const condition of this.matchConditions) {
      if (!condition.expression.ok) {
        errors.push(`compilation failed: ${condition.expression.error}`);
        continue;
      }
      const result = evaluate(condition.expression.expression, activation);
      if (!result.ok) errors.push(`failed to evaluate matchCondition ${condition.name}: ${result.error}`);
      else if (result.value === false) return { kind: "skipped" };
    }
    return errors.length === 0 ? true : { kind: "error", message: errors.join("; ") };
  }

  /** `variables.<name>`, each evaluated in order so later ones can use earlier ones; failures are left out. */
  private compose(activation: Record<string, CelInput>): CelInput {
    const values = new Map<string, CelInput>();
    for (const variable of this.variables) {
      activation.variables = celMap(values);
      if (!variable.expression.ok) continue;
      const result = evaluate(variable.expression.expression, activation);
      if (result.ok) values.set(variable.name, result.value);
    }
    return celMap(values);
  }

  private message(validation: (typeof this.validations)[number], activation: Record<string, CelInput>): string {
    if (validation.message?.ok === true) {
      const result = evaluate(validation.message.expression, activation);
      if (result.ok && typeof result.value === "string") {
        const text = result.value.trim();
        if (text !== "" && text.length <= MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES && !/[\n]/.test(text)) return text;
      }
    }
    if (validation.text !== undefined && validation.text.trim() !== "") return validation.text.trim();
    return `failed expression: ${validation.source.trim()}`;
  }
}
