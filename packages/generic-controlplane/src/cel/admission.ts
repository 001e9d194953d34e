import { isCelError, type CelInput, type CelValue } from "@bufbuild/cel";
import { compileExpression, type CompiledExpression } from "./compile.js";
import { toCelValue } from "./values.js";

/**
 * The CEL environment of admission expressions (ValidatingAdmissionPolicy validations, variables,
 * auditAnnotations and matchConditions; webhook matchConditions): `object`, `oldObject`,
 * `request`, `params`, `namespaceObject` and `variables` are untyped values, and a missing
 * object (a DELETE's `object`, a CREATE's `oldObject`) is `null`.
 */

export const ADMISSION_VARIABLES = ["object", "oldObject", "request", "params", "namespaceObject", "variables", "authorizer"] as const;

const scope = new Map(ADMISSION_VARIABLES.map((name) => [name, undefined]));

export type AdmissionCompileResult = { ok: true; expression: CompiledExpression } | { ok: false; error: string };

export function compileAdmissionExpression(source: string): AdmissionCompileResult {
  return compileExpression(source, scope);
}

/** Plain JSON values bound to the admission variables, converted once per request. */
export type AdmissionBindings = Partial<Record<(typeof ADMISSION_VARIABLES)[number], unknown>>;

export function admissionActivation(bindings: AdmissionBindings): Record<string, CelInput> {
  const activation: Record<string, CelInput> = {};
  for (const name of ADMISSION_VARIABLES) {
    const value = bindings[name];
    activation[name] = name === "variables" ? (value as CelInput) : toCelValue(value ?? null, undefined);
  }
  return activation;
}

export type EvaluationResult = { ok: true; value: CelValue } | { ok: false; error: string };

export function evaluate(expression: CompiledExpression, activation: Record<string, CelInput>): EvaluationResult {
  const result = expression.evaluate(activation);
  if (isCelError(result)) return { ok: false, error: celErrorText(result.message) };
  return { ok: true, value: result };
}

/** cel-go's wording for common runtime failures. */
export function celErrorText(message: string): string {
  const missing = /^field not found: (.*)$/.exec(message);
  if (missing !== null) return `no such key: ${missing[1]}`;
  if (message.startsWith("found no matching overload")) return "no such overload";
  return message;
}

/**
 * A matchCondition evaluator: `compile` lists an expression's compile errors, `evaluate` runs it
 * and returns its boolean, throwing its evaluation error or a non-boolean result.
 */
export function admissionMatchConditionEvaluator() {
  const cache = new Map<string, AdmissionCompileResult>();
  const compiled = (source: string) => {
    let result = cache.get(source);
    if (result === undefined) {
      result = compileAdmissionExpression(source);
      if (cache.size > 1000) cache.clear();
      cache.set(source, result);
    }
    return result;
  };
  return {
    compile(expression: string): string[] {
      const result = compiled(expression);
      return result.ok ? [] : [result.error];
    },
    evaluate(expression: string, variables: AdmissionBindings): boolean {
      const result = compiled(expression);
      if (!result.ok) throw new Error(result.error);
      const outcome = evaluate(result.expression, admissionActivation(variables));
      if (!outcome.ok) throw new Error(outcome.error);
      if (typeof outcome.value !== "boolean") throw new Error("cel expression must evaluate to a bool");
      return outcome.value;
    },
  };
}
