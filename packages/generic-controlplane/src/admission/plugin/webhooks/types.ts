import type { KubeObject } from "../../../api/types.js";
import type { LabelSelectorObject } from "../../../selectors/index.js";
import type { WebhookClientConfig } from "../../../webhook/client-config.js";

/** admissionregistration.k8s.io/v1 RuleWithOperations. */
export interface RuleWithOperations {
  operations?: string[];
  apiGroups?: string[];
  apiVersions?: string[];
  /** `configmaps`, `configmaps/status`, `*`, `*\/status`, `configmaps/*`. */
  resources?: string[];
  /** `Cluster`, `Namespaced` or `*` (default). */
  scope?: string;
}

export interface MatchCondition {
  name: string;
  expression: string;
}

/** The fields ValidatingWebhook and MutatingWebhook share. */
export interface Webhook {
  name: string;
  clientConfig: WebhookClientConfig;
  rules?: RuleWithOperations[];
  failurePolicy?: "Fail" | "Ignore";
  matchPolicy?: "Exact" | "Equivalent";
  namespaceSelector?: LabelSelectorObject;
  objectSelector?: LabelSelectorObject;
  sideEffects?: string;
  timeoutSeconds?: number;
  admissionReviewVersions?: string[];
  matchConditions?: MatchCondition[];
  /** Mutating webhooks only. */
  reinvocationPolicy?: "Never" | "IfNeeded";
}

export interface WebhookConfiguration extends KubeObject {
  webhooks?: Webhook[];
}

export type WebhookKind = "Mutating" | "Validating";
