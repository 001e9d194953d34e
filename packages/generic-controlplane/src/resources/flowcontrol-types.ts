/** flowcontrol.apiserver.k8s.io/v1 shapes (the fields this server acts on). */
export interface Subject {
  kind: "User" | "Group" | "ServiceAccount";
  user?: { name: string };
  group?: { name: string };
  serviceAccount?: { namespace: string; name: string };
}

export interface ResourcePolicyRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  clusterScope?: boolean;
  namespaces?: string[];
}

export interface NonResourcePolicyRule {
  verbs: string[];
  nonResourceURLs: string[];
}

export interface PolicyRulesWithSubjects {
  subjects: Subject[];
  resourceRules?: ResourcePolicyRule[];
  nonResourceRules?: NonResourcePolicyRule[];
}

export interface FlowSchema {
  apiVersion: "flowcontrol.apiserver.k8s.io/v1";
  kind: "FlowSchema";
  metadata: { name: string; uid: string; annotations: Record<string, string> };
  spec: {
    priorityLevelConfiguration: { name: string };
    matchingPrecedence: number;
    distinguisherMethod?: { type: "ByUser" | "ByNamespace" };
    rules: PolicyRulesWithSubjects[];
  };
}

export interface PriorityLevelConfiguration {
  apiVersion: "flowcontrol.apiserver.k8s.io/v1";
  kind: "PriorityLevelConfiguration";
  metadata: { name: string; uid: string; annotations: Record<string, string> };
  spec:
    | { type: "Exempt"; exempt: { nominalConcurrencyShares: number; lendablePercent: number } }
    | {
        type: "Limited";
        limited: {
          nominalConcurrencyShares: number;
          lendablePercent: number;
          limitResponse: { type: "Reject" } | { type: "Queue"; queuing: { queues: number; handSize: number; queueLengthLimit: number } };
        };
      };
}
