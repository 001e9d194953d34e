import type { KubeObject } from "@kubekit/generic-controlplane";
import { controllerFor, isNotFound, type Controller, type Informer, type KubeClient } from "@kubekit/generic-controlplane/controllers";
import { NODE_LEASE_NAMESPACE } from "../kubelet/kubelet.js";
import type { Node, NodeCondition } from "../resources/nodes.js";
import type { Pod } from "../resources/pods.js";
import { NODE_LEASES, NODES, PODS } from "../refs.js";
import { nowRFC3339 } from "./util.js";

export interface NodeLifecycleOptions {
  /** kube-controller-manager's `--node-monitor-grace-period`: how long a node may post nothing before it is Unknown. Default 40 s. */
  gracePeriodMs?: number;
  /** `--node-monitor-period`: how often every node is checked. Default 5 s. */
  monitorPeriodMs?: number;
}

type Taint = NonNullable<NonNullable<Node["spec"]>["taints"]>[number] & { timeAdded?: string };

export const UNREACHABLE_TAINT = "node.kubernetes.io/unreachable";
export const NOT_READY_TAINT = "node.kubernetes.io/not-ready";
const MERGE_PATCH = "application/merge-patch+json";
/** The conditions a kubelet owns, which go Unknown when it stops posting. */
const KUBELET_CONDITIONS = ["Ready", "MemoryPressure", "DiskPressure", "PIDPressure"];

/** The taints a node's Ready condition calls for (taint-by-condition and the NoExecute tainting pass). */
function taintsFor(ready: NodeCondition | undefined): Array<{ key: string; effect: string }> {
  const key = ready?.status === "Unknown" ? UNREACHABLE_TAINT : ready?.status === "False" ? NOT_READY_TAINT : undefined;
  return key === undefined
    ? []
    : [
        { key, effect: "NoSchedule" },
        { key, effect: "NoExecute" },
      ];
}

/**
 * The node lifecycle controller (kube-controller-manager's nodelifecycle): a node whose kubelet
 * neither renews its Lease nor posts status for the grace period gets its kubelet conditions set
 * to Unknown ("Kubelet stopped posting node status.") and its pods marked not Ready; Ready=Unknown
 * adds the `node.kubernetes.io/unreachable` NoSchedule and NoExecute taints, Ready=False the
 * `node.kubernetes.io/not-ready` ones, and both go when the node is Ready again. The NoExecute
 * taints are what the taint eviction controller evicts pods by.
 */
export function nodeLifecycleController(options: NodeLifecycleOptions = {}): Controller {
  const gracePeriodMs = options.gracePeriodMs ?? 40_000;
  const monitorPeriodMs = options.monitorPeriodMs ?? 5_000;
  return controllerFor<NodeHealth>(NODES, {
    handlers: ({ state: { health, observe } }) => ({
      add: (node) => observe(node.metadata?.name ?? ""),
      update: (_old, node) => observe(node.metadata?.name ?? ""),
      delete: (node) => health.delete(node.metadata?.name ?? ""),
    }),
  })
    .named("node-lifecycle")
    .watches(NODE_LEASES, {
      handlers: ({ state: { observe } }) => ({
        add: (lease) => lease.metadata?.namespace === NODE_LEASE_NAMESPACE && observe(lease.metadata.name ?? ""),
        update: (_old, lease) => lease.metadata?.namespace === NODE_LEASE_NAMESPACE && observe(lease.metadata.name ?? ""),
      }),
    })
    .watches(PODS, { handlers: () => ({}) })
    .withState(({ queue, primary: nodes, informer, onStop }): NodeHealth => {
      const leases = informer(NODE_LEASES);
      // When this controller last saw each node's Lease or Ready heartbeat move, on its own clock (upstream's probeTimestamp).
      const health = new Map<string, { probe: number; renewTime?: string | undefined; heartbeat?: string | undefined }>();
      const observe = (name: string) => {
        const node = nodes.cache.get(name) as Node | undefined;
        const lease = leases.cache.get(`${NODE_LEASE_NAMESPACE}/${name}`) as (KubeObject & { spec?: { renewTime?: string } }) | undefined;
        const renewTime = lease?.spec?.renewTime;
        const heartbeat = node?.status?.conditions?.find((c) => c.type === "Ready")?.lastHeartbeatTime;
        const seen = health.get(name);
        if (seen === undefined || seen.renewTime !== renewTime || seen.heartbeat !== heartbeat)
          health.set(name, { probe: Date.now(), renewTime, heartbeat });
        queue.add(name);
      };
      const monitor = setInterval(() => {
        for (const name of nodes.cache.keys()) queue.add(name);
      }, monitorPeriodMs);
      onStop(() => clearInterval(monitor));
      return { health, observe };
    })
    .withOptions({ workers: 1 })
    .complete(async (name, { client, primary: nodes, informer, state: { health } }) => {
      const pods = informer(PODS);
      let node = nodes.cache.get(name) as Node | undefined;
      const seen = health.get(name);
      if (node === undefined || seen === undefined) return;
      try {
        if (Date.now() - seen.probe > gracePeriodMs && node.status?.conditions?.find((c) => c.type === "Ready")?.status !== "Unknown") {
          node = await markUnknown(client, node);
          await markPodsNotReady(client, pods, name);
        }
        const ready = node.status?.conditions?.find((c) => c.type === "Ready");
        const managed = [UNREACHABLE_TAINT, NOT_READY_TAINT];
        const current = node.spec?.taints ?? [];
        const wanted = taintsFor(ready);
        const kept = current.filter((t) => !managed.includes(t.key) || wanted.some((w) => w.key === t.key && w.effect === t.effect));
        const added: Taint[] = wanted
          .filter((w) => !current.some((t) => t.key === w.key && t.effect === w.effect))
          .map((w) => (w.effect === "NoExecute" ? { ...w, timeAdded: nowRFC3339() } : w));
        if (added.length > 0 || kept.length !== current.length) {
          await client.patch(NODES, undefined, name, { spec: { taints: [...kept, ...added] } }, MERGE_PATCH);
        }
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    });
}

interface NodeHealth {
  health: Map<string, { probe: number; renewTime?: string | undefined; heartbeat?: string | undefined }>;
  observe: (name: string) => void;
}

async function markUnknown(client: KubeClient, node: Node): Promise<Node> {
  const now = nowRFC3339();
  const conditions = [...(node.status?.conditions ?? [])];
  for (const type of KUBELET_CONDITIONS) {
    const at = conditions.findIndex((c) => c.type === type);
    const before = conditions[at];
    if (before === undefined) {
      conditions.push({
        type,
        status: "Unknown",
        reason: "NodeStatusNeverUpdated",
        message: "Kubelet never posted node status.",
        lastHeartbeatTime: now,
        lastTransitionTime: now,
      });
    } else if (before.status !== "Unknown") {
      conditions[at] = {
        ...before,
        status: "Unknown",
        reason: "NodeStatusUnknown",
        message: "Kubelet stopped posting node status.",
        lastTransitionTime: now,
      };
    }
  }
  return client.patch<Node>(NODES, undefined, node.metadata?.name ?? "", { status: { conditions } }, MERGE_PATCH, "status");
}

/** MarkPodsNotReady: a node that stopped posting runs no pod anyone should send traffic to. */
async function markPodsNotReady(client: KubeClient, pods: Informer, name: string): Promise<void> {
  const now = nowRFC3339();
  for (const pod of pods.cache.list() as Pod[]) {
    if (pod.spec?.nodeName !== name || pod.metadata?.deletionTimestamp !== undefined) continue;
    const conditions = pod.status?.conditions ?? [];
    if (!conditions.some((c) => c.type === "Ready" && c.status !== "False")) continue;
    const next = conditions.map((c) => (c.type === "Ready" ? { ...c, status: "False" as const, lastTransitionTime: now } : c));
    await client
      .patch(PODS, pod.metadata?.namespace, pod.metadata?.name ?? "", { status: { conditions: next } }, MERGE_PATCH, "status")
      .catch((error: unknown) => {
        if (!isNotFound(error)) throw error;
      });
  }
}
