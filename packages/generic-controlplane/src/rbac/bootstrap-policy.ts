import { RBAC_API_VERSION, type ClusterRole, type ClusterRoleBinding, type PolicyRule, type Subject } from "./types.js";

/**
 * The bootstrap roles and bindings of plugin/pkg/auth/authorizer/rbac/bootstrappolicy that fit a
 * generic control plane (no nodes, pods or workloads run here, so their roles are left out, but
 * the user-facing admin/edit/view keep upstream's rules so policies written for a cluster work).
 */

const READ = ["get", "list", "watch"];
const WRITE = ["create", "update", "patch", "delete", "deletecollection"];
const READ_WRITE = [...READ, ...WRITE];

export const BOOTSTRAP_LABEL = { "kubernetes.io/bootstrapping": "rbac-defaults" };
export const AUTOUPDATE_ANNOTATION = "rbac.authorization.kubernetes.io/autoupdate";
const AGGREGATE_TO = (role: string) => `rbac.authorization.k8s.io/aggregate-to-${role}`;

function rule(verbs: string[], groups: string[], resources: string[], names?: string[]): PolicyRule {
  const out: PolicyRule = { verbs, apiGroups: groups, resources };
  if (names !== undefined) out.resourceNames = names;
  return out;
}
function urls(verbs: string[], paths: string[]): PolicyRule {
  return { verbs, nonResourceURLs: paths };
}

const EVENTS_RULE = rule(["create", "update", "patch"], ["", "events.k8s.io"], ["events"]);

function clusterRole(
  name: string,
  rules: PolicyRule[] | undefined,
  options: { labels?: Record<string, string>; aggregateFrom?: string } = {},
): ClusterRole {
  const role: ClusterRole = {
    apiVersion: RBAC_API_VERSION,
    kind: "ClusterRole",
    metadata: { name, labels: { ...BOOTSTRAP_LABEL, ...(options.labels ?? {}) }, annotations: { [AUTOUPDATE_ANNOTATION]: "true" } },
  };
  if (options.aggregateFrom !== undefined)
    role.aggregationRule = { clusterRoleSelectors: [{ matchLabels: { [AGGREGATE_TO(options.aggregateFrom)]: "true" } }] };
  if (rules !== undefined) role.rules = rules;
  return role;
}

function clusterRoleBinding(role: string, subjects: Subject[], name = role): ClusterRoleBinding {
  return {
    apiVersion: RBAC_API_VERSION,
    kind: "ClusterRoleBinding",
    metadata: { name, labels: { ...BOOTSTRAP_LABEL }, annotations: { [AUTOUPDATE_ANNOTATION]: "true" } },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: role },
    subjects,
  };
}
const group = (name: string): Subject => ({ kind: "Group", apiGroup: "rbac.authorization.k8s.io", name });
const user = (name: string): Subject => ({ kind: "User", apiGroup: "rbac.authorization.k8s.io", name });

/** `ClusterRoles()`. */
export function bootstrapClusterRoles(): ClusterRole[] {
  return [
    clusterRole("cluster-admin", [rule(["*"], ["*"], ["*"]), urls(["*"], ["*"])]),
    clusterRole("system:discovery", [
      urls(
        ["get"],
        ["/api", "/api/*", "/apis", "/apis/*", "/healthz", "/livez", "/openapi", "/openapi/*", "/readyz", "/version", "/version/"],
      ),
    ]),
    clusterRole("system:monitoring", [
      urls(["get"], ["/healthz", "/healthz/*", "/livez", "/livez/*", "/metrics", "/metrics/slis", "/readyz", "/readyz/*"]),
    ]),
    clusterRole("system:basic-user", [
      rule(["create"], ["authorization.k8s.io"], ["selfsubjectaccessreviews", "selfsubjectrulesreviews"]),
      rule(["create"], ["authentication.k8s.io"], ["selfsubjectreviews"]),
    ]),
    clusterRole("system:public-info-viewer", [urls(["get"], ["/healthz", "/livez", "/readyz", "/version", "/version/"])]),
    clusterRole("admin", undefined, { aggregateFrom: "admin" }),
    clusterRole("edit", undefined, { labels: { [AGGREGATE_TO("admin")]: "true" }, aggregateFrom: "edit" }),
    clusterRole("view", undefined, { labels: { [AGGREGATE_TO("edit")]: "true" }, aggregateFrom: "view" }),
    clusterRole(
      "system:aggregate-to-admin",
      [
        rule(["create"], ["authorization.k8s.io"], ["localsubjectaccessreviews"]),
        rule(READ_WRITE, ["rbac.authorization.k8s.io"], ["rolebindings", "roles"]),
      ],
      { labels: { [AGGREGATE_TO("admin")]: "true" } },
    ),
    clusterRole(
      "system:aggregate-to-edit",
      [
        rule(READ, [""], ["pods/attach", "pods/exec", "pods/portforward", "pods/proxy", "secrets", "services/proxy"]),
        rule(["impersonate"], [""], ["serviceaccounts"]),
        rule(WRITE, [""], ["pods", "pods/attach", "pods/exec", "pods/portforward", "pods/proxy"]),
        rule(["create"], [""], ["pods/eviction"]),
        rule(
          WRITE,
          [""],
          [
            "configmaps",
            "events",
            "persistentvolumeclaims",
            "replicationcontrollers",
            "replicationcontrollers/scale",
            "secrets",
            "serviceaccounts",
            "services",
            "services/proxy",
          ],
        ),
        rule(["create"], [""], ["serviceaccounts/token"]),
        rule(
          WRITE,
          ["apps"],
          [
            "daemonsets",
            "deployments",
            "deployments/rollback",
            "deployments/scale",
            "replicasets",
            "replicasets/scale",
            "statefulsets",
            "statefulsets/scale",
          ],
        ),
        rule(WRITE, ["autoscaling"], ["horizontalpodautoscalers"]),
        rule(WRITE, ["batch"], ["cronjobs", "jobs"]),
        rule(
          WRITE,
          ["extensions"],
          [
            "daemonsets",
            "deployments",
            "deployments/rollback",
            "deployments/scale",
            "ingresses",
            "networkpolicies",
            "replicasets",
            "replicasets/scale",
            "replicationcontrollers/scale",
          ],
        ),
        rule(WRITE, ["policy"], ["poddisruptionbudgets"]),
        rule(WRITE, ["networking.k8s.io"], ["ingresses", "networkpolicies"]),
      ],
      { labels: { [AGGREGATE_TO("edit")]: "true" } },
    ),
    clusterRole(
      "system:aggregate-to-view",
      [
        rule(
          READ,
          [""],
          [
            "configmaps",
            "endpoints",
            "persistentvolumeclaims",
            "persistentvolumeclaims/status",
            "pods",
            "replicationcontrollers",
            "replicationcontrollers/scale",
            "serviceaccounts",
            "services",
            "services/status",
          ],
        ),
        rule(
          READ,
          [""],
          [
            "bindings",
            "events",
            "limitranges",
            "namespaces/status",
            "pods/log",
            "pods/status",
            "replicationcontrollers/status",
            "resourcequotas",
            "resourcequotas/status",
          ],
        ),
        rule(READ, [""], ["namespaces"]),
        rule(READ, ["discovery.k8s.io"], ["endpointslices"]),
        rule(
          READ,
          ["apps"],
          [
            "controllerrevisions",
            "daemonsets",
            "daemonsets/status",
            "deployments",
            "deployments/scale",
            "deployments/status",
            "replicasets",
            "replicasets/scale",
            "replicasets/status",
            "statefulsets",
            "statefulsets/scale",
            "statefulsets/status",
          ],
        ),
        rule(READ, ["autoscaling"], ["horizontalpodautoscalers", "horizontalpodautoscalers/status"]),
        rule(READ, ["batch"], ["cronjobs", "cronjobs/status", "jobs", "jobs/status"]),
        rule(
          READ,
          ["extensions"],
          [
            "daemonsets",
            "daemonsets/status",
            "deployments",
            "deployments/scale",
            "deployments/status",
            "ingresses",
            "ingresses/status",
            "networkpolicies",
            "replicasets",
            "replicasets/scale",
            "replicasets/status",
            "replicationcontrollers/scale",
          ],
        ),
        rule(READ, ["policy"], ["poddisruptionbudgets", "poddisruptionbudgets/status"]),
        rule(READ, ["networking.k8s.io"], ["ingresses", "ingresses/status", "networkpolicies"]),
      ],
      { labels: { [AGGREGATE_TO("view")]: "true" } },
    ),
    clusterRole("system:auth-delegator", [
      rule(["create"], ["authentication.k8s.io"], ["tokenreviews"]),
      rule(["create"], ["authorization.k8s.io"], ["subjectaccessreviews"]),
    ]),
    clusterRole("system:kube-controller-manager", [
      EVENTS_RULE,
      rule(["create"], ["coordination.k8s.io"], ["leases"]),
      rule(["get", "update"], ["coordination.k8s.io"], ["leases"], ["kube-controller-manager"]),
      rule(["create"], [""], ["secrets", "serviceaccounts"]),
      rule(["delete"], [""], ["secrets"]),
      rule(["get"], [""], ["configmaps", "namespaces", "secrets", "serviceaccounts"]),
      rule(["update"], [""], ["secrets", "serviceaccounts"]),
      rule(["create"], ["authentication.k8s.io"], ["tokenreviews"]),
      rule(["create"], ["authorization.k8s.io"], ["subjectaccessreviews"]),
      rule(["list", "watch"], ["*"], ["*"]),
      rule(["create"], [""], ["serviceaccounts/token"]),
    ]),
    ...controllerRoles(),
  ];
}

/** The `system:controller:*` roles of the controllers this package runs (bootstrappolicy/controller_policy.go). */
function controllerRoles(): ClusterRole[] {
  return [
    clusterRole("system:controller:clusterrole-aggregation-controller", [
      rule(["escalate", "get", "list", "patch", "update", "watch"], ["rbac.authorization.k8s.io"], ["clusterroles"]),
    ]),
    clusterRole("system:controller:garbage-collector", [
      rule(["delete", "get", "list", "patch", "update", "watch"], ["*"], ["*"]),
      EVENTS_RULE,
    ]),
    clusterRole("system:controller:namespace-controller", [
      rule(["delete", "get", "list", "watch"], [""], ["namespaces"]),
      rule(["update"], [""], ["namespaces/finalize", "namespaces/status"]),
      rule(["delete", "deletecollection", "get", "list"], ["*"], ["*"]),
    ]),
    clusterRole("system:controller:service-account-controller", [rule(["create"], [""], ["serviceaccounts"]), EVENTS_RULE]),
  ];
}

const CONTROLLER_ACCOUNTS: Record<string, string> = {
  "system:controller:clusterrole-aggregation-controller": "clusterrole-aggregation-controller",
  "system:controller:garbage-collector": "generic-garbage-collector",
  "system:controller:namespace-controller": "namespace-controller",
  "system:controller:service-account-controller": "service-account-controller",
};

/** `ClusterRoleBindings()` and the controller bindings, each to its ServiceAccount in kube-system. */
export function bootstrapClusterRoleBindings(): ClusterRoleBinding[] {
  return [
    clusterRoleBinding("cluster-admin", [group("system:masters")]),
    clusterRoleBinding("system:monitoring", [group("system:monitoring")]),
    clusterRoleBinding("system:discovery", [group("system:authenticated")]),
    clusterRoleBinding("system:basic-user", [group("system:authenticated")]),
    clusterRoleBinding("system:public-info-viewer", [group("system:authenticated"), group("system:unauthenticated")]),
    clusterRoleBinding("system:kube-controller-manager", [user("system:kube-controller-manager")]),
    ...Object.entries(CONTROLLER_ACCOUNTS).map(([role, account]) =>
      clusterRoleBinding(role, [{ kind: "ServiceAccount", name: account, namespace: "kube-system" }]),
    ),
  ];
}
