import { randomUUID } from "node:crypto";
import { Informer, isApiError, isNotFound, type KubeClient } from "@kubekit/generic-controlplane/controllers";
import { ClusterIPAllocator } from "../allocators/cluster-ip.js";
import { nowRFC3339 } from "../controllers/util.js";
import type { Node, NodeCondition } from "../resources/nodes.js";
import type { ContainerStatus, Pod, PodCondition } from "../resources/pods.js";
import { NODE_LEASES, NODES, PODS } from "../refs.js";

/** What a simulated node is: its name, the resources it offers and where it sits. */
export interface SimNodeSpec {
  name: string;
  /** Capacity, also its allocatable: `cpu`, `memory`, `pods`, `ephemeral-storage` and any extended resource. */
  capacity: Record<string, string>;
  labels: Record<string, string>;
  /** The node's InternalIP. */
  address: string;
  /** The range its pods' IPs come from. */
  podCIDR: string;
  providerID: string;
  /** Taints the node registers with (kubelet's `--register-with-taints`). */
  taints?: Array<{ key: string; value?: string; effect: string }>;
}

export interface KubeletOptions {
  /** How often the node Lease is renewed (kubelet's 10 s by default). */
  leaseRenewIntervalMs: number;
  /** How often the Ready condition's heartbeat is posted (kubelet's nodeStatusReportFrequency, 5 min). */
  statusReportIntervalMs: number;
  kubeletVersion: string;
  logger?: (record: { msg: string; level?: "info" | "warn" | "error" } & Record<string, unknown>) => void;
}

export const NODE_LEASE_NAMESPACE = "kube-node-lease";
const MERGE_PATCH = "application/merge-patch+json";

/** A MicroTime: RFC 3339 with exactly six fractional digits. */
function microTime(date = new Date()): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

function readyConditions(now: string, previous: NodeCondition[] | undefined): NodeCondition[] {
  const make = (type: string, status: "True" | "False", reason: string, message: string): NodeCondition => {
    const before = previous?.find((c) => c.type === type);
    return { type, status, reason, message, lastHeartbeatTime: now, lastTransitionTime: before?.status === status && before.lastTransitionTime ? before.lastTransitionTime : now };
  };
  return [
    make("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
    make("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
    make("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
    make("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
  ];
}

/**
 * A kubelet without containers: registers its Node (capacity, allocatable, addresses,
 * providerID, podCIDRs, node info), renews its Lease in `kube-node-lease` and reports Ready, and
 * takes every pod bound to it to Running at once: a pod IP from the node's pod CIDR, the
 * Initialized, ContainersReady, Ready and PodReadyToStartContainers conditions and a running,
 * ready status per container.
 */
export class SimulatedKubelet {
  readonly spec: SimNodeSpec;
  readonly #client: KubeClient;
  readonly #options: KubeletOptions;
  readonly #podIPs: ClusterIPAllocator;
  readonly #pods: Informer;
  readonly #timers: NodeJS.Timeout[] = [];
  readonly #inFlight = new Set<Promise<unknown>>();
  /** Pods (by uid) being started, so an update event arriving meanwhile does not start them twice. */
  readonly #starting = new Set<string>();
  #stopped = false;

  constructor(client: KubeClient, spec: SimNodeSpec, options: KubeletOptions) {
    this.#client = client;
    this.spec = spec;
    this.#options = options;
    // Pod IPs are handed out like service IPs: any free host address of the node's range.
    this.#podIPs = new ClusterIPAllocator(spec.podCIDR);
    this.#pods = new Informer(client, { ...PODS, kind: "Pod" }, { fieldSelector: `spec.nodeName=${spec.name}` });
  }

  get name(): string {
    return this.spec.name;
  }

  /** Registers the node and its Lease, then runs the pods bound to it. Resolves once the node reports Ready. */
  async start(): Promise<void> {
    await this.#register();
    await this.#renewLease();
    this.#pods.addEventHandler({
      add: (pod) => this.#track(this.#syncPod(pod)),
      update: (_old, pod) => this.#track(this.#syncPod(pod)),
      delete: (pod) => {
        const ip = (pod as Pod).status?.podIP;
        if (ip) this.#podIPs.release(ip);
      },
    });
    this.#pods.start();
    await this.#pods.waitForSync();
    this.#timers.push(setInterval(() => this.#track(this.#renewLease()), this.#options.leaseRenewIntervalMs));
    this.#timers.push(setInterval(() => this.#track(this.#postStatus()), this.#options.statusReportIntervalMs));
  }

  /** Stops heartbeats and pod handling; the Node object stays (it turns NotReady for a node lifecycle controller). */
  async stop(): Promise<void> {
    this.#stopped = true;
    for (const timer of this.#timers) clearInterval(timer);
    await this.#pods.stop();
    await Promise.allSettled([...this.#inFlight]);
  }

  #track(work: Promise<unknown>): void {
    const tracked = work.catch((error: unknown) => {
      if (!this.#stopped) this.#options.logger?.({ level: "warn", msg: "kubelet work failed", node: this.name, error: error instanceof Error ? error.message : String(error) });
    });
    this.#inFlight.add(tracked);
    void tracked.finally(() => this.#inFlight.delete(tracked));
  }

  #nodeStatus(previous?: Node["status"]): Node["status"] {
    const now = nowRFC3339();
    return {
      capacity: { ...this.spec.capacity },
      allocatable: { ...this.spec.capacity },
      conditions: readyConditions(now, previous?.conditions),
      addresses: [
        { type: "InternalIP", address: this.spec.address },
        { type: "Hostname", address: this.name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
      nodeInfo: {
        machineID: previous?.nodeInfo?.["machineID"] ?? randomUUID().replaceAll("-", ""),
        systemUUID: previous?.nodeInfo?.["systemUUID"] ?? randomUUID(),
        bootID: previous?.nodeInfo?.["bootID"] ?? randomUUID(),
        kernelVersion: "sim",
        osImage: "kubekit simulated node",
        containerRuntimeVersion: "sim://0.0.0",
        kubeletVersion: this.#options.kubeletVersion,
        kubeProxyVersion: this.#options.kubeletVersion,
        operatingSystem: "linux",
        architecture: "amd64",
      },
    } as Node["status"];
  }

  async #register(): Promise<void> {
    const labels = { "kubernetes.io/hostname": this.name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64", ...this.spec.labels };
    let node: Node;
    try {
      node = await this.#client.create<Node>(NODES, undefined, {
        apiVersion: "v1",
        kind: "Node",
        metadata: { name: this.name, labels },
        spec: { podCIDR: this.spec.podCIDR, podCIDRs: [this.spec.podCIDR], providerID: this.spec.providerID, ...(this.spec.taints?.length ? { taints: this.spec.taints } : {}) },
      });
    } catch (error) {
      if (!(isApiError(error) && error.code === 409)) throw error;
      // A node registered before (a restarted kubelet, persistent storage): keep it.
      node = await this.#client.get<Node>(NODES, undefined, this.name);
    }
    await this.#client.update(NODES, undefined, { ...node, status: this.#nodeStatus(node.status) }, "status");
  }

  async #postStatus(): Promise<void> {
    const node = await this.#client.get<Node>(NODES, undefined, this.name);
    await this.#client.patch(NODES, undefined, this.name, { status: { conditions: readyConditions(nowRFC3339(), node.status?.conditions) } }, MERGE_PATCH, "status");
  }

  async #renewLease(): Promise<void> {
    const spec = { holderIdentity: this.name, leaseDurationSeconds: 40, renewTime: microTime() };
    try {
      await this.#client.patch(NODE_LEASES, NODE_LEASE_NAMESPACE, this.name, { spec }, MERGE_PATCH);
    } catch (error) {
      if (!isNotFound(error)) throw error;
      const node = await this.#client.get<Node>(NODES, undefined, this.name);
      await this.#client.create(NODE_LEASES, NODE_LEASE_NAMESPACE, {
        apiVersion: "coordination.k8s.io/v1",
        kind: "Lease",
        metadata: { name: this.name, namespace: NODE_LEASE_NAMESPACE, ownerReferences: [{ apiVersion: "v1", kind: "Node", name: this.name, uid: node.metadata?.uid ?? "" }] },
        spec,
      });
    }
  }

  async #syncPod(pod: Pod): Promise<void> {
    if (this.#stopped || pod.metadata?.deletionTimestamp) return;
    const ip = pod.status?.podIP;
    if (ip && this.#podIPs.contains(ip) && !this.#podIPs.isAllocated(ip)) this.#podIPs.allocate(ip);
    if (pod.status?.phase === "Running" || pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed") return;
    const uid = pod.metadata?.uid ?? "";
    if (this.#starting.has(uid)) return;
    this.#starting.add(uid);
    try {
      await this.#startPod(pod, ip);
    } finally {
      this.#starting.delete(uid);
    }
  }

  async #startPod(pod: Pod, ip: string | undefined): Promise<void> {
    const now = nowRFC3339();
    const podIP = ip ?? this.#podIPs.allocateNext();
    const condition = (type: string): PodCondition => ({ type, status: "True", lastProbeTime: null, lastTransitionTime: now });
    const containerStatuses: ContainerStatus[] = (pod.spec?.containers ?? []).map((c) => ({
      name: c.name ?? "",
      ready: true,
      started: true,
      restartCount: 0,
      image: c.image ?? "",
      imageID: `sim://${c.image ?? ""}`,
      containerID: `sim://${randomUUID()}`,
      state: { running: { startedAt: now } },
    }));
    try {
      await this.#client.patch(
        PODS,
        pod.metadata?.namespace,
        pod.metadata?.name ?? "",
        {
          status: {
            phase: "Running",
            hostIP: this.spec.address,
            hostIPs: [{ ip: this.spec.address }],
            podIP,
            podIPs: [{ ip: podIP }],
            startTime: now,
            conditions: [condition("PodReadyToStartContainers"), condition("Initialized"), condition("Ready"), condition("ContainersReady"), condition("PodScheduled")],
            containerStatuses,
          },
        },
        MERGE_PATCH,
        "status",
      );
    } catch (error) {
      if (!ip) this.#podIPs.release(podIP);
      if (!isNotFound(error)) throw error;
    }
  }
}
