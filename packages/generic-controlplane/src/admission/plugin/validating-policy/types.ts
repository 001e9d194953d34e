import type { KubeObject } from "../../../api/types.js";
import type { LabelSelectorObject } from "../../../selectors/index.js";

/** admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy and its binding, as stored. */

export interface NamedRuleWithOperations {
  apiGroups?: string[];
  apiVersions?: string[];
  resources?: string[];
  operations?: string[];
  scope?: string;
  resourceNames?: string[];
}

export interface MatchResources {
  namespaceSelector?: LabelSelectorObject;
  objectSelector?: LabelSelectorObject;
  resourceRules?: NamedRuleWithOperations[];
  excludeResourceRules?: NamedRuleWithOperations[];
  matchPolicy?: string;
}

export interface Validation {
  expression: string;
  message?: string;
  reason?: string;
  messageExpression?: string;
}

export interface AuditAnnotation {
  key: string;
  valueExpression: string;
}

export interface MatchCondition {
  name: string;
  expression: string;
}

export interface Variable {
  name: string;
  expression: string;
}

export interface ParamKind {
  apiVersion?: string;
  kind?: string;
}

export interface ValidatingAdmissionPolicySpec {
  paramKind?: ParamKind;
  matchConstraints?: MatchResources;
  validations?: Validation[];
  failurePolicy?: string;
  auditAnnotations?: AuditAnnotation[];
  matchConditions?: MatchCondition[];
  variables?: Variable[];
}

export interface ValidatingAdmissionPolicy extends KubeObject {
  spec?: ValidatingAdmissionPolicySpec;
  status?: {
    observedGeneration?: number;
    typeChecking?: { expressionWarnings?: Array<{ fieldRef: string; warning: string }> };
    conditions?: unknown[];
  };
}

export interface ParamRef {
  name?: string;
  namespace?: string;
  selector?: LabelSelectorObject;
  parameterNotFoundAction?: string;
}

export interface ValidatingAdmissionPolicyBindingSpec {
  policyName?: string;
  paramRef?: ParamRef;
  matchResources?: MatchResources;
  validationActions?: string[];
}

export interface ValidatingAdmissionPolicyBinding extends KubeObject {
  spec?: ValidatingAdmissionPolicyBindingSpec;
}

export const GROUP = "admissionregistration.k8s.io";
export const VERSION = "v1";
