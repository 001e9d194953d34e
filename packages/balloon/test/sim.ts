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
import { startSimCluster, type SimCluster, type SimNodeOptions } from "@kubekit/sim-cluster";
import { balloonManifests } from "../src/manifests.js";
import { resourceList } from "../src/resource-list.js";
import { EVENTS, NODES, PODS } from "../src/resources.js";

const DAEMONSETS: ResourceRef = { group: "apps", version: "v1", resource: "daemonsets", namespaced: true };
const PRIORITY_CLASSES: ResourceRef = { group: "scheduling.k8s.io", version: "v1", resource: "priorityclasses", namespaced: false };

/** A simulated cluster with the balloon PriorityClass, and a client on it. */
export interface BalloonSim {
  readonly cluster: SimCluster;
  readonly client: KubeClient;
  /** Creates the node's balloon pod from the DaemonSet template (what the DaemonSet controller would) and waits until it runs. */
  balloon(node: string, requests: Record<string, string>, name?: string): Promise<Pod>;
  /** Creates a workload pod bound to `node` and waits until it runs. */
  workload(node: string, name: string, requests: Record<string, string>): Promise<Pod>;
  /** Reads a pod. */
  pod(namespace: string, name: string): Promise<Pod>;
  /** Reads a node. */
  node(name: string): Promise<Node>;
  /** Merge-patches a node. */
  patchNode(name: string, patch: object): Promise<Node>;
  /** The Events recorded about a node. */
  nodeEvents(name: string): Promise<CoreEvent[]>;
  close(): Promise<void>;
}

export async function startBalloonSim(nodes: readonly SimNodeOptions[], nodeCapacity: Record<string, string>): Promise<BalloonSim> {
  const cluster = await startSimCluster({ nodes, nodeCapacity });
  const client = new KubeClient(await configFromKubeconfig(cluster.kubeconfig));
  const bundle = balloonManifests();
  await client.create(PRIORITY_CLASSES, undefined, bundle.priorityClass);
  const owner = await heldDaemonSet(client, bundle.daemonSet);

  const pod = (namespace: string, name: string) => client.get<Pod>(PODS, namespace, name);
  const running = async (namespace: string, name: string): Promise<Pod> => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const current = await pod(namespace, name);
      if (current.status?.phase === "Running") return current;
      if (Date.now() > deadline) throw new Error(`pod ${namespace}/${name} not Running within 10 s: ${JSON.stringify(current.status)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  return {
    cluster,
    client,
    pod,
    node: (name) => client.get<Node>(NODES, undefined, name),
    patchNode: (name, patch) => client.patch<Node>(NODES, undefined, name, patch, PATCH_MERGE),
    nodeEvents: async (name) => (await client.list<CoreEvent>(EVENTS, "default", { fieldSelector: `involvedObject.name=${name}` })).items,
    async balloon(node, requests, name = `node-balloon-${node}`) {
      const template = bundle.daemonSet.spec?.template;
      const spec = template?.spec;
      if (!spec) throw new Error("the DaemonSet has no pod template");
      resourceList(requests); // reject a typo before the server does
      const body: Pod = {
        metadata: { ...template.metadata, name, namespace: "kube-system", ownerReferences: [owner] },
        spec: {
          ...spec,
          nodeName: node,
          containers: spec.containers.map((c) => ({ ...c, resources: { requests } })),
        },
      };
      await client.create(PODS, "kube-system", body);
      return running("kube-system", name);
    },
    async workload(node, name, requests) {
      const body: Pod = {
        metadata: { name, namespace: "default" },
        spec: { nodeName: node, containers: [{ name: "main", image: "registry.k8s.io/pause:3.10", resources: { requests } }] },
      };
      await client.create(PODS, "default", body);
      return running("default", name);
    },
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
export async function heldDaemonSet(client: KubeClient, daemonSet: DaemonSet): Promise<OwnerReference> {
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
