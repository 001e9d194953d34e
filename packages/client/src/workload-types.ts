/**
 * Wire shapes of the cluster-setup objects next to pods: apps/v1 DaemonSet, scheduling.k8s.io/v1
 * PriorityClass and the rbac.authorization.k8s.io/v1 roles and bindings.
 */
import type { PodTemplateSpec } from "./core-types.js";
import type { KubeObject } from "./types.js";

export interface LabelSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: LabelSelectorRequirement[];
}

export interface DaemonSetSpec {
  selector: LabelSelector;
  template: PodTemplateSpec;
  updateStrategy?: { type?: string; rollingUpdate?: { maxUnavailable?: number | string; maxSurge?: number | string } };
  minReadySeconds?: number;
  revisionHistoryLimit?: number;
}

export interface DaemonSet extends KubeObject {
  spec?: DaemonSetSpec;
  status?: {
    currentNumberScheduled: number;
    desiredNumberScheduled: number;
    numberMisscheduled: number;
    numberReady: number;
    numberAvailable?: number;
    updatedNumberScheduled?: number;
    observedGeneration?: number;
    [field: string]: unknown;
  };
}

export interface PriorityClass extends KubeObject {
  value: number;
  globalDefault?: boolean;
  preemptionPolicy?: string;
  description?: string;
}

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface RoleRef {
  apiGroup: string;
  kind: string;
  name: string;
}

export interface Subject {
  kind: string;
  name: string;
  namespace?: string;
  apiGroup?: string;
}

export interface Role extends KubeObject {
  rules?: PolicyRule[];
}

export interface ClusterRole extends KubeObject {
  rules?: PolicyRule[];
  aggregationRule?: { clusterRoleSelectors?: LabelSelector[] };
}

export interface RoleBinding extends KubeObject {
  roleRef: RoleRef;
  subjects?: Subject[];
}

export interface ClusterRoleBinding extends KubeObject {
  roleRef: RoleRef;
  subjects?: Subject[];
}
