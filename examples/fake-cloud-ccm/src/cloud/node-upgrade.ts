import type { OwnerReference } from "@kubekit/generic-controlplane";
import { ApiError, type KubeClient } from "@kubekit/generic-controlplane/controllers";
import { NODES, PODS, type PodObject } from "../ccm/objects.js";

/** What the fake cloud upgrades: the simulated cluster's reported versions. */
export interface VersionedCluster {
  /** The names of the nodes to upgrade, in order. */
  readonly nodes: readonly string[];
  setVersion(gitVersion: string): void;
  upgradeNode(name: string, kubeletVersion: string): Promise<void>;
}

/** How long a drain keeps retrying an eviction a PodDisruptionBudget refuses. */
const DRAIN_TIMEOUT_MS = 60_000;
const RETRY_MS = 100;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type OwnedPod = PodObject & { metadata: { annotations?: Record<string, string>; ownerReferences?: OwnerReference[] } };

/**
 * The pods `kubectl drain --ignore-daemonsets` evicts: those a controller will make again elsewhere.
 * DaemonSet pods and mirror pods stay; so do bare pods, which drain refuses without `--force`
 * and which here come back with the node.
 */
function evictable(pod: OwnedPod): boolean {
  if (pod.metadata.annotations?.["kubernetes.io/config.mirror"] !== undefined) return false;
  const owner = pod.metadata.ownerReferences?.find((ref) => ref.controller === true);
  return owner !== undefined && owner.kind !== "DaemonSet";
}

/** Evicts one pod through `pods/eviction`, retrying while a PodDisruptionBudget refuses (429). */
async function evict(client: KubeClient, pod: OwnedPod, deadline: number): Promise<void> {
  const { namespace, name } = pod.metadata;
  for (;;) {
    try {
      await client.request("POST", `/api/v1/namespaces/${namespace}/pods/${name}/eviction`, {
        body: { apiVersion: "policy/v1", kind: "Eviction", metadata: { name, namespace } },
      });
      return;
    } catch (error) {
      if (error instanceof ApiError && error.code === 404) return;
      if (!(error instanceof ApiError && error.code === 429) || Date.now() > deadline) throw error;
      await sleep(RETRY_MS);
    }
  }
}

/** `kubectl drain`: cordons the node, evicts its controller-made pods and waits until they are gone. */
async function drain(client: KubeClient, node: string): Promise<void> {
  await client.patch(NODES, undefined, node, { spec: { unschedulable: true } });
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  const onNode = async () =>
    (await client.list<OwnedPod>(PODS, undefined, { fieldSelector: `spec.nodeName=${node}` })).items.filter(evictable);
  for (const pod of await onNode()) await evict(client, pod, deadline);
  while ((await onNode()).length > 0) {
    if (Date.now() > deadline) throw new Error(`draining node ${node}: its pods are still there after ${DRAIN_TIMEOUT_MS / 1000}s`);
    await sleep(RETRY_MS);
  }
}

/**
 * The cloud's upgrade of a node pool, as GCE's `upgrade.sh -N` runs it: one node at a time,
 * drained, its machine upgraded (the kubelet back at the new version, the machine booted), then
 * schedulable again.
 */
export async function upgradeNodes(client: KubeClient, cluster: VersionedCluster, version: string): Promise<void> {
  for (const node of [...cluster.nodes]) {
    await drain(client, node);
    await cluster.upgradeNode(node, `v${version}`);
    await client.patch(NODES, undefined, node, { spec: { unschedulable: false } });
  }
}
