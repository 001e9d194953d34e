import { BALLOON_LABEL, BALLOON_LABEL_VALUE, balloonManifests, DEFAULT_NAME, DEFAULT_NAMESPACE, manifestList } from "@kubekit/balloon";
import type { ClusterRole, ClusterRoleBinding, KubeObject, Role, RoleBinding } from "@kubekit/client";
import { stringify } from "yaml";

export interface AgentManifestOptions {
  /** The agent's image (it runs `balloon-agent`). */
  readonly image: string;
  /** Base name, as `balloonManifests` (default `node-balloon`): the agent runs as `<name>-resizer`. */
  readonly name?: string;
  readonly namespace?: string;
}

/**
 * Everything the agent needs beside the balloon bundle: its Lease and Event rights, the
 * ValidatingAdmissionPolicy that confines its `pods/resize` right to balloon pods, and its Deployment.
 *
 * RBAC cannot select pods by label: the bundle's Role already limits `pods/resize` to the balloon
 * namespace, and the policy denies the agent's ServiceAccount any resize of a pod in it that does not
 * carry the balloon label (kube-system holds other pods too).
 */
export function agentManifests(options: AgentManifestOptions): KubeObject[] {
  const name = options.name ?? DEFAULT_NAME;
  const namespace = options.namespace ?? DEFAULT_NAMESPACE;
  const agent = `${name}-resizer`;
  const user = `system:serviceaccount:${namespace}:${agent}`;
  const labels = { "app.kubernetes.io/name": `${name}-agent`, "app.kubernetes.io/part-of": "kubekit-balloon" };

  const leaseRole: Role = {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "Role",
    metadata: { name: `${agent}-leader-election`, namespace, labels },
    rules: [{ apiGroups: ["coordination.k8s.io"], resources: ["leases"], verbs: ["get", "create", "update"] }],
  };
  // Events about Nodes (cluster-scoped) are written to "default", as client-go records them.
  const eventRole: Role = {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "Role",
    metadata: { name: `${agent}-events`, namespace: "default", labels },
    rules: [{ apiGroups: [""], resources: ["events"], verbs: ["create", "patch"] }],
  };
  // The effective size is published as an annotation on each Node.
  const nodeRole: ClusterRole = {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name: `${agent}-node-annotations`, labels },
    rules: [{ apiGroups: [""], resources: ["nodes"], verbs: ["patch"] }],
  };
  const nodeRoleBinding: ClusterRoleBinding = {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: `${agent}-node-annotations`, labels },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: `${agent}-node-annotations` },
    subjects: [{ kind: "ServiceAccount", name: agent, namespace }],
  };
  const bind = (role: Role): RoleBinding => ({
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "RoleBinding",
    metadata: { name: role.metadata?.name ?? agent, namespace: role.metadata?.namespace ?? namespace, labels },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: role.metadata?.name ?? agent },
    subjects: [{ kind: "ServiceAccount", name: agent, namespace }],
  });

  const policy: KubeObject = {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicy",
    metadata: { name: `${agent}-balloons-only`, labels },
    spec: {
      failurePolicy: "Fail",
      // kubectl patch --subresource resize and resizeNode's PATCH both reach admission as UPDATE of pods/resize.
      matchConstraints: { resourceRules: [{ apiGroups: [""], apiVersions: ["v1"], operations: ["UPDATE"], resources: ["pods/resize"] }] },
      matchConditions: [{ name: "is-balloon-agent", expression: `request.userInfo.username == ${JSON.stringify(user)}` }],
      validations: [
        {
          expression: `has(oldObject.metadata.labels) && ${JSON.stringify(BALLOON_LABEL)} in oldObject.metadata.labels && oldObject.metadata.labels[${JSON.stringify(BALLOON_LABEL)}] == ${JSON.stringify(BALLOON_LABEL_VALUE)}`,
          message: `${user} may resize only balloon pods (label ${BALLOON_LABEL}=${BALLOON_LABEL_VALUE})`,
          reason: "Forbidden",
        },
      ],
    },
  };
  const policyBinding: KubeObject = {
    apiVersion: "admissionregistration.k8s.io/v1",
    kind: "ValidatingAdmissionPolicyBinding",
    metadata: { name: `${agent}-balloons-only`, labels },
    spec: { policyName: `${agent}-balloons-only`, validationActions: ["Deny"] },
  };

  const deployment: KubeObject = {
    apiVersion: "apps/v1",
    kind: "Deployment",
    metadata: { name: `${name}-agent`, namespace, labels },
    spec: {
      // Two replicas, one leader: a standby takes over within the lease duration.
      replicas: 2,
      selector: { matchLabels: labels },
      template: {
        metadata: { labels },
        spec: {
          serviceAccountName: agent,
          priorityClassName: "system-cluster-critical",
          containers: [
            {
              name: "agent",
              image: options.image,
              args: [
                "--leader-elect",
                `--lease-namespace=${namespace}`,
                `--balloon-name=${name}`,
                `--balloon-namespace=${namespace}`,
                "--bind-address=0.0.0.0",
                "--port=8080",
              ],
              ports: [{ name: "metrics", containerPort: 8080 }],
              readinessProbe: { httpGet: { path: "/healthz", port: "metrics" } },
              resources: { requests: { cpu: "10m", memory: "64Mi" }, limits: { memory: "256Mi" } },
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                runAsNonRoot: true,
                capabilities: { drop: ["ALL"] },
              },
            },
          ],
        },
      },
    },
  };
  return [leaseRole, bind(leaseRole), eventRole, bind(eventRole), nodeRole, nodeRoleBinding, policy, policyBinding, deployment];
}

/** The balloon bundle and the agent's objects, in apply order, as one YAML stream. */
export function agentManifestsYaml(options: AgentManifestOptions): string {
  const bundle = balloonManifests({
    ...(options.name ? { name: options.name } : {}),
    ...(options.namespace ? { namespace: options.namespace } : {}),
  });
  return [...manifestList(bundle), ...agentManifests(options)]
    .map((object) => stringify(object, { aliasDuplicateObjects: false }))
    .join("---\n");
}
