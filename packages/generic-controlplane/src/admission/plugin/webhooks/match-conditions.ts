import type { KubeObject } from "../../../api/types.js";
import type { AdmissionReviewRequest } from "./admission-review.js";
import type { MatchCondition } from "./types.js";

/** The variables a matchCondition expression sees (upstream's `object`, `oldObject`, `request`). */
export interface MatchConditionVariables {
  object: KubeObject | null;
  oldObject: KubeObject | null;
  request: AdmissionReviewRequest;
}

/**
 * The CEL environment matchConditions compile and run in (upstream's admission CEL environment).
 * `compile` returns the compilation errors of an expression (none when it is a valid boolean
 * expression); `evaluate` runs one, returning its boolean or throwing its evaluation error.
 */
export interface MatchConditionEvaluator {
  compile(expression: string): string[];
  evaluate(expression: string, variables: MatchConditionVariables): boolean;
}

export type MatchResult = { matches: true } | { matches: false } | { error: string };

/**
 * Upstream `matchconditions.Matcher.Match`: the webhook is called only when every condition is
 * true; any false condition skips it even if others failed to evaluate; otherwise evaluation
 * errors are the result (failurePolicy Ignore skips the webhook, Fail refuses the request).
 */
export function matchConditions(
  conditions: readonly MatchCondition[],
  evaluator: MatchConditionEvaluator | undefined,
  variables: MatchConditionVariables,
): MatchResult {
  if (conditions.length === 0) return { matches: true };
  const errors: string[] = [];
  for (const condition of conditions) {
    if (evaluator === undefined) {
      errors.push(`expression '${condition.expression}' resulted in error: no CEL evaluator is configured`);
      continue;
    }
    try {
      if (!evaluator.evaluate(condition.expression, variables)) return { matches: false };
    } catch (error) {
      errors.push(`expression '${condition.expression}' resulted in error: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (errors.length > 0) return { error: errors.length === 1 ? (errors[0] ?? "") : `[${errors.join(", ")}]` };
  return { matches: true };
}
