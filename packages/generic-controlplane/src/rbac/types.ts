import type { KubeObject } from "../api/types.js";

/** rbac.authorization.k8s.io/v1 wire shapes (k8s.io/api/rbac/v1). */

export const RBAC_GROUP = "rbac.authorization.k8s.io";
export const RBAC_API_VERSION = `${RBAC_GROUP}/v1`;

export const ALL = "*";
export const SERVICE_ACCOUNT_KIND = "ServiceAccount";
export const USER_KIND = "User";
export const GROUP_KIND = "Group";

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

/** metav1.LabelSelector as sent on the wire. */
export interface WireLabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export interface AggregationRule {
  clusterRoleSelectors?: WireLabelSelector[];
}

export interface Role extends KubeObject {
  rules?: PolicyRule[];
}

export interface ClusterRole extends Role {
  aggregationRule?: AggregationRule;
}

export interface Subject {
  kind: string;
  apiGroup?: string;
  name: string;
  namespace?: string;
}

export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

export interface RoleBinding extends KubeObject {
  subjects?: Subject[];
  roleRef: RoleRef;
}

export type ClusterRoleBinding = RoleBinding;
