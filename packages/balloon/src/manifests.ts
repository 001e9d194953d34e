import type {
  ClusterRole,
  ClusterRoleBinding,
  DaemonSet,
  KubeObject,
  PriorityClass,
  Role,
  RoleBinding,
  ServiceAccount,
} from "@kubekit/client";
import { stringify } from "yaml";
import { BalloonError } from "./errors.js";
import {
  BALLOON_CAPACITY_ANNOTATION,
  BALLOON_CAPACITY_ANNOTATION_VALUE,
  BALLOON_CONTAINER,
  BALLOON_LABEL,
  BALLOON_LABEL_VALUE,
  BALLOON_PRIORITY,
  DEFAULT_NAME,
  DEFAULT_NAMESPACE,
} from "./names.js";
import { resourceListStrings, type ResourceList } from "./resource-list.js";
import { DEFAULT_FLOOR, requireResizable } from "./sizing-rules.js";

/** The pause image the balloon runs: it sleeps and uses next to nothing of what it requests. */
export const DEFAULT_IMAGE = "registry.k8s.io/pause:3.10";

export interface BalloonManifestOptions {
  /** Base name of every object (default `node-balloon`). Cannot start with `system-` (reserved for PriorityClasses). */
  readonly name?: string;
  /** Namespace of the DaemonSet, ServiceAccount and Role (default `kube-system`, as KEP-5620 says). */
  readonly namespace?: string;
  readonly image?: string;
  /**
   * The template's requests (default 1m cpu, 1Mi memory). Keep them tiny: a recreated balloon
   * starts at this size, and the resizer grows it back to the node's target.
   */
  readonly requests?: ResourceList;
  /** PriorityClass value, at most 1,000,000,000 (the user-definable maximum). */
  readonly priority?: number;
  /**
   * Give the balloon a memory limit equal to its memory request (the pod stays Burstable: CPU has
   * no limit). The kubelet never lets such a container swap, so memory resizes stay feasible on
   * nodes with `LimitedSwap`; the resizer then moves the limit with the request.
   */
  readonly memoryLimit?: boolean;
  /** Node selector for the DaemonSet (default `kubernetes.io/os: linux`). */
  readonly nodeSelector?: Readonly<Record<string, string>>;
}

/** Everything a cluster needs for balloons, as typed wire objects of `@kubekit/client`. */
export interface BalloonManifests {
  readonly priorityClass: PriorityClass;
  readonly daemonSet: DaemonSet;
  /** The identity of the resizing agent. */
  readonly serviceAccount: ServiceAccount;
  /** Cluster-wide read of nodes and pods, which the agent needs to see what else runs on a node. */
  readonly clusterRole: ClusterRole;
  readonly clusterRoleBinding: ClusterRoleBinding;
  /** `pods/resize` only in the balloon namespace, so the agent cannot resize workloads. */
  readonly role: Role;
  readonly roleBinding: RoleBinding;
}

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function checkOptions(name: string, namespace: string, priority: number, requests: ResourceList): void {
  // The name also becomes "<name>-resizer" and a label value, so keep it a DNS label of ≤ 50 chars.
  if (!DNS_LABEL.test(name) || name.length > 50) {
    throw new BalloonError("invalid-argument", `name ${JSON.stringify(name)} must be a DNS label of at most 50 characters`);
  }
  if (name.startsWith("system-")) {
    throw new BalloonError("invalid-argument", `name ${JSON.stringify(name)}: the system- prefix is reserved for built-in PriorityClasses`);
  }
  if (!DNS_LABEL.test(namespace) || namespace.length > 63) {
    throw new BalloonError("invalid-argument", `namespace ${JSON.stringify(namespace)} is not a valid namespace name`);
  }
  if (!Number.isSafeInteger(priority) || priority > BALLOON_PRIORITY || priority < -2147483648) {
    throw new BalloonError(
      "invalid-argument",
      `priority ${priority} must be an integer of at most ${BALLOON_PRIORITY}: higher values are system-critical and make the kubelet evict pods for the balloon`,
    );
  }
  for (const [resource, quantity] of Object.entries(requests)) {
    requireResizable(resource, "requests");
    if (quantity.sign() < 0) throw new BalloonError("invalid-argument", `requests ${resource} must not be negative`);
  }
  if (!Object.values(requests).some((quantity) => quantity.sign() > 0)) {
    throw new BalloonError(
      "invalid-argument",
      "requests need at least one amount above zero, or the balloon is BestEffort and cannot be resized",
    );
  }
}

/**
 * The balloon bundle: a PriorityClass that never preempts, the DaemonSet that puts one balloon pod
 * on every node, and RBAC for the agent that resizes balloons.
 */
export function balloonManifests(options: BalloonManifestOptions = {}): BalloonManifests {
  const name = options.name ?? DEFAULT_NAME;
  const namespace = options.namespace ?? DEFAULT_NAMESPACE;
  const priority = options.priority ?? BALLOON_PRIORITY;
  const requests = options.requests ?? DEFAULT_FLOOR;
  checkOptions(name, namespace, priority, requests);
  if (options.memoryLimit && !requests.memory?.sign()) {
    throw new BalloonError("invalid-argument", "memoryLimit needs a memory request above zero to equal");
  }
  const agent = `${name}-resizer`;
  const labels = { "app.kubernetes.io/name": name, "app.kubernetes.io/part-of": "kubekit-balloon" };
  const podLabels = { ...labels, [BALLOON_LABEL]: BALLOON_LABEL_VALUE };

  const priorityClass: PriorityClass = {
    apiVersion: "scheduling.k8s.io/v1",
    kind: "PriorityClass",
    metadata: { name, labels },
    value: priority,
    // Never: an upsize that does not fit waits (Deferred) instead of preempting a running pod.
    preemptionPolicy: "Never",
    globalDefault: false,
    description:
      "Balloon pods (KEP-5620): requests that stand for node capacity that does not exist. Below system-critical so the kubelet never evicts workloads for a balloon.",
  };

  const daemonSet: DaemonSet = {
    apiVersion: "apps/v1",
    kind: "DaemonSet",
    metadata: { name, namespace, labels },
    spec: {
      selector: { matchLabels: podLabels },
      // A rollout would recreate every balloon at the template size and silently regrow every node.
      updateStrategy: { type: "OnDelete" },
      template: {
        metadata: {
          labels: podLabels,
          annotations: { [BALLOON_CAPACITY_ANNOTATION]: BALLOON_CAPACITY_ANNOTATION_VALUE },
        },
        spec: {
          priorityClassName: name,
          nodeSelector: { ...(options.nodeSelector ?? { "kubernetes.io/os": "linux" }) },
          // A balloon belongs on every node, tainted or not.
          tolerations: [{ operator: "Exists" }],
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          terminationGracePeriodSeconds: 1,
          securityContext: { runAsNonRoot: true, runAsUser: 65535, runAsGroup: 65535, seccompProfile: { type: "RuntimeDefault" } },
          containers: [
            {
              name: BALLOON_CONTAINER,
              image: options.image ?? DEFAULT_IMAGE,
              // Requests only (Burstable): no memory-limit decreases, no static CPU manager pinning.
              // With memoryLimit, memory gets limit = request so the container never swaps.
              resources: {
                requests: resourceListStrings(requests),
                ...(options.memoryLimit && requests.memory ? { limits: { memory: requests.memory.toString() } } : {}),
              },
              resizePolicy: [
                { resourceName: "cpu", restartPolicy: "NotRequired" },
                { resourceName: "memory", restartPolicy: "NotRequired" },
              ],
              securityContext: {
                allowPrivilegeEscalation: false,
                readOnlyRootFilesystem: true,
                capabilities: { drop: ["ALL"] },
              },
            },
          ],
        },
      },
    },
  };

  const serviceAccount: ServiceAccount = {
    apiVersion: "v1",
    kind: "ServiceAccount",
    metadata: { name: agent, namespace, labels },
  };

  const clusterRole: ClusterRole = {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRole",
    metadata: { name: agent, labels },
    rules: [
      { apiGroups: [""], resources: ["nodes"], verbs: ["get", "list", "watch"] },
      { apiGroups: [""], resources: ["pods"], verbs: ["get", "list", "watch"] },
    ],
  };

  const clusterRoleBinding: ClusterRoleBinding = {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "ClusterRoleBinding",
    metadata: { name: agent, labels },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: agent },
    subjects: [{ kind: "ServiceAccount", name: agent, namespace }],
  };

  const role: Role = {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "Role",
    metadata: { name: agent, namespace, labels },
    rules: [{ apiGroups: [""], resources: ["pods/resize"], verbs: ["get", "patch", "update"] }],
  };

  const roleBinding: RoleBinding = {
    apiVersion: "rbac.authorization.k8s.io/v1",
    kind: "RoleBinding",
    metadata: { name: agent, namespace, labels },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: agent },
    subjects: [{ kind: "ServiceAccount", name: agent, namespace }],
  };

  return { priorityClass, daemonSet, serviceAccount, clusterRole, clusterRoleBinding, role, roleBinding };
}

/** The bundle in apply order: the PriorityClass before the DaemonSet that names it, RBAC after its subjects. */
export function manifestList(bundle: BalloonManifests): KubeObject[] {
  return [
    bundle.priorityClass,
    bundle.serviceAccount,
    bundle.clusterRole,
    bundle.clusterRoleBinding,
    bundle.role,
    bundle.roleBinding,
    bundle.daemonSet,
  ];
}

/** The bundle as one multi-document YAML stream, ready for `kubectl apply -f -`. */
export function manifestsToYaml(bundle: BalloonManifests): string {
  // Objects share values (the pod labels are both selector and template labels); print each
  // occurrence in full rather than as YAML anchors and aliases, which many tools mishandle.
  return manifestList(bundle)
    .map((object) => stringify(object, { aliasDuplicateObjects: false }))
    .join("---\n");
}
