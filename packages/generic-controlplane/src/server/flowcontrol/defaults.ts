import { createHash } from "node:crypto";
import type {
  FlowSchema,
  NonResourcePolicyRule,
  PolicyRulesWithSubjects,
  PriorityLevelConfiguration,
  ResourcePolicyRule,
  Subject,
} from "../../resources/flowcontrol-types.js";

// The API types are the flowcontrol resources' own; the server reads them from there.
export type {
  FlowSchema,
  NonResourcePolicyRule,
  PolicyRulesWithSubjects,
  PriorityLevelConfiguration,
  ResourcePolicyRule,
  Subject,
} from "../../resources/flowcontrol-types.js";

/** A stable uid per default object, so the `X-Kubernetes-PF-*-UID` headers do not change across restarts. */
function uidFor(kind: string, name: string): string {
  const hex = createHash("sha256").update(`flowcontrol.apiserver.k8s.io/${kind}/${name}`).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

const AUTO_UPDATE = { "apf.kubernetes.io/autoupdate-spec": "true" };

function level(
  name: string,
  shares: number,
  lendablePercent: number,
  queuing: { queues: number; handSize: number; queueLengthLimit: number } | undefined,
): PriorityLevelConfiguration {
  return {
    apiVersion: "flowcontrol.apiserver.k8s.io/v1",
    kind: "PriorityLevelConfiguration",
    metadata: { name, uid: uidFor("prioritylevelconfigurations", name), annotations: AUTO_UPDATE },
    spec: {
      type: "Limited",
      limited: {
        nominalConcurrencyShares: shares,
        lendablePercent,
        limitResponse: queuing ? { type: "Queue", queuing } : { type: "Reject" },
      },
    },
  };
}

const user = (name: string): Subject => ({ kind: "User", user: { name } });
const group = (name: string): Subject => ({ kind: "Group", group: { name } });
const serviceAccount = (namespace: string, name: string): Subject => ({ kind: "ServiceAccount", serviceAccount: { namespace, name } });
const everyone = [group("system:authenticated"), group("system:unauthenticated")];
const ALL = ["*"];
const allResources: ResourcePolicyRule = { verbs: ALL, apiGroups: ALL, resources: ALL, clusterScope: true, namespaces: ALL };
const allNonResources: NonResourcePolicyRule = { verbs: ALL, nonResourceURLs: ALL };

function schema(
  name: string,
  priorityLevel: string,
  precedence: number,
  distinguisher: "ByUser" | "ByNamespace" | undefined,
  rules: PolicyRulesWithSubjects[],
): FlowSchema {
  return {
    apiVersion: "flowcontrol.apiserver.k8s.io/v1",
    kind: "FlowSchema",
    metadata: { name, uid: uidFor("flowschemas", name), annotations: AUTO_UPDATE },
    spec: {
      priorityLevelConfiguration: { name: priorityLevel },
      matchingPrecedence: precedence,
      ...(distinguisher ? { distinguisherMethod: { type: distinguisher } } : {}),
      rules,
    },
  };
}

/**
 * The priority levels kube-apiserver creates (k8s.io/apiserver's `bootstrap` package): the
 * mandatory `exempt` and `catch-all`, and the suggested ones, with upstream's shares and queuing.
 */
export function defaultPriorityLevels(): PriorityLevelConfiguration[] {
  const q = (queues: number, handSize: number) => ({ queues, handSize, queueLengthLimit: 50 });
  return [
    {
      apiVersion: "flowcontrol.apiserver.k8s.io/v1",
      kind: "PriorityLevelConfiguration",
      metadata: { name: "exempt", uid: uidFor("prioritylevelconfigurations", "exempt"), annotations: AUTO_UPDATE },
      spec: { type: "Exempt", exempt: { nominalConcurrencyShares: 0, lendablePercent: 0 } },
    },
    level("system", 30, 33, q(64, 6)),
    level("node-high", 40, 25, q(64, 6)),
    level("leader-election", 10, 0, q(16, 4)),
    level("workload-high", 40, 50, q(128, 6)),
    level("workload-low", 100, 90, q(128, 6)),
    level("global-default", 20, 50, q(128, 6)),
    level("catch-all", 5, 0, undefined),
  ];
}

/** The FlowSchemas kube-apiserver creates: the mandatory `exempt`, `probes` and `catch-all`, and the suggested ones. */
export function defaultFlowSchemas(): FlowSchema[] {
  const leaderElectionResources: ResourcePolicyRule[] = [
    { verbs: ["get", "create", "update"], apiGroups: [""], resources: ["endpoints", "configmaps"], namespaces: ["kube-system"] },
    { verbs: ["get", "create", "update"], apiGroups: ["coordination.k8s.io"], resources: ["leases"], namespaces: ["kube-system"] },
  ];
  return [
    schema("exempt", "exempt", 1, undefined, [
      { subjects: [group("system:masters")], resourceRules: [allResources], nonResourceRules: [allNonResources] },
    ]),
    schema("probes", "exempt", 2, undefined, [
      { subjects: everyone, nonResourceRules: [{ verbs: ["get"], nonResourceURLs: ["/healthz", "/readyz", "/livez"] }] },
    ]),
    schema("system-leader-election", "leader-election", 100, "ByUser", [
      { subjects: [user("system:kube-controller-manager"), user("system:kube-scheduler")], resourceRules: leaderElectionResources },
    ]),
    schema("endpoint-controller", "workload-high", 150, "ByUser", [
      {
        subjects: [user("system:kube-controller-manager"), serviceAccount("kube-system", "endpoint-controller")],
        resourceRules: [{ verbs: ["get", "create", "update"], apiGroups: [""], resources: ["endpoints"], namespaces: ALL }],
      },
    ]),
    schema("workload-leader-election", "leader-election", 200, "ByUser", [
      { subjects: [serviceAccount("kube-system", "*")], resourceRules: leaderElectionResources },
    ]),
    schema("system-node-high", "node-high", 400, "ByUser", [
      {
        subjects: [group("system:nodes")],
        resourceRules: [
          { verbs: ALL, apiGroups: [""], resources: ["nodes", "nodes/status"], clusterScope: true },
          { verbs: ALL, apiGroups: ["coordination.k8s.io"], resources: ["leases"], namespaces: ALL },
        ],
      },
    ]),
    schema("system-nodes", "system", 500, "ByUser", [
      { subjects: [group("system:nodes")], resourceRules: [allResources], nonResourceRules: [allNonResources] },
    ]),
    schema("kube-controller-manager", "workload-high", 800, "ByNamespace", [
      { subjects: [user("system:kube-controller-manager")], resourceRules: [allResources], nonResourceRules: [allNonResources] },
    ]),
    schema("kube-scheduler", "workload-high", 800, "ByNamespace", [
      { subjects: [user("system:kube-scheduler")], resourceRules: [allResources], nonResourceRules: [allNonResources] },
    ]),
    schema("kube-system-service-accounts", "workload-high", 900, "ByNamespace", [
      { subjects: [serviceAccount("kube-system", "*")], resourceRules: [allResources], nonResourceRules: [allNonResources] },
    ]),
    schema("service-accounts", "workload-low", 9000, "ByUser", [
      { subjects: [group("system:serviceaccounts")], resourceRules: [allResources], nonResourceRules: [allNonResources] },
    ]),
    schema("global-default", "global-default", 9900, "ByUser", [
      { subjects: everyone, resourceRules: [allResources], nonResourceRules: [allNonResources] },
    ]),
    schema("catch-all", "catch-all", 10000, "ByUser", [
      { subjects: everyone, resourceRules: [allResources], nonResourceRules: [allNonResources] },
    ]),
  ];
}
