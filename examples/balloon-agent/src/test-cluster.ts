import { balloonManifests, NODE_TARGET_ANNOTATION } from "@kubekit/balloon";
import { startSimCluster, type SimCluster, type SimClusterOptions } from "@kubekit/sim-cluster";
import { AppsV1Api, CoreV1Api, KubeConfig, PatchStrategy, SchedulingV1Api, setHeaderOptions, type V1DaemonSet, type V1OwnerReference, type V1Pod } from "@kubernetes/client-node";

/** A simulated cluster with the balloon PriorityClass and a client-node CoreV1Api, for the agent's tests. */
export interface TestCluster {
  readonly cluster: SimCluster;
  readonly core: CoreV1Api;
  /** Creates a node's balloon from the DaemonSet template (as the DaemonSet controller would). */
  balloon(node: string, requests: Record<string, string>, name?: string): Promise<void>;
  workload(node: string, name: string, requests: Record<string, string>): Promise<void>;
  /** Sets (or with undefined removes) a node's target annotation. */
  target(node: string, target: string | undefined): Promise<void>;
  /** Waits until `check` holds, polling, or fails naming `what` after `timeoutMs`. */
  until<T>(what: string, check: () => Promise<T | undefined>, timeoutMs?: number): Promise<T>;
  close(): Promise<void>;
}

export async function startTestCluster(nodes: readonly string[], nodeCapacity: Record<string, string>, options: Omit<SimClusterOptions, "nodes" | "nodeCapacity"> = {}): Promise<TestCluster> {
  const cluster = await startSimCluster({ ...options, nodes: nodes.map((name) => ({ name })), nodeCapacity });
  const config = new KubeConfig();
  config.loadFromString(cluster.kubeconfig);
  const core = config.makeApiClient(CoreV1Api);
  const bundle = balloonManifests();
  await config.makeApiClient(SchedulingV1Api).createPriorityClass({ body: bundle.priorityClass });
  const owner = await heldDaemonSet(config.makeApiClient(AppsV1Api), bundle.daemonSet);
  const template = bundle.daemonSet.spec?.template;
  const merge = setHeaderOptions("Content-Type", PatchStrategy.MergePatch);

  const until = async <T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await check();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };
  const running = (namespace: string, name: string) =>
    until(`pod ${namespace}/${name} Running`, async () => ((await core.readNamespacedPod({ namespace, name })).status?.phase === "Running" ? true : undefined));

  return {
    cluster,
    core,
    async balloon(node, requests, name = `node-balloon-${node}`) {
      const spec = template?.spec;
      if (!spec) throw new Error("the DaemonSet has no pod template");
      const body: V1Pod = {
        metadata: { ...template.metadata, name, namespace: "kube-system", ownerReferences: [owner] },
        spec: { ...spec, nodeName: node, containers: spec.containers.map((c) => ({ ...c, resources: { requests } })) },
      };
      await core.createNamespacedPod({ namespace: "kube-system", body });
      await running("kube-system", name);
    },
    async workload(node, name, requests) {
      const body: V1Pod = { metadata: { name, namespace: "default" }, spec: { nodeName: node, containers: [{ name: "main", image: "pause", resources: { requests } }] } };
      await core.createNamespacedPod({ namespace: "default", body });
      await running("default", name);
    },
    async target(node, target) {
      await core.patchNode({ name: node, body: { metadata: { annotations: { [NODE_TARGET_ANNOTATION]: target ?? null } } } }, merge);
    },
    until,
    close: () => cluster.close(),
  };
}

/**
 * The balloon DaemonSet, present (so its pods' owner reference is not dangling and the garbage
 * collector keeps them) but held in deletion by a finalizer, so the DaemonSet controller leaves
 * alone the balloons the tests create on the nodes they choose, at the sizes they choose.
 */
async function heldDaemonSet(apps: AppsV1Api, daemonSet: V1DaemonSet): Promise<V1OwnerReference> {
  const namespace = daemonSet.metadata?.namespace ?? "kube-system";
  const name = daemonSet.metadata?.name ?? "node-balloon";
  const template = daemonSet.spec?.template;
  const created = await apps.createNamespacedDaemonSet({
    namespace,
    body: {
      ...daemonSet,
      metadata: { ...daemonSet.metadata, finalizers: ["test.kubekit.dev/hold"] },
      // No node matches until the controller stops managing it.
      spec: { ...daemonSet.spec!, template: { ...template, spec: { ...template!.spec!, nodeSelector: { "test.kubekit.dev/no-node": "true" } } } },
    },
  });
  await apps.deleteNamespacedDaemonSet({ namespace, name });
  return { apiVersion: "apps/v1", kind: "DaemonSet", name, uid: created.metadata?.uid ?? "", controller: true, blockOwnerDeletion: true };
}
