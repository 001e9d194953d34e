import { randomUUID } from "node:crypto";
import { Informer, isApiError, isNotFound, objectKey, type KubeClient } from "@kubekit/generic-controlplane/controllers";
import { ClusterIPAllocator } from "../allocators/cluster-ip.js";
import { nowRFC3339 } from "../controllers/util.js";
import { shutdownDelayMsOf } from "../traffic/echo-ports.js";
import { canonical } from "./canonical.js";
import type { Node } from "../resources/nodes.js";
import type { Pod } from "../resources/pods.js";
import { allocatableOf, podRequests } from "../scheduler/fit.js";
import { NODE_LEASES, NODES, PODS } from "../refs.js";
import { changedResources, checkResize, resourcesOf, sameResources } from "./allocation.js";
import { microTime, nodeConditions } from "./node-status.js";
import { podStatus, restartContainer, startContainer, type ContainerRecord, type PodRecord } from "./pod-status.js";

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
  /**
   * How long a deleted pod's containers take to stop before the kubelet removes the pod (never
   * longer than its grace period). Default 100 ms; at least 1 ms, so a terminating pod is always
   * observable.
   */
  podShutdownMs?: number;
  /** How often Deferred resizes are retried besides whenever room frees (the kubelet's 3 min). */
  resizeRetryIntervalMs?: number;
  logger?: (record: { msg: string; level?: "info" | "warn" | "error" } & Record<string, unknown>) => void;
}

export const NODE_LEASE_NAMESPACE = "kube-node-lease";
const MERGE_PATCH = "application/merge-patch+json";
const DEFAULT_POD_SHUTDOWN_MS = 100;
const DEFAULT_RESIZE_RETRY_MS = 180_000;

/** Upstream's resize order for pending resizes: higher priority, then higher QoS class. */
const QOS_RANK: Record<string, number> = { Guaranteed: 0, Burstable: 1, BestEffort: 2 };

/**
 * A kubelet without containers: registers its Node (capacity, allocatable, addresses,
 * providerID, podCIDRs, node info), renews its Lease in `kube-node-lease` and reports Ready;
 * runs every pod bound to it (a pod IP from the node's pod CIDR, the pod conditions and a running
 * container per spec container); admits in-place resizes as kubelet 1.35 does (allocation,
 * PodResizePending Deferred/Infeasible, PodResizeInProgress, resize policies); and shuts down
 * deleted pods gracefully before removing them.
 */
export class SimulatedKubelet {
  readonly spec: SimNodeSpec;
  readonly #client: KubeClient;
  readonly #options: KubeletOptions;
  readonly #podIPs: ClusterIPAllocator;
  readonly #pods: Informer;
  readonly #allocatable: Map<string, bigint>;
  readonly #timers: NodeJS.Timeout[] = [];
  readonly #inFlight = new Set<Promise<unknown>>();
  /** The pods this kubelet runs, by uid (upstream's allocation checkpoint and runtime state). */
  readonly #records = new Map<string, PodRecord>();
  /** Each pod's work runs after the previous, so events arriving meanwhile never overlap. */
  readonly #queues = new Map<string, Promise<void>>();
  /** Pods shutting down after a graceful delete, by uid: the timer that ends it and when. */
  readonly #shutdowns = new Map<string, { timer: NodeJS.Timeout; at: number }>();
  #bootID: string | undefined;
  #stopped = false;

  constructor(client: KubeClient, spec: SimNodeSpec, options: KubeletOptions) {
    this.#client = client;
    this.spec = spec;
    this.#options = options;
    // Pod IPs are handed out like service IPs: any free host address of the node's range.
    this.#podIPs = new ClusterIPAllocator(spec.podCIDR);
    this.#allocatable = allocatableOf({ status: { allocatable: spec.capacity } });
    this.#pods = new Informer(client, { ...PODS, kind: "Pod" }, { fieldSelector: `spec.nodeName=${spec.name}` });
  }

  get name(): string {
    return this.spec.name;
  }

  /** The node's current boot ID (`status.nodeInfo.bootID`). */
  get bootID(): string | undefined {
    return this.#bootID;
  }

  /** Registers the node and its Lease, then runs the pods bound to it. Resolves once the node reports Ready. */
  async start(): Promise<void> {
    await this.#register();
    await this.#renewLease();
    this.#pods.addEventHandler({
      add: (pod) => this.#enqueue(pod),
      update: (_old, pod) => this.#enqueue(pod),
      delete: (pod) => this.#forget(pod),
    });
    this.#pods.start();
    await this.#pods.waitForSync();
    this.#startTimers();
  }

  /** Stops heartbeats and pod handling; the Node object stays (a node lifecycle controller marks it unreachable). */
  async stop(): Promise<void> {
    this.#stopped = true;
    this.#stopTimers();
    for (const { timer } of this.#shutdowns.values()) clearTimeout(timer);
    this.#shutdowns.clear();
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
    const now = nowRFC3339();
    for (const record of this.#records.values()) {
      if (record.terminating) continue;
      // Containers of a rebooted node end without an exit status of their own.
      for (const container of record.containers) restartContainer(container, now, "Unknown", 255);
    }
    await Promise.all([...this.#records.keys()].map((uid) => this.#run(uid, async () => this.#syncLatest(uid))));
    await this.#postNodeStatus(true);
    this.#startTimers();
  }

  #startTimers(): void {
    this.#timers.push(setInterval(() => this.#track(this.#renewLease()), this.#options.leaseRenewIntervalMs));
    this.#timers.push(setInterval(() => this.#track(this.#postNodeStatus(true)), this.#options.statusReportIntervalMs));
    this.#timers.push(setInterval(() => this.#retryDeferred(), this.#options.resizeRetryIntervalMs ?? DEFAULT_RESIZE_RETRY_MS));
  }

  #stopTimers(): void {
    for (const timer of this.#timers.splice(0)) clearInterval(timer);
  }

  async #settle(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  #track(work: Promise<unknown>): void {
    const tracked = work.catch((error: unknown) => {
      if (!this.#stopped) this.#options.logger?.({ level: "warn", msg: "kubelet work failed", node: this.name, error: error instanceof Error ? error.message : String(error) });
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
        { type: "Hostname", address: this.name },
      ],
      daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
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
        spec: { podCIDR: this.spec.podCIDR, podCIDRs: [this.spec.podCIDR], providerID: this.spec.providerID, ...(this.spec.taints?.length ? { taints: this.spec.taints } : {}) },
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
    await this.#client.patch(NODES, undefined, this.name, { status: { conditions: status?.conditions, nodeInfo: status?.nodeInfo } }, MERGE_PATCH, "status");
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

  // ---- pods ---------------------------------------------------------------------------------

  /** Runs `work` for the pod `uid` after the work queued for it before. */
  #run(uid: string, work: () => Promise<void>): Promise<void> {
    const next = (this.#queues.get(uid) ?? Promise.resolve()).then(() => (this.#stopped ? undefined : work()));
    const settled = next.catch(() => undefined);
    this.#queues.set(uid, settled);
    void settled.then(() => {
      if (this.#queues.get(uid) === settled) this.#queues.delete(uid);
    });
    this.#track(next);
    return settled;
  }

  #enqueue(pod: Pod): void {
    const uid = pod.metadata?.uid ?? "";
    const key = objectKey(pod);
    void this.#run(uid, () => this.#sync(key, uid));
  }

  /** Syncs the pod `uid` from the informer's latest copy. */
  async #syncLatest(uid: string): Promise<void> {
    const pod = this.#pods.cache.list().find((p) => p.metadata?.uid === uid);
    if (pod !== undefined) await this.#sync(objectKey(pod), uid);
  }

  async #sync(key: string, uid: string): Promise<void> {
    const pod = this.#pods.cache.get(key) as Pod | undefined;
    if (pod === undefined || pod.metadata?.uid !== uid) return;
    if (pod.metadata?.deletionTimestamp) return this.#beginShutdown(pod);
    let record = this.#records.get(uid);
    if (record === undefined) {
      if (pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed") return;
      record = this.#admit(pod);
      this.#records.set(uid, record);
    }
    if (record.terminating) return;
    const freed = this.#decideResize(pod, record);
    const current = await this.#report(pod, record);
    if (record.inProgress) {
      this.#actuate(pod, record);
      await this.#report(current, record);
    }
    if (freed) this.#retryDeferred();
  }

  /** Takes a pod on: its containers run with what they ask for, or (after a kubelet restart) with what it reported. */
  #admit(pod: Pod): PodRecord {
    const now = nowRFC3339();
    const statuses = pod.status?.containerStatuses ?? [];
    const reported = pod.status?.podIP;
    let podIP: string;
    if (reported !== undefined && this.#podIPs.contains(reported)) {
      if (!this.#podIPs.isAllocated(reported)) this.#podIPs.allocate(reported);
      podIP = reported;
    } else podIP = this.#podIPs.allocateNext();
    const containers = (pod.spec?.containers ?? []).map((container): ContainerRecord => {
      const fresh = startContainer(container, resourcesOf(container), now);
      const status = statuses.find((s) => s.name === container.name);
      if (status === undefined) return fresh;
      // Recovered from the status this kubelet posted before it restarted (upstream reads its checkpoint).
      const allocated = status.allocatedResources === undefined ? fresh.allocated : { requests: status.allocatedResources, ...(status.resources?.limits ? { limits: status.resources.limits } : {}) };
      const running = status.state?.["running"] as { startedAt?: string } | undefined;
      return {
        ...fresh,
        containerID: status.containerID ?? fresh.containerID,
        startedAt: running?.startedAt ?? now,
        restartCount: status.restartCount ?? 0,
        ...(status.lastState !== undefined && Object.keys(status.lastState).length > 0 ? { lastState: status.lastState } : {}),
        allocated,
        actuated: status.resources ?? allocated,
      };
    });
    return { uid: pod.metadata?.uid ?? "", podIP, startTime: pod.status?.startTime ?? now, containers, inProgress: false, terminating: false, generation: pod.metadata?.generation ?? 0 };
  }

  /** The other pods this node runs, as the kubelet counts them: spec = allocated, status = actuated. */
  #allocatedPods(except: string): Pod[] {
    return [...this.#records.values()]
      .filter((r) => r.uid !== except)
      .map((r) => ({
        spec: { containers: r.containers.map((c) => ({ name: c.name, resources: c.allocated })) },
        status: { containerStatuses: r.containers.map((c) => ({ name: c.name, ready: true, restartCount: 0, image: "", imageID: "", allocatedResources: c.allocated.requests ?? {}, resources: c.actuated })) },
      }));
  }

  /**
   * handlePodResourcesResize: when the spec asks for other resources than allocated, allocate
   * them if the node has room (PodResizeInProgress until actuated), else leave the resize pending
   * as Deferred or Infeasible. Decided synchronously, so two pods never take the same room.
   * Returns whether requests went down (room freed for pending resizes).
   */
  #decideResize(pod: Pod, record: PodRecord): boolean {
    record.generation = pod.metadata?.generation ?? 0;
    const desired = new Map((pod.spec?.containers ?? []).map((c) => [c.name ?? "", resourcesOf(c)]));
    if (record.containers.every((c) => sameResources(desired.get(c.name), c.allocated))) {
      record.pending = undefined;
      return false;
    }
    const verdict = checkResize(pod, this.#allocatable, this.#allocatedPods(record.uid));
    if (!verdict.fits) {
      record.pending = { reason: verdict.reason, message: verdict.message };
      return false;
    }
    const before = requestsOf(record);
    for (const container of record.containers) container.allocated = desired.get(container.name) ?? {};
    record.pending = undefined;
    record.inProgress = true;
    const after = requestsOf(record);
    return [...before].some(([name, milli]) => (after.get(name) ?? 0n) < milli);
  }

  /** Applies the allocation to the containers; a resource whose resizePolicy is RestartContainer restarts its container. */
  #actuate(pod: Pod, record: PodRecord): void {
    const now = nowRFC3339();
    for (const container of record.containers) {
      const changed = changedResources(container.actuated, container.allocated);
      const policies = ((pod.spec?.containers ?? []).find((c) => c.name === container.name)?.["resizePolicy"] ?? []) as Array<{ resourceName?: string; restartPolicy?: string }>;
      const restart = changed.some((name) => policies.some((p) => p.resourceName === name && p.restartPolicy === "RestartContainer"));
      if (restart) restartContainer(container, now, "Completed", 0);
      container.actuated = container.allocated;
    }
    record.inProgress = false;
  }

  /** Posts the pod's status when it differs from what the API holds; returns the pod as it now stands. */
  async #report(pod: Pod, record: PodRecord): Promise<Pod> {
    const status = podStatus(pod, record, this.spec, nowRFC3339());
    const current = Object.fromEntries(Object.keys(status).map((k) => [k, (pod.status as Record<string, unknown> | undefined)?.[k]]));
    if (canonical(current) === canonical(status)) return pod;
    try {
      return await this.#client.patch<Pod>(PODS, pod.metadata?.namespace, pod.metadata?.name ?? "", { status }, MERGE_PATCH, "status");
    } catch (error) {
      if (!isNotFound(error)) throw error;
      return pod;
    }
  }

  /** Retries Deferred resizes (room freed, or the periodic retry): higher priority first, then higher QoS class. */
  #retryDeferred(): void {
    if (this.#stopped) return;
    const waiting = this.#pods.cache
      .list()
      .map((p) => p as Pod)
      .filter((p) => this.#records.get(p.metadata?.uid ?? "")?.pending?.reason === "Deferred");
    waiting.sort((a, b) => (b.spec?.priority ?? 0) - (a.spec?.priority ?? 0) || (QOS_RANK[a.status?.qosClass ?? ""] ?? 3) - (QOS_RANK[b.status?.qosClass ?? ""] ?? 3));
    for (const pod of waiting) this.#enqueue(pod);
  }

  /**
   * A graceful delete: the containers get `podShutdownMs`, or longer when they delay their
   * shutdown (agnhost netexec's `--delay-shutdown`), and at most the grace period to stop,
   * then they are reported terminated and the pod is deleted with grace period 0. A pod this
   * kubelet never ran, or one deleted with grace 0, goes at once.
   */
  async #beginShutdown(pod: Pod): Promise<void> {
    const uid = pod.metadata?.uid ?? "";
    const record = this.#records.get(uid);
    if (record?.terminating) return;
    const graceMs = (pod.metadata?.deletionGracePeriodSeconds ?? 0) * 1000;
    if (record === undefined || graceMs === 0) return this.#remove(pod);
    const delay = Math.max(1, Math.min(Math.max(this.#options.podShutdownMs ?? DEFAULT_POD_SHUTDOWN_MS, shutdownDelayMsOf(pod)), graceMs));
    const at = Date.now() + delay;
    const running = this.#shutdowns.get(uid);
    // A shorter grace period asked for later brings the end forward; a longer one changes nothing.
    if (running !== undefined && running.at <= at) return;
    if (running !== undefined) clearTimeout(running.timer);
    const timer = setTimeout(() => void this.#run(uid, () => this.#finishShutdown(pod, record)), delay);
    this.#shutdowns.set(uid, { timer, at });
  }

  async #finishShutdown(pod: Pod, record: PodRecord): Promise<void> {
    this.#shutdowns.delete(pod.metadata?.uid ?? "");
    const now = nowRFC3339();
    record.terminating = true;
    record.pending = undefined;
    record.inProgress = false;
    for (const container of record.containers) {
      container.terminated = { exitCode: 0, reason: "Completed", startedAt: container.startedAt, finishedAt: now, containerID: container.containerID };
    }
    const latest = (this.#pods.cache.get(objectKey(pod)) as Pod | undefined) ?? pod;
    await this.#report(latest, record);
    await this.#remove(pod);
  }

  /** Deletes the pod for good (grace period 0, only this incarnation of it) and frees what it held. */
  async #remove(pod: Pod): Promise<void> {
    const uid = pod.metadata?.uid ?? "";
    try {
      await this.#client.delete(PODS, pod.metadata?.namespace, pod.metadata?.name ?? "", { gracePeriodSeconds: 0, preconditions: { uid } });
    } catch (error) {
      if (!isNotFound(error) && !(isApiError(error) && error.code === 409)) throw error;
    }
    this.#forget(pod);
  }

  /** The pod is gone: its IP and its room are free again, and pending resizes may now fit. */
  #forget(pod: Pod): void {
    const uid = pod.metadata?.uid ?? "";
    const record = this.#records.get(uid);
    const shutdown = this.#shutdowns.get(uid);
    if (shutdown !== undefined) clearTimeout(shutdown.timer);
    this.#shutdowns.delete(uid);
    if (record === undefined) return;
    this.#records.delete(uid);
    this.#podIPs.release(record.podIP);
    this.#retryDeferred();
  }
}

/** A record's summed allocated requests. */
function requestsOf(record: PodRecord): Map<string, bigint> {
  return podRequests({ spec: { containers: record.containers.map((c) => ({ name: c.name, resources: c.allocated })) } }, { useStatusResources: false });
}
