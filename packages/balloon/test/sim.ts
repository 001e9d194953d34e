import { AppsV1Api, CoreV1Api, KubeConfig, SchedulingV1Api, type V1OwnerReference, type V1Pod } from "@kubernetes/client-node";
import { startSimCluster, type SimCluster, type SimNodeOptions } from "@kubekit/sim-cluster";
import { balloonManifests } from "../src/manifests.js";
import { resourceList } from "../src/resource-list.js";

/** A simulated cluster with the balloon PriorityClass, and a client-node CoreV1Api on it. */
export interface BalloonSim {
  readonly cluster: SimCluster;
  readonly core: CoreV1Api;
  readonly kubeconfig: KubeConfig;
  /** Creates the node's balloon pod from the DaemonSet template (what the DaemonSet controller would) and waits until it runs. */
  balloon(node: string, requests: Record<string, string>, name?: string): Promise<V1Pod>;
  /** Creates a workload pod bound to `node` and waits until it runs. */
  workload(node: string, name: string, requests: Record<string, string>): Promise<V1Pod>;
  close(): Promise<void>;
}

export async function startBalloonSim(nodes: readonly SimNodeOptions[], nodeCapacity: Record<string, string>): Promise<BalloonSim> {
  const cluster = await startSimCluster({ nodes, nodeCapacity });
  const kubeconfig = new KubeConfig();
  kubeconfig.loadFromString(cluster.kubeconfig);
  const core = kubeconfig.makeApiClient(CoreV1Api);
  const bundle = balloonManifests();
  await kubeconfig.makeApiClient(SchedulingV1Api).createPriorityClass({ body: bundle.priorityClass });
  const owner = await heldDaemonSet(kubeconfig.makeApiClient(AppsV1Api), bundle.daemonSet);

  const running = async (namespace: string, name: string): Promise<V1Pod> => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const pod = await core.readNamespacedPod({ namespace, name });
      if (pod.status?.phase === "Running") return pod;
      if (Date.now() > deadline) throw new Error(`pod ${namespace}/${name} not Running within 10 s: ${JSON.stringify(pod.status)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  return {
    cluster,
    core,
    kubeconfig,
    async balloon(node, requests, name = `node-balloon-${node}`) {
      const template = bundle.daemonSet.spec?.template;
      const spec = template?.spec;
      if (!spec) throw new Error("the DaemonSet has no pod template");
      resourceList(requests); // reject a typo before the server does
      const body: V1Pod = {
        metadata: { ...template.metadata, name, namespace: "kube-system", ownerReferences: [owner] },
        spec: {
          ...spec,
          nodeName: node,
          containers: spec.containers.map((c) => ({ ...c, resources: { requests } })),
        },
      };
      await core.createNamespacedPod({ namespace: "kube-system", body });
      return running("kube-system", name);
    },
    async workload(node, name, requests) {
      const body: V1Pod = {
        metadata: { name, namespace: "default" },
        spec: { nodeName: node, containers: [{ name: "main", image: "registry.k8s.io/pause:3.10", resources: { requests } }] },
      };
      await core.createNamespacedPod({ namespace: "default", body });
      return running("default", name);
    },
    close: () => cluster.close(),
  };
}

/**
 * The balloon DaemonSet, present (so its pods' owner reference is not dangling and the garbage
 * collector keeps them) but held in deletion by a finalizer, so the DaemonSet controller leaves
 * alone the balloons the tests create on the nodes they choose, at the sizes they choose.
 */
export async function heldDaemonSet(apps: AppsV1Api, daemonSet: BalloonManifestsDaemonSet): Promise<V1OwnerReference> {
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

type BalloonManifestsDaemonSet = ReturnType<typeof balloonManifests>["daemonSet"];
