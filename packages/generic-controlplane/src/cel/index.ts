/** CEL for Kubernetes: the environment and libraries, compilation with cost estimates, and CRD validation rules. */
export { compileValidationRules, type CompileValidationOptions, type RuleValidator } from "./validator.js";
export { compileErrors } from "./compile-errors.js";
export { compileExpression, type CompiledExpression, type CompileResult } from "./compile.js";
export { createCelEnv, celFunctions } from "./environment.js";
export { toCelValue } from "./values.js";
export { escapePropertyName } from "./escape.js";
export type { ValidationRule } from "./rules.js";
export { PER_CALL_LIMIT, RUNTIME_CEL_COST_BUDGET, STATIC_ESTIMATED_COST_LIMIT, STATIC_ESTIMATED_CRD_COST_LIMIT } from "./limits.js";
export { admissionMatchConditionEvaluator, compileAdmissionExpression, type AdmissionBindings } from "./admission.js";
