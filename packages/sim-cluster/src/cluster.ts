import { createControlPlane, selectBuiltinResources, type ControlPlane, type Logger } from "@kubekit/generic-controlplane";
import { ControllerManager, KubeClient, dropManagedFields } from "@kubekit/generic-controlplane/controllers";
import { createResourceStore, type ResourceStore } from "@kubekit/generic-controlplane/registry";
import type { Storage } from "@kubekit/generic-controlplane/storage";
import { familyOf, formatIP, parseIP } from "./allocators/cluster-ip.js";
import { nodeSubnet, podRanges, serviceRanges } from "./allocators/cidrs.js";
import { NodePortAllocator } from "./allocators/node-port.js";
import { priorityAdmission } from "./admission.js";
import { simQuotaEvaluators } from "./quota/index.js";
import { defaultTolerationSecondsAdmission } from "./default-toleration-seconds.js";
import { defaultIngressClassAdmission } from "./default-ingress-class.js";
import { runtimeClassAdmission } from "./runtime-class-admission.js";
import { storageObjectInUseProtectionAdmission } from "./storage-protection-admission.js";
import { registerWorkloadProtobuf } from "./protobuf/index.js";
import { daemonSetController } from "./controllers/daemonset.js";
import { disruptionController } from "./controllers/disruption.js";
import { taintEvictionController } from "./controllers/taint-eviction.js";
import { deploymentController } from "./controllers/deployment.js";
import { nodeLifecycleController } from "./controllers/node-lifecycle.js";
import { endpointsController } from "./controllers/endpoints.js";
import { endpointSliceController } from "./controllers/endpointslice.js";
import { endpointSliceMirroringController } from "./controllers/endpointslice-mirroring.js";
import { publishApiServer, unvalidatedStore } from "./kubernetes-service.js";
import { replicaSetController } from "./controllers/replicaset.js";
import { jobController } from "./controllers/job.js";
import { cronJobController } from "./controllers/cronjob.js";
import { statefulSetController } from "./controllers/statefulset.js";
import { volumeBinderController } from "./controllers/volume-binder.js";
import { pvcProtectionController } from "./controllers/pvc-protection.js";
import { pvProtectionController } from "./controllers/pv-protection.js";
import { ttlAfterFinishedController } from "./controllers/ttl-after-finished.js";
import { subresourceStage, type SubresourceStores } from "./handlers/stage.js";
import { ReportedVersion, versionStage } from "./handlers/version.js";
import type { SimNodeSpec } from "./kubelet/kubelet.js";
import { isUnpullableImage } from "./kubelet/images.js";
import { LocalKubelets, type HostedKubeletOptions, type KubeletHost } from "./kubelet/kubelet-host.js";
import { NodeThreads, type NodeThread } from "./kubelet/node-threads.js";
import { ComponentIdentities } from "./component-identities.js";
import { simResources } from "./resources/index.js";
import { podResizeResource } from "./resources/pod-resize.js";
import { podsResource } from "./resources/pods.js";
import { SYSTEM_PRIORITY_CLASSES } from "./resources/priority-classes.js";
import type { ServiceAllocators } from "./resources/services.js";
import { scheduler } from "./scheduler/scheduler.js";
import { SchedulerWorker, type SchedulerThread } from "./scheduler/scheduler-thread.js";
import { repairingServiceStore } from "./services-store.js";
import { assertLoopbackRanges, randomTrafficRanges } from "./traffic/loopback.js";
import { TrafficPlane } from "./traffic/traffic.js";

/** One simulated node; everything is optional. */
export interface SimNodeOptions {
  /** Default `sim-node-<n>`. */
  name?: string;
  /** Merged over the cluster's `nodeCapacity`. */
  capacity?: Record<string, string>;
  labels?: Record<string, string>;
  /** Taints the node registers with, e.g. `{ key: "node-role.kubernetes.io/control-plane", effect: "NoSchedule" }`. */
  taints?: Array<{ key: string; value?: string; effect: "NoSchedule" | "PreferNoSchedule" | "NoExecute" }>;
}

export interface SimClusterOptions {
  /** How many nodes to start with, or each one's options. Default 1. */
  nodes?: number | readonly SimNodeOptions[];
  /** Where objects live (default: in memory); closed by `close()`. */
  storage?: Storage;
  /**
   * The ClusterIP range (kube-apiserver's `--service-cluster-ip-range`). Default `10.96.0.0/16`.
   * Two ranges of different families (`"10.96.0.0/16,fd00:10:96::/112"`) make the cluster
   * dual-stack: services may ask for both families, nodes get a pod range of each and pods an
   * address of each.
   */
  serviceCIDR?: string;
  /** NodePorts (`--service-node-port-range`). Default `30000-32767`. */
  nodePortRange?: string;
  /**
   * The cluster's pod range; node n gets the n-th /24 of it (and the n-th /64 of an IPv6 range
   * after a comma). Default `10.244.0.0/16`, plus `fd00:10:244::/56` when `serviceCIDR` is dual-stack.
   */
  podCIDR?: string;
  /** Where nodes' InternalIPs come from. Default `172.18.0.0/16`, plus `fc00:f853:ccd:e793::/64` (a second InternalIP) when `serviceCIDR` is dual-stack. */
  nodeCIDR?: string;
  /** Every node's capacity (and allocatable). Default 4 CPUs, 16Gi memory, 110 pods, 100Gi ephemeral storage. */
  nodeCapacity?: Record<string, string>;
  /** Node Lease renewal, as kubelet's default 10 s. */
  leaseRenewIntervalMs?: number;
  /** Ready heartbeat, as kubelet's default 5 min. */
  statusReportIntervalMs?: number;
  /** How long a deleted pod's containers take to stop before its kubelet removes it (at most its grace period). Default 100 ms. */
  podShutdownMs?: number;
  /**
   * Which images no registry serves: a container with one waits in `ErrImagePull`, then
   * `ImagePullBackOff`, and its pod stays Pending, not ready. Default `isUnpullableImage` (the
   * `.invalid` domain, `invalid.…` registries, tags `non-existent`/`nonexistent`).
   */
  imagePullFails?: (image: string) => boolean;
  /** The node lifecycle controller's `--node-monitor-grace-period`: a node silent this long goes Unknown. Default 40 s. */
  nodeMonitorGracePeriodMs?: number;
  /** How often the node lifecycle controller checks nodes (`--node-monitor-period`). Default 5 s. */
  nodeMonitorPeriodMs?: number;
  /**
   * kube-apiserver's `--default-not-ready-toleration-seconds` and
   * `--default-unreachable-toleration-seconds`: how long a pod that does not say otherwise stays on
   * a node tainted not-ready or unreachable before the taint eviction controller deletes it. Default 300.
   */
  defaultNotReadyTolerationSeconds?: number;
  defaultUnreachableTolerationSeconds?: number;
  host?: string;
  port?: number;
  /** Names the kubeconfig's cluster, user and context. Default `sim-cluster`. */
  name?: string;
  logger?: Logger;
  /**
   * Traffic mode: nodes, pods and ClusterIPs get loopback addresses (random neighbouring /16s of
   * 127.0.0.0/8 unless `nodeCIDR`, `podCIDR` and `serviceCIDR` say otherwise, which must then be
   * loopback too), every Running pod answers on its ports as agnhost netexec does, and a
   * kube-proxy stand-in forwards ClusterIP and NodePort traffic (TCP and UDP) to endpoints.
   */
  traffic?: boolean;
  /**
   * How many worker threads run the simulated kubelets, the nodes spread over them, as kwok runs
   * its node simulation beside kube-apiserver: each thread has its own pod and node watches and
   * its kubelets their own clients against `url`, so the nodes' heartbeats and pod status writes
   * take another core. Default 0: every kubelet in this thread. `imagePullFails` (a function) cannot
   * be sent to a thread: only the default rule goes with threads.
   */
  nodeThreads?: number;
  /**
   * Runs the scheduler in a worker thread, as kube-scheduler is a process of its own beside
   * kube-apiserver: its informers and client talk to `url` over HTTP as `system:kube-scheduler`,
   * so its filtering, scoring and watch decoding take another core. Default false: the scheduler
   * runs among the controllers in this thread, as `system:kube-controller-manager`.
   */
  schedulerThread?: boolean;
}

export interface SimCluster {
  readonly url: string;
  /** A kubeconfig for `url` without credentials: its requests are `system:anonymous`. */
  readonly kubeconfig: string;
  /**
   * A bearer token for `url` that authenticates as the cluster's admin, `kubernetes-admin` in
   * `system:masters` (kwokctl's kubeconfig user and kubeadm's super-admin are in that group), whose
   * requests API Priority and Fairness exempts (flow schema and priority level `exempt`) instead of
   * queuing them with the workload's in `global-default`. Known only to this process, valid until
   * `close()`. The server speaks plain HTTP, over which kubectl (client-go) sends no credentials:
   * it is for clients that send a token anyway, such as `@kubekit/client`'s `KubeClient` or
   * `@kubernetes/client-node` with `skipTLSVerify`.
   */
  readonly adminToken: string;
  /** The control plane underneath (its stores, server and storage). */
  readonly plane: ControlPlane;
  writeKubeconfig(path: string): Promise<void>;
  /** Names of the running simulated nodes. */
  readonly nodes: readonly string[];
  /** Starts one more node; resolves with its name once it is registered and Ready. */
  addNode(options?: SimNodeOptions): Promise<string>;
  /** Stops a node's kubelet and deletes the Node and the pods bound to it (as the pod garbage collector does). */
  removeNode(name: string): Promise<void>;
  /**
   * Stops a node's kubelet, as a machine that went down: no Lease renewals or status, its pods
   * keep their last status; after the node monitor grace period the node lifecycle controller
   * marks it Unknown and taints it unreachable.
   */
  stopNode(name: string): Promise<void>;
  /** Starts a stopped node's kubelet again (same name, addresses and boot ID); resolves once it reports Ready. */
  startNode(name: string): Promise<void>;
  /**
   * Hot-plugs resources into or out of a node (`{ cpu: "16", memory: "64Gi" }`; resources not named
   * stay): its kubelet admits and resizes pods against the new size at once and reports it in
   * `status.capacity` and `allocatable`, as a kubelet does after a CPU or memory hot-plug. The
   * same from outside the process: annotate the Node `sim.kubekit.dev/capacity=cpu=16,memory=64Gi`,
   * taken at the kubelet's next status update (`leaseRenewIntervalMs`). Resolves once the Node shows it.
   */
  setNodeCapacity(name: string, capacity: Readonly<Record<string, string>>): Promise<void>;
  /** Reboots a node: NotReady, a new boot ID, every container restarted (restartCount + 1), then Ready. */
  rebootNode(name: string): Promise<void>;
  /**
   * The version `GET /version` reports from now on (`v1.33.1`; major and minor follow), as after
   * an upgrade or a downgrade of the control plane.
   */
  setVersion(gitVersion: string): void;
  /**
   * Upgrades (or downgrades) a running node in place: its kubelet stops and starts again at
   * `kubeletVersion` (`status.nodeInfo.kubeletVersion` and `kubeProxyVersion`), and the machine
   * boots, as a node upgrade replaces the node's image: a new boot ID, every container restarted.
   * Resolves once the node reports Ready at the new version. Draining it first is the caller's part.
   */
  upgradeNode(name: string, kubeletVersion: string): Promise<void>;
  /** The worker threads running the kubelets (`nodeThreads`); none by default. */
  readonly nodeThreads: readonly NodeThread[];
  /** The worker thread running the scheduler (`schedulerThread`); none by default. */
  readonly schedulerThread: SchedulerThread | undefined;
  close(): Promise<void>;
}

export const DEFAULT_NODE_CAPACITY: Readonly<Record<string, string>> = {
  cpu: "4",
  memory: "16Gi",
  pods: "110",
  "ephemeral-storage": "100Gi",
};
const KUBELET_VERSION = "v1.32.0";

function parseRange(text: string): { base: number; size: number } {
  const match = /^(\d+)-(\d+)$/.exec(text);
  if (match === null || Number(match[2]) < Number(match[1]))
    throw new Error(`invalid node port range ${JSON.stringify(text)}: want <first>-<last>`);
  return { base: Number(match[1]), size: Number(match[2]) - Number(match[1]) + 1 };
}

function hostAddress(cidr: string, index: number): string {
  const base = parseIP(cidr.split("/")[0] ?? "");
  if (base === undefined) throw new Error(`invalid node CIDR ${JSON.stringify(cidr)}`);
  return formatIP({ family: base.family, value: base.value + BigInt(index + 2) });
}

/**
 * Starts a simulated cluster: a generic control plane serving the built-ins plus nodes, pods,
 * services, deployments, replicasets and priorityclasses; its in-process controllers (namespace,
 * garbage collector, service accounts) plus a scheduler and the ReplicaSet and Deployment
 * controllers; and one simulated kubelet per node. Resolves once every node is Ready.
 */
export async function startSimCluster(options: SimClusterOptions = {}): Promise<SimCluster> {
  const nodeThreads = options.nodeThreads ?? 0;
  if (!Number.isSafeInteger(nodeThreads) || nodeThreads < 0)
    throw new Error(`invalid nodeThreads ${JSON.stringify(nodeThreads)}: want a whole number of threads, 0 for none`);
  if (nodeThreads > 0 && options.imagePullFails !== undefined && options.imagePullFails !== isUnpullableImage)
    throw new Error("imagePullFails cannot be used with nodeThreads: a function cannot be sent to the node threads");
  const schedulerThread = options.schedulerThread ?? false;
  if (typeof schedulerThread !== "boolean")
    throw new Error(`invalid schedulerThread ${JSON.stringify(schedulerThread)}: want true or false`);
  const traffic = options.traffic === true;
  const loopback = traffic ? randomTrafficRanges() : undefined;
  const serviceCIDR = options.serviceCIDR ?? loopback?.serviceCIDR ?? "10.96.0.0/16";
  const allocators: ServiceAllocators = {
    ...serviceRanges(serviceCIDR),
    nodePorts: new NodePortAllocator(parseRange(options.nodePortRange ?? "30000-32767")),
  };
  // A dual-stack cluster's pods get both families too (kind's default IPv6 pod range), in the services' order.
  const dualStack = allocators.secondaryClusterIPs !== undefined;
  const defaultPodCIDRs = [loopback?.podCIDR ?? "10.244.0.0/16", ...(dualStack ? ["fd00:10:244::/56"] : [])];
  if (allocators.clusterIPs.family === "IPv6") defaultPodCIDRs.reverse();
  const podCIDRs = podRanges(options.podCIDR ?? defaultPodCIDRs.join(","));
  // Dual-stack nodes have an InternalIP of each family (kind's default IPv6 node network).
  const [nodeCIDR, secondaryNodeCIDR] = (
    options.nodeCIDR ?? [loopback?.nodeCIDR ?? "172.18.0.0/16", ...(dualStack ? ["fc00:f853:ccd:e793::/64"] : [])].join(",")
  ).split(",") as [string, string | undefined];
  if (traffic) {
    if (allocators.clusterIPs.family !== "IPv4" || familyOf(podCIDRs[0]!.split("/")[0]!) !== "IPv4")
      throw new Error("traffic mode needs IPv4 as the primary family of serviceCIDR and podCIDR (it forwards IPv4 loopback traffic only)");
    assertLoopbackRanges({ podCIDR: podCIDRs[0]!, serviceCIDR: allocators.clusterIPs.cidr, nodeCIDR });
  }
  hostAddress(nodeCIDR, 0);
  if (secondaryNodeCIDR !== undefined) hostAddress(secondaryNodeCIDR, 0);
  let priorityClasses: ResourceStore | undefined;
  let runtimeClasses: ResourceStore | undefined;
  let ingressClasses: ResourceStore | undefined;
  let subresourceStores: SubresourceStores | undefined;
  const reportedVersion = new ReportedVersion();
  const maxBodyBytes = 3 * 1024 * 1024;
  const identities = new ComponentIdentities();
  const plane = await createControlPlane({
    authenticate: identities.authenticate,
    ...(options.storage !== undefined ? { storage: options.storage } : {}),
    resources: [...selectBuiltinResources(), ...simResources(allocators, { allowLoopback: traffic })],
    admission: [
      priorityAdmission(() => priorityClasses),
      runtimeClassAdmission(() => runtimeClasses),
      defaultIngressClassAdmission(() => ingressClasses),
      storageObjectInUseProtectionAdmission(),
      defaultTolerationSecondsAdmission({
        notReady: options.defaultNotReadyTolerationSeconds ?? 300,
        unreachable: options.defaultUnreachableTolerationSeconds ?? 300,
      }),
    ],
    stages: [versionStage(reportedVersion), subresourceStage(() => subresourceStores, maxBodyBytes)],
    controllers: { leaderElection: false },
    quotaEvaluators: simQuotaEvaluators,
    name: options.name ?? "sim-cluster",
    ...(options.host !== undefined ? { host: options.host } : {}),
    ...(options.port !== undefined ? { port: options.port } : {}),
    ...(options.logger !== undefined ? { logger: options.logger } : {}),
  });
  // client-go's typed clients (kubectl 1.32's `create deployment`, `create job`, ...) send protobuf.
  registerWorkloadProtobuf(plane.server);
  const client = new KubeClient({ server: plane.url, userAgent: "sim-cluster" });
  const kubelets = new Map<string, { spec: SimNodeSpec; index: number; running: boolean; version: string }>();
  let manager: ControllerManager | undefined;
  let schedulerWorker: SchedulerWorker | undefined;
  let trafficPlane: TrafficPlane | undefined;
  try {
    priorityClasses = plane.store("scheduling.k8s.io", "priorityclasses");
    runtimeClasses = plane.store("node.k8s.io", "runtimeclasses");
    ingressClasses = plane.store("networking.k8s.io", "ingressclasses");
    const served = (group: string, plural: string) => {
      const store = plane.store(group, plural);
      const definition = plane.server.definitions.find((d) => d.group === group && d.plural === plural);
      if (store === undefined || definition === undefined) throw new Error(`${plural} is not served`);
      return { definition, store };
    };
    // The subresources upstream serves from these resources' REST storage (see subresourceStage).
    // A binding sets spec.nodeName without moving the generation, as upstream's BindingREST.
    const bindings = createResourceStore(
      { ...podsResource, statusSubresource: false, tracksGeneration: false, strategy: {} },
      plane.storage,
    );
    const pods = served("", "pods");
    plane.server.addResource({
      ...pods,
      subresources: { resize: createResourceStore(podResizeResource, plane.storage, { admission: [...plane.admission] }) },
    });
    const scalable = {
      deployments: served("apps", "deployments"),
      replicasets: served("apps", "replicasets"),
      replicationcontrollers: served("", "replicationcontrollers"),
      statefulsets: served("apps", "statefulsets"),
    };
    const services = served("", "services");
    subresourceStores = {
      bindings,
      pods: pods.store,
      budgets: plane.store("policy", "poddisruptionbudgets"),
      services: services.store,
      endpoints: plane.store("", "endpoints")!,
      nodes: plane.store("", "nodes")!,
      scalable: (_group, plural) => (Object.hasOwn(scalable, plural) ? scalable[plural as keyof typeof scalable] : undefined),
    };
    const repairing = repairingServiceStore(services.store, allocators);
    plane.server.addResource({ definition: services.definition, store: repairing });
    await repairing.resync();
    const server = new URL(plane.url);
    const host = server.hostname.replace(/^\[|\]$/g, "");
    await publishApiServer(
      {
        services: repairing,
        endpoints: unvalidatedStore(served("", "endpoints").definition, plane.storage),
        slices: unvalidatedStore(served("discovery.k8s.io", "endpointslices").definition, plane.storage),
      },
      // A server listening on every address is reached on loopback.
      {
        clusterIP: allocators.clusterIPs.firstAddress,
        address: host === "0.0.0.0" ? "127.0.0.1" : host === "::" ? "::1" : host,
        port: Number(server.port),
      },
    );
    for (const pc of SYSTEM_PRIORITY_CLASSES) {
      await priorityClasses!.create(undefined, structuredClone(pc)).catch((error: unknown) => {
        if (!(error instanceof Error && "code" in error && error.code === "AlreadyExists")) throw error;
      });
    }

    manager = new ControllerManager({
      client: new KubeClient({ server: plane.url, userAgent: "sim-cluster-controllers", token: identities.controllerManager() }),
      controllers: [
        // In its own thread the scheduler does not run among the controllers.
        ...(schedulerThread ? [] : ["scheduler"]),
        "replicaset",
        "deployment",
        "node-lifecycle",
        "endpoints",
        "endpointslice",
        "endpointslicemirroring",
        "daemonset",
        "disruption",
        "taint-eviction-controller",
        "job",
        "ttl-after-finished-controller",
        "cronjob",
        "replicationcontroller",
        "statefulset",
        "persistentvolume-binder",
        "pvc-protection",
        "pv-protection",
      ],
      extraControllers: [
        scheduler(),
        replicaSetController(),
        deploymentController(),
        nodeLifecycleController({
          ...(options.nodeMonitorGracePeriodMs !== undefined ? { gracePeriodMs: options.nodeMonitorGracePeriodMs } : {}),
          ...(options.nodeMonitorPeriodMs !== undefined ? { monitorPeriodMs: options.nodeMonitorPeriodMs } : {}),
        }),
        endpointsController(),
        endpointSliceController(),
        endpointSliceMirroringController(),
        daemonSetController(),
        disruptionController(),
        taintEvictionController(),
        jobController(),
        ttlAfterFinishedController(),
        cronJobController(),
        replicaSetController({ kind: "ReplicationController" }),
        statefulSetController(),
        volumeBinderController(),
        pvcProtectionController(),
        pvProtectionController(),
      ],
      leaderElection: false,
      // As kube-controller-manager and kube-scheduler do: no controller reads them.
      informerTransform: dropManagedFields,
      ...(options.logger !== undefined ? { logger: options.logger } : {}),
    });
    manager.start();
    if (schedulerThread)
      schedulerWorker = new SchedulerWorker(
        { server: plane.url, token: identities.scheduler(), log: options.logger !== undefined },
        options.logger,
      );
    if (traffic) {
      trafficPlane = new TrafficPlane(new KubeClient({ server: plane.url, userAgent: "sim-cluster-traffic" }), options.logger);
      await trafficPlane.start();
    }
  } catch (error) {
    await trafficPlane?.close();
    await schedulerWorker?.close();
    await manager?.stop();
    client.close();
    await plane.close();
    throw error;
  }

  const capacity = { ...DEFAULT_NODE_CAPACITY, ...(options.nodeCapacity ?? {}) };
  const kubeletOptions: HostedKubeletOptions = {
    leaseRenewIntervalMs: options.leaseRenewIntervalMs ?? 10_000,
    statusReportIntervalMs: options.statusReportIntervalMs ?? 300_000,
    ...(options.podShutdownMs !== undefined ? { podShutdownMs: options.podShutdownMs } : {}),
  };
  const hostOptions = { server: plane.url, sharedToken: identities.tokenFor("system:node:sim-cluster", ["system:nodes"]) };
  const threads =
    nodeThreads > 0
      ? new NodeThreads(nodeThreads, { ...hostOptions, kubelet: kubeletOptions, log: options.logger !== undefined }, options.logger)
      : undefined;
  const host: KubeletHost =
    threads ??
    new LocalKubelets({
      ...hostOptions,
      kubelet: {
        ...kubeletOptions,
        ...(options.imagePullFails !== undefined ? { imagePullFails: options.imagePullFails } : {}),
        ...(options.logger !== undefined ? { logger: options.logger } : {}),
      },
    });
  const entryOf = (name: string) => {
    const entry = kubelets.get(name);
    if (entry === undefined) throw new Error(`no node ${name} in this cluster`);
    return entry;
  };
  let counter = 0;
  const addNode = async (node: SimNodeOptions = {}): Promise<string> => {
    let index = 0;
    const used = new Set([...kubelets.values()].map((k) => k.index));
    while (used.has(index)) index++;
    let name = node.name;
    if (name === undefined) {
      do name = `sim-node-${++counter}`;
      while (kubelets.has(name));
    }
    if (kubelets.has(name)) throw new Error(`node ${name} is already running`);
    const spec: SimNodeSpec = {
      name,
      capacity: { ...capacity, ...(node.capacity ?? {}) },
      labels: { ...(node.labels ?? {}) },
      address: hostAddress(nodeCIDR, index),
      ...(secondaryNodeCIDR !== undefined ? { secondaryAddress: hostAddress(secondaryNodeCIDR, index) } : {}),
      podCIDR: nodeSubnet(podCIDRs[0]!, index),
      ...(podCIDRs[1] !== undefined ? { secondaryPodCIDR: nodeSubnet(podCIDRs[1], index) } : {}),
      providerID: `sim://${options.name ?? "sim-cluster"}/${name}`,
      ...(node.taints !== undefined ? { taints: node.taints.map((t) => ({ ...t })) } : {}),
    };
    kubelets.set(name, { spec, index, running: true, version: KUBELET_VERSION });
    try {
      await host.add(spec, KUBELET_VERSION, identities.kubelet(name));
    } catch (error) {
      kubelets.delete(name);
      throw error;
    }
    try {
      await trafficPlane?.addNode(name, { address: spec.address, podCIDR: spec.podCIDR });
    } catch (error) {
      kubelets.delete(name);
      await host.remove(name);
      throw error;
    }
    return name;
  };

  const initial = typeof options.nodes === "number" ? Array.from({ length: options.nodes }, () => ({})) : (options.nodes ?? [{}]);
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closing ??= (async () => {
      await trafficPlane?.close();
      await host.close();
      await schedulerWorker?.close();
      await manager?.stop();
      client.close();
      await plane.close();
    })());
  try {
    for (const node of initial) await addNode(node);
  } catch (error) {
    await close();
    throw error;
  }

  return {
    url: plane.url,
    kubeconfig: plane.kubeconfig,
    adminToken: identities.admin(),
    plane,
    writeKubeconfig: (path) => plane.writeKubeconfig(path),
    get nodes() {
      return [...kubelets].filter(([, k]) => k.running).map(([name]) => name);
    },
    addNode,
    async removeNode(name) {
      entryOf(name);
      kubelets.delete(name);
      await host.remove(name);
      const pods = plane.store("", "pods")!;
      await plane.store("", "nodes")!.delete(undefined, name);
      const bound = await pods.list(undefined, { fieldSelector: `spec.nodeName=${name}` });
      // No kubelet will finish a graceful delete: force them, as the pod garbage collector does.
      await Promise.all(
        bound.items.map((pod) =>
          pods.delete(pod.metadata?.namespace, pod.metadata?.name ?? "", { gracePeriodSeconds: 0 }).catch(() => undefined),
        ),
      );
      await trafficPlane?.removeNode(name);
    },
    async stopNode(name) {
      const entry = entryOf(name);
      if (!entry.running) throw new Error(`node ${name} is stopped already`);
      entry.running = false;
      await host.stop(name);
      // A machine that is off answers nothing: its NodePorts and its pods' servers close.
      await trafficPlane?.removeNode(name);
    },
    async startNode(name) {
      const entry = entryOf(name);
      if (entry.running) throw new Error(`node ${name} is running already`);
      entry.running = true;
      try {
        await trafficPlane?.addNode(name, { address: entry.spec.address, podCIDR: entry.spec.podCIDR });
        await host.start(name, entry.version, identities.kubelet(name));
      } catch (error) {
        entry.running = false;
        throw error;
      }
    },
    async setNodeCapacity(name, nodeCapacity) {
      const entry = entryOf(name);
      if (!entry.running) throw new Error(`node ${name} is stopped; start it first`);
      await host.setCapacity(name, nodeCapacity);
    },
    async rebootNode(name) {
      const entry = entryOf(name);
      if (!entry.running) throw new Error(`node ${name} is stopped; start it instead`);
      await host.reboot(name);
    },
    setVersion: (gitVersion) => reportedVersion.set(gitVersion),
    async upgradeNode(name, kubeletVersion) {
      const entry = entryOf(name);
      if (!entry.running) throw new Error(`node ${name} is stopped; start it first`);
      if (!/^v\d+\.\d+\.\d+/.test(kubeletVersion))
        throw new Error(`invalid kubelet version ${JSON.stringify(kubeletVersion)}: want one such as v1.33.1`);
      entry.running = false;
      await host.stop(name);
      await trafficPlane?.removeNode(name);
      entry.version = kubeletVersion;
      entry.running = true;
      await trafficPlane?.addNode(name, { address: entry.spec.address, podCIDR: entry.spec.podCIDR });
      await host.start(name, kubeletVersion, identities.kubelet(name));
      await host.reboot(name);
    },
    nodeThreads: threads?.threads ?? [],
    schedulerThread: schedulerWorker,
    close,
  };
}
