/**
 * The CEL budgets of k8s.io/apiserver `apis/cel` and apiextensions' CRD validation: what one
 * expression, one object and one CRD may cost, and the request size that bounds unbounded lists.
 */
export const PER_CALL_LIMIT = 1_000_000;
export const RUNTIME_CEL_COST_BUDGET = 10_000_000;
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;
export const MAX_REQUEST_SIZE_BYTES = 3 * 1024 * 1024;
export const MAX_EVALUATED_MESSAGE_EXPRESSION_SIZE_BYTES = 5 * 1024;

/** `exceeds budget by factor of 2.5x (try simplifying …)`, worded as apiextensions does. */
export function costErrorMessage(costName: string, cost: number, limit: number): string {
  const exceedFactor = cost / limit;
  let factor: string;
  if (exceedFactor > 100) factor = "more than 100x";
  else if (exceedFactor < 1.5) factor = `${exceedFactor.toFixed(6)}x`;
  else factor = `${exceedFactor.toFixed(1)}x`;
  return `${costName} exceeds budget by factor of ${factor} (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`;
}
