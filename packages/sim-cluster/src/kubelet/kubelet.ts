import type { KubeObject } from "@kubekit/generic-controlplane";
import { randomUUID } from "node:crypto";
import { isApiError, isNotFound, type KubeClient } from "@kubekit/generic-controlplane/controllers";
import { ClusterIPAllocator } from "../allocators/cluster-ip.js";
import { nowRFC3339 } from "../controllers/util.js";
import type { Node } from "../resources/nodes.js";
import { parseMilli, quantityText } from "../quantity.js";
import { allocatableOf } from "../scheduler/fit.js";
import { NODE_LEASES, NODES } from "../refs.js";
import { microTime, nodeConditions } from "./node-status.js";
import type { ImagePullRule } from "./images.js";
import { ownNodePods, type NodePodSource } from "./node-pods.js";
import { PodWorkers } from "./pod-workers.js";

/** What a simulated node is: its name, the resources it offers and where it sits. */
export interface SimNodeSpec {
  name: string;
  /** Capacity, also its allocatable: `cpu`, `memory`, `pods`, `ephemeral-storage` and any extended resource. */
  capacity: Record<string, string>;
  labels: Record<string, string>;
  /** The node's InternalIP. */
  address: string;
  /** On a dual-stack cluster, its InternalIP of the other family. */
  secondaryAddress?: string;
  /** The range its pods' IPs come from. */
  podCIDR: string;
  /** On a dual-stack cluster, the range of the other family: each pod gets an address from both. */
  secondaryPodCIDR?: string;
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
  /**
   * How long a deleted pod's containers take to stop before the kubelet removes the pod (never
   * longer than its grace period). Default 100 ms; at least 1 ms, so a terminating pod is always
   * observable.
   */
  podShutdownMs?: number;
  /**
   * Which images fail to pull: their containers wait in `ErrImagePull`, then `ImagePullBackOff`,
   * and the pod stays Pending. Default `isUnpullableImage`.
   */
  imagePullFails?: ImagePullRule;
  /**
   * Where the kubelet reads its Node between reports: a shared informer's copy (one node watch for
   * a cluster of many nodes in one process) instead of a GET every renewal; `undefined` when the
   * copy is not there yet, which falls back to a GET. Default: a GET each time, as upstream's kubelet.
   */
  cachedNode?: (name: string) => KubeObject | undefined;
  /** How often Deferred resizes are retried besides whenever room frees (the kubelet's 3 min). */
  resizeRetryIntervalMs?: number;
  /**
   * How often pods whose last sync failed, and bound pods never started, are synced again (the
   * status manager's 10 s).
   */
  podResyncIntervalMs?: number;
  logger?: (record: { msg: string; level?: "info" | "warn" | "error" } & Record<string, unknown>) => void;
}

/** The port a kubelet serves on (its daemon endpoint), which `nodes/proxy` answers for. */
export const KUBELET_PORT = 10250;
export const NODE_LEASE_NAMESPACE = "kube-node-lease";
/**
 * Node annotation that hot-plugs resources into (or out of) a simulated node, e.g.
 * `cpu=16,memory=64Gi`: its kubelet takes it as the machine's new size at its next status update,
 * as a real kubelet reports a machine whose CPUs or memory were hot-plugged.
 */
export const NODE_CAPACITY_ANNOTATION = "sim.kubekit.dev/capacity";
const MERGE_PATCH = "application/merge-patch+json";
const DEFAULT_RESIZE_RETRY_MS = 180_000;
const DEFAULT_POD_RESYNC_MS = 10_000;

/**
 * A kubelet without containers: registers its Node (capacity, allocatable, addresses,
 * providerID, podCIDRs, node info), renews its Lease in `kube-node-lease` and reports Ready, and
 * runs the pods bound to it through its PodWorkers (start, in-place resize, graceful shutdown).
 * It can be stopped (a machine gone), and rebooted (NotReady, a new boot ID, containers restarted).
 */
export class SimulatedKubelet {
  readonly spec: SimNodeSpec;
  readonly #client: KubeClient;
  readonly #options: KubeletOptions;
  readonly #pods: NodePodSource;
  readonly #workers: PodWorkers;
  /** What the pod workers admit and resize against; replaced in place when the capacity changes. */
  readonly #allocatable: Map<string, bigint>;
  readonly #timers: NodeJS.Timeout[] = [];
  readonly #inFlight = new Set<Promise<unknown>>();
  #bootID: string | undefined;
  /** The capacity annotation last acted on, so each value is applied (or reported invalid) once. */
  #annotationSeen: string | undefined;
  #stopped = false;

  /**
   * `pods` is where the kubelet learns of the pods bound to its node: by default its own informer
   * (`spec.nodeName=<node>`, as upstream's); a cluster of many nodes in one process shares one.
   */
  constructor(client: KubeClient, spec: SimNodeSpec, options: KubeletOptions, pods?: NodePodSource) {
    this.#client = client;
    this.spec = spec;
    this.#options = options;
    this.#pods = pods ?? ownNodePods(client, spec.name);
    this.#allocatable = allocatableOf({ status: { allocatable: spec.capacity } });
    const node = {
      address: spec.address,
      ...(spec.secondaryAddress !== undefined ? { secondaryAddress: spec.secondaryAddress } : {}),
      allocatable: this.#allocatable,
      // Pod IPs are handed out like service IPs: any free host address of the node's range.
      podIPs: new ClusterIPAllocator(spec.podCIDR),
      ...(spec.secondaryPodCIDR !== undefined ? { secondaryPodIPs: new ClusterIPAllocator(spec.secondaryPodCIDR) } : {}),
      pods: this.#pods,
      track: (work: Promise<unknown>) => this.#track(work),
      stopped: () => this.#stopped,
    };
    this.#workers = new PodWorkers(client, node, { podShutdownMs: options.podShutdownMs, imagePullFails: options.imagePullFails });
  }

  get name(): string {
    return this.spec.name;
  }

  /** The node's current boot ID (`status.nodeInfo.bootID`). */
  get bootID(): string | undefined {
    return this.#bootID;
  }

  /**
   * The machine's resources changed (CPU or memory hot-plug, a resized VM): the named resources
   * replace theirs, the rest stay. Pods are admitted and resized against the new size at once;
   * the Node reports it when this resolves. Pods already running stay, as on a real kubelet, even
   * when they no longer fit.
   */
  async setCapacity(capacity: Readonly<Record<string, string>>): Promise<void> {
    this.#adoptCapacity(capacity);
    await this.#postNodeStatus(true);
  }

  #adoptCapacity(capacity: Readonly<Record<string, string>>): void {
    for (const [name, value] of Object.entries(capacity)) {
      if (parseMilli(value) === undefined) throw new Error(`invalid quantity ${JSON.stringify(value)} for ${name}`);
    }
    this.spec.capacity = { ...this.spec.capacity, ...capacity };
    this.#allocatable.clear();
    for (const [name, milli] of allocatableOf({ status: { allocatable: this.spec.capacity } })) this.#allocatable.set(name, milli);
    // More room may let a Deferred resize through.
    this.#workers.retryDeferred();
  }

  /** Registers the node and its Lease, then runs the pods bound to it. Resolves once the node reports Ready. */
  async start(): Promise<void> {
    await this.#register();
    await this.#renewLease();
    this.#pods.addEventHandler(this.#workers.handlers);
    this.#pods.start();
    await this.#pods.waitForSync();
    this.#startTimers();
  }

  /** Stops heartbeats and pod handling; the Node object stays (a node lifecycle controller marks it unreachable). */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#stopTimers();
    this.#workers.stop();
    await this.#pods.stop();
    await this.#settle();
  }

  /**
   * A node reboot: the node reports NotReady with a new boot ID, every container it runs starts
   * again (restartCount + 1, the previous run as lastState), and the node reports Ready.
   */
  async reboot(): Promise<void> {
    this.#stopTimers();
    await this.#settle();
    this.#bootID = randomUUID();
    await this.#postNodeStatus(false);
    await this.#workers.restartAll();
    await this.#postNodeStatus(true);
    this.#startTimers();
  }

  #startTimers(): void {
    // nodeStatusUpdateFrequency runs with the Lease renewal (both 10 s upstream).
    this.#every(this.#options.leaseRenewIntervalMs, () => this.#track(this.#renewLease().then(() => this.#restoreNodeStatus())));
    this.#every(this.#options.statusReportIntervalMs, () => this.#track(this.#postNodeStatus(true)));
    this.#every(this.#options.resizeRetryIntervalMs ?? DEFAULT_RESIZE_RETRY_MS, () => this.#workers.retryDeferred());
    this.#every(this.#options.podResyncIntervalMs ?? DEFAULT_POD_RESYNC_MS, () => this.#workers.resync());
  }

  /**
   * Runs `work` every `intervalMs`, the first time after a random part of one interval: nodes
   * started together do not renew and report in phase (real kubelets never start in step), so
   * a thousand of them spread their writes over the interval instead of sending them at once.
   */
  #every(intervalMs: number, work: () => void): void {
    const first = setTimeout(
      () => {
        work();
        const timer = setInterval(work, intervalMs);
        this.#timers.splice(this.#timers.indexOf(first), 1, timer);
      },
      Math.ceil(Math.random() * intervalMs),
    );
    this.#timers.push(first);
  }

  #stopTimers(): void {
    // clearInterval and clearTimeout clear either kind.
    for (const timer of this.#timers.splice(0)) clearInterval(timer);
  }

  async #settle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  #track(work: Promise<unknown>): void {
    const tracked = work.catch((error: unknown) => {
      if (!this.#stopped)
        this.#options.logger?.({
          level: "warn",
          msg: "kubelet work failed",
          node: this.name,
          error: error instanceof Error ? error.message : String(error),
        });
    });
    this.#inFlight.add(tracked);
    void tracked.finally(() => this.#inFlight.delete(tracked));
  }

  // ---- node ---------------------------------------------------------------------------------

  #nodeStatus(previous: Node["status"] | undefined, ready: boolean): Node["status"] {
    this.#bootID ??= previous?.nodeInfo?.["bootID"] ?? randomUUID();
    return {
      capacity: { ...this.spec.capacity },
      allocatable: { ...this.spec.capacity },
      conditions: nodeConditions(nowRFC3339(), previous?.conditions, ready),
      addresses: [
        { type: "InternalIP", address: this.spec.address },
        ...(this.spec.secondaryAddress !== undefined ? [{ type: "InternalIP", address: this.spec.secondaryAddress }] : []),
        { type: "Hostname", address: this.name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: KUBELET_PORT } },
      nodeInfo: {
        machineID: previous?.nodeInfo?.["machineID"] ?? randomUUID().replaceAll("-", ""),
        systemUUID: previous?.nodeInfo?.["systemUUID"] ?? randomUUID(),
        bootID: this.#bootID,
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
        spec: {
          podCIDR: this.spec.podCIDR,
          podCIDRs: [this.spec.podCIDR, ...(this.spec.secondaryPodCIDR !== undefined ? [this.spec.secondaryPodCIDR] : [])],
          providerID: this.spec.providerID,
          ...(this.spec.taints?.length ? { taints: this.spec.taints } : {}),
        },
      });
    } catch (error) {
      if (!(isApiError(error) && error.code === 409)) throw error;
      // A node registered before (a restarted kubelet, persistent storage): keep it.
      node = await this.#client.get<Node>(NODES, undefined, this.name);
    }
    await this.#client.update(NODES, undefined, { ...node, status: this.#nodeStatus(node.status, true) }, "status");
  }

  async #postNodeStatus(ready: boolean): Promise<void> {
    const node = await this.#client.get<Node>(NODES, undefined, this.name);
    const status = this.#nodeStatus(node.status, ready);
    // Only the resources this kubelet measures: extended resources others advertise stay, as upstream.
    await this.#client.patch(
      NODES,
      undefined,
      this.name,
      {
        status: {
          capacity: status?.capacity,
          allocatable: status?.allocatable,
          conditions: status?.conditions,
          nodeInfo: status?.nodeInfo,
        },
      },
      MERGE_PATCH,
      "status",
    );
  }

  /** A hot-plug asked for through the Node's annotation; a value that does not parse is logged and ignored. */
  #capacityFromAnnotation(node: Node): void {
    const text = node.metadata?.annotations?.[NODE_CAPACITY_ANNOTATION];
    if (text === undefined || text === this.#annotationSeen) return;
    this.#annotationSeen = text;
    const capacity: Record<string, string> = {};
    for (const entry of text.split(",").filter((e) => e.trim() !== "")) {
      const [name, value, extra] = entry.split("=").map((part) => part.trim());
      if (!name || value === undefined || extra !== undefined || parseMilli(value) === undefined) {
        this.#options.logger?.({
          level: "warn",
          msg: "ignoring invalid capacity annotation",
          node: this.name,
          annotation: NODE_CAPACITY_ANNOTATION,
          value: text,
        });
        return;
      }
      capacity[name] = value;
    }
    this.#adoptCapacity(capacity);
  }

  /** Whether the Node shows another size than this kubelet measures (someone patched status.capacity, or a hot-plug). */
  #reportsOtherSize(node: Node): boolean {
    const differs = (reported: Record<string, unknown> | undefined) =>
      Object.entries(this.spec.capacity).some(([name, value]) => {
        const text = quantityText(reported?.[name]);
        return text === undefined || parseMilli(text) !== parseMilli(value);
      });
    return differs(node.status?.capacity) || differs(node.status?.allocatable);
  }

  /**
   * Between full reports the kubelet posts its status when the API holds another one (upstream's
   * tryUpdateNodeStatus posts on any change): a node lifecycle controller that marked the node
   * Unknown while it was slow is answered within one renewal.
   */
  async #restoreNodeStatus(): Promise<void> {
    const node = (this.#options.cachedNode?.(this.name) as Node | undefined) ?? (await this.#client.get<Node>(NODES, undefined, this.name));
    this.#capacityFromAnnotation(node);
    const ready = node.status?.conditions?.find((c) => c.type === "Ready");
    if (ready?.status !== "True" || node.status?.nodeInfo?.["bootID"] !== this.#bootID || this.#reportsOtherSize(node))
      await this.#postNodeStatus(true);
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
        metadata: {
          name: this.name,
          namespace: NODE_LEASE_NAMESPACE,
          ownerReferences: [{ apiVersion: "v1", kind: "Node", name: this.name, uid: node.metadata?.uid ?? "" }],
        },
        spec,
      });
    }
  }
}
