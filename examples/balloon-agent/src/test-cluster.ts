import { balloonManifests, NODE_TARGET_ANNOTATION } from "@kubekit/balloon";
import {
  configFromKubeconfig,
  KubeClient,
  PATCH_MERGE,
  type CoreEvent,
  type DaemonSet,
  type Node,
  type OwnerReference,
  type Pod,
  type ResourceRef,
} from "@kubekit/client";
import { startSimCluster, type SimCluster, type SimClusterOptions } from "@kubekit/sim-cluster";

const NODES: ResourceRef = { group: "", version: "v1", resource: "nodes", namespaced: false };
const PODS: ResourceRef = { group: "", version: "v1", resource: "pods", namespaced: true };
const EVENTS: ResourceRef = { group: "", version: "v1", resource: "events", namespaced: true };
const DAEMONSETS: ResourceRef = { group: "apps", version: "v1", resource: "daemonsets", namespaced: true };
const PRIORITY_CLASSES: ResourceRef = { group: "scheduling.k8s.io", version: "v1", resource: "priorityclasses", namespaced: false };

/** A simulated cluster with the balloon PriorityClass and a client on it, for the agent's tests. */
export interface TestCluster {
  readonly cluster: SimCluster;
  readonly client: KubeClient;
  /** Creates a node's balloon from the DaemonSet template (as the DaemonSet controller would). */
  balloon(node: string, requests: Record<string, string>, name?: string): Promise<void>;
  workload(node: string, name: string, requests: Record<string, string>): Promise<void>;
  /** Sets (or with undefined removes) a node's target annotation. */
  target(node: string, target: string | undefined): Promise<void>;
  pod(namespace: string, name: string): Promise<Pod>;
  /** Pods of a namespace, optionally narrowed by a field selector. */
  pods(namespace: string, fieldSelector?: string): Promise<Pod[]>;
  createPod(namespace: string, pod: Pod): Promise<Pod>;
  deletePod(namespace: string, name: string, gracePeriodSeconds?: number): Promise<void>;
  node(name: string): Promise<Node>;
  /** Merge-patches a node. */
  patchNode(name: string, patch: object): Promise<Node>;
  /** The Events recorded about the object named `name`. */
  events(name: string): Promise<CoreEvent[]>;
  /** Waits until `check` holds, polling, or fails naming `what` after `timeoutMs`. */
  until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}

export async function startTestCluster(
  nodes: readonly string[],
  nodeCapacity: Record<string, string>,
  options: Omit<SimClusterOptions, "nodes" | "nodeCapacity"> = {},
): Promise<TestCluster> {
  const cluster = await startSimCluster({ ...options, nodes: nodes.map((name) => ({ name })), nodeCapacity });
  const client = new KubeClient(await configFromKubeconfig(cluster.kubeconfig));
  const bundle = balloonManifests();
  await client.create(PRIORITY_CLASSES, undefined, bundle.priorityClass);
  const owner = await heldDaemonSet(client, bundle.daemonSet);
  const template = bundle.daemonSet.spec?.template;

  const until = async <T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await check();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  const pod = (namespace: string, name: string) => client.get<Pod>(PODS, namespace, name);
  const running = (namespace: string, name: string) =>
    until(`pod ${namespace}/${name} Running`, async () => ((await pod(namespace, name)).status?.phase === "Running" ? true : undefined));

  return {
    cluster,
    client,
    async balloon(node, requests, name = `node-balloon-${node}`) {
      const spec = template?.spec;
      if (!spec) throw new Error("the DaemonSet has no pod template");
      const body: Pod = {
        metadata: { ...template.metadata, name, namespace: "kube-system", ownerReferences: [owner] },
        spec: { ...spec, nodeName: node, containers: spec.containers.map((c) => ({ ...c, resources: { requests } })) },
      };
      await client.create(PODS, "kube-system", body);
      await running("kube-system", name);
    },
    async workload(node, name, requests) {
      const body: Pod = {
        metadata: { name, namespace: "default" },
        spec: { nodeName: node, containers: [{ name: "main", image: "pause", resources: { requests } }] },
      };
      await client.create(PODS, "default", body);
      await running("default", name);
    },
    async target(node, target) {
      await client.patch(NODES, undefined, node, { metadata: { annotations: { [NODE_TARGET_ANNOTATION]: target ?? null } } }, PATCH_MERGE);
    },
    pod,
    pods: async (namespace, fieldSelector) =>
      (await client.list<Pod>(PODS, namespace, fieldSelector === undefined ? {} : { fieldSelector })).items,
    createPod: (namespace, body) => client.create<Pod>(PODS, namespace, body),
    deletePod: async (namespace, name, gracePeriodSeconds) => {
      await client.delete(PODS, namespace, name, gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds });
    },
    node: (name) => client.get<Node>(NODES, undefined, name),
    patchNode: (name, patch) => client.patch<Node>(NODES, undefined, name, patch, PATCH_MERGE),
    events: async (name) => (await client.list<CoreEvent>(EVENTS, "default", { fieldSelector: `involvedObject.name=${name}` })).items,
    until,
    close: async () => {
      client.close();
      await cluster.close();
    },
  };
}

/**
 * The balloon DaemonSet, present (so its pods' owner reference is not dangling and the garbage
 * collector keeps them) but held in deletion by a finalizer, so the DaemonSet controller leaves
 * alone the balloons the tests create on the nodes they choose, at the sizes they choose.
 */
async function heldDaemonSet(client: KubeClient, daemonSet: DaemonSet): Promise<OwnerReference> {
  const namespace = daemonSet.metadata?.namespace ?? "kube-system";
  const name = daemonSet.metadata?.name ?? "node-balloon";
  const template = daemonSet.spec?.template;
  const created = await client.create<DaemonSet>(DAEMONSETS, namespace, {
    ...daemonSet,
    metadata: { ...daemonSet.metadata, finalizers: ["test.kubekit.dev/hold"] },
    // No node matches until the controller stops managing it.
    spec: {
      ...daemonSet.spec!,
      template: { ...template, spec: { ...template!.spec!, nodeSelector: { "test.kubekit.dev/no-node": "true" } } },
    },
  });
  // Deleted only once the controller has synced it (its status says so): deleted earlier, the
  // controller can still hold it as live when the first balloon arrives, and delete that balloon.
  const deadline = Date.now() + 20_000;
  while ((await client.get<DaemonSet>(DAEMONSETS, namespace, name)).status?.observedGeneration !== created.metadata?.generation) {
    if (Date.now() > deadline) throw new Error(`the DaemonSet controller did not sync ${namespace}/${name} within 20 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await client.delete(DAEMONSETS, namespace, name);
  return { apiVersion: "apps/v1", kind: "DaemonSet", name, uid: created.metadata?.uid ?? "", controller: true, blockOwnerDeletion: true };
}
