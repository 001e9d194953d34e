import type { EventHandlers, KubeClient } from "@kubekit/generic-controlplane/controllers";
import { isApiError, isNotFound, objectKey } from "@kubekit/generic-controlplane/controllers";
import type { ClusterIPAllocator } from "../allocators/cluster-ip.js";
import { sameJson } from "../controllers/pod-template-hash.js";
import { nowRFC3339 } from "../controllers/util.js";
import { shutdownDelayMsOf } from "../traffic/echo-ports.js";
import type { Pod } from "../resources/pods.js";
import { podRequests } from "../scheduler/fit.js";
import { PODS } from "../refs.js";
import { changedResources, checkResize, resourcesOf, sameResources } from "./allocation.js";
import { imagePullWaiting, isUnpullableImage, type ImagePullRule } from "./images.js";
import { ContainerRuns } from "./container-runs.js";
import type { NodePodSource } from "./node-pods.js";
import { podStatus, restartContainer, startContainer, type ContainerRecord, type PodRecord } from "./pod-status.js";

const MERGE_PATCH = "application/merge-patch+json";
const DEFAULT_POD_SHUTDOWN_MS = 100;
/** How long a failed pull shows as ErrImagePull before the kubelet's back-off (ImagePullBackOff) is reported. */
const IMAGE_PULL_BACKOFF_MS = 1000;

/** Upstream's resize order for pending resizes: higher priority, then higher QoS class. */
const QOS_RANK: Record<string, number> = { Guaranteed: 0, Burstable: 1, BestEffort: 2 };

/** What the pod workers need of their node. */
export interface PodWorkersNode {
  address: string;
  secondaryAddress?: string;
  allocatable: ReadonlyMap<string, bigint>;
  podIPs: ClusterIPAllocator;
  /** A dual-stack node's range of the other family. */
  secondaryPodIPs?: ClusterIPAllocator;
  /** Pods bound to the node, from the kubelet's informer. */
  pods: Pick<NodePodSource, "cache">;
  /** Keeps the kubelet aware of work under way (awaited on stop, failures logged). */
  track(work: Promise<unknown>): void;
  stopped(): boolean;
}

/**
 * The kubelet's pod side: runs every pod bound to the node (a pod IP from the node's pod CIDR,
 * the pod conditions and a running container per spec container), admits in-place resizes as
 * kubelet 1.35 does (allocation, PodResizePending Deferred/Infeasible, PodResizeInProgress,
 * resize policies), and shuts deleted pods down gracefully before removing them. Work on one
 * pod runs in order; allocation decisions are synchronous, so two pods never take the same room.
 */
export class PodWorkers {
  readonly #client: KubeClient;
  readonly #node: PodWorkersNode;
  readonly #podShutdownMs: number;
  readonly #imagePullFails: ImagePullRule;
  /** The pods this kubelet runs, by uid (upstream's allocation checkpoint and runtime state). */
  readonly #records = new Map<string, PodRecord>();
  /** The informer key (namespace/name) of each pod with a record, by uid: its latest copy is one cache read away. */
  readonly #keys = new Map<string, string>();
  /** Each pod's work runs after the previous, so events arriving meanwhile never overlap. */
  readonly #queues = new Map<string, Promise<void>>();
  /** Pods shutting down after a graceful delete, by uid: the timer that ends it and when. */
  readonly #shutdowns = new Map<string, { timer: NodeJS.Timeout; at: number }>();
  /** Pods with an active deadline still ahead, by uid: the timer that checks it again. */
  readonly #deadlines = new Map<string, NodeJS.Timeout>();
  /** Pods with a failed pull reported as ErrImagePull, by uid: the timer that reports the back-off. */
  readonly #pullBackOffs = new Map<string, NodeJS.Timeout>();
  /** Pods whose last piece of work failed (a status write refused or lost), by uid: the next resync runs them again. */
  readonly #failed = new Set<string>();
  /** Containers' exits and restarts; each is reported as the pod's status. */
  readonly #runs = new ContainerRuns((uid) => void this.#run(uid, () => this.#syncLatest(uid)));

  constructor(
    client: KubeClient,
    node: PodWorkersNode,
    options: { podShutdownMs?: number | undefined; imagePullFails?: ImagePullRule | undefined },
  ) {
    this.#client = client;
    this.#node = node;
    this.#podShutdownMs = options.podShutdownMs ?? DEFAULT_POD_SHUTDOWN_MS;
    this.#imagePullFails = options.imagePullFails ?? isUnpullableImage;
  }

  /** The informer handlers that drive the workers. */
  get handlers(): EventHandlers {
    return {
      add: (pod) => this.#enqueue(pod),
      update: (_old, pod) => this.#enqueue(pod),
      delete: (pod) => this.#forget(pod),
    };
  }

  /** Stops pending shutdown timers (the node went down: its pods stay as they are). */
  stop(): void {
    for (const { timer } of this.#shutdowns.values()) clearTimeout(timer);
    this.#shutdowns.clear();
    for (const timer of [...this.#deadlines.values(), ...this.#pullBackOffs.values()]) clearTimeout(timer);
    this.#deadlines.clear();
    this.#pullBackOffs.clear();
    this.#runs.stop();
  }

  /** A node reboot: every running container starts again (restartCount + 1), and the pods report it. */
  async restartAll(): Promise<void> {
    const now = nowRFC3339();
    for (const record of this.#records.values()) {
      if (record.terminating) continue;
      // Containers of a rebooted node end without an exit status of their own; those that ended stay so.
      for (const container of record.containers) if (container.terminated === undefined) restartContainer(container, now, "Unknown", 255);
      this.#runs.rearm(record.uid);
    }
    await Promise.all([...this.#records.keys()].map((uid) => this.#run(uid, () => this.#syncLatest(uid))));
  }

  /** Runs `work` for the pod `uid` after the work queued for it before. */
  #run(uid: string, work: () => Promise<void>): Promise<void> {
    const next = (this.#queues.get(uid) ?? Promise.resolve()).then(() => (this.#node.stopped() ? undefined : work()));
    const settled = next.then(
      () => void this.#failed.delete(uid),
      () => void this.#failed.add(uid),
    );
    this.#queues.set(uid, settled);
    void settled.then(() => {
      if (this.#queues.get(uid) === settled) this.#queues.delete(uid);
    });
    this.#node.track(next);
    return settled;
  }

  /**
   * The kubelet's periodic pass over its pods (the status manager's syncBatch and the pod workers'
   * resync): a pod whose last work failed is synced again, and so is a bound pod the kubelet never
   * started (an event it did not get). Without it, one failed status write leaves a pod Pending
   * until something else changes it.
   */
  resync(): void {
    if (this.#node.stopped()) return;
    const present = new Set<string>();
    for (const pod of this.#node.pods.cache.list() as Pod[]) {
      const uid = pod.metadata?.uid ?? "";
      present.add(uid);
      if (this.#queues.has(uid)) continue;
      const phase = pod.status?.phase;
      const neverStarted = !this.#records.has(uid) && phase !== "Succeeded" && phase !== "Failed" && !pod.metadata?.deletionTimestamp;
      if (neverStarted || this.#failed.has(uid)) this.#enqueue(pod);
    }
    for (const uid of this.#failed) if (!present.has(uid)) this.#failed.delete(uid);
  }

  #enqueue(pod: Pod): void {
    const uid = pod.metadata?.uid ?? "";
    const key = objectKey(pod);
    void this.#run(uid, () => this.#sync(key, uid));
  }

  /** Syncs the pod `uid` from the informer's latest copy. */
  async #syncLatest(uid: string): Promise<void> {
    const key = this.#keys.get(uid);
    if (key !== undefined) await this.#sync(key, uid);
  }

  async #sync(key: string, uid: string): Promise<void> {
    const pod = this.#node.pods.cache.get(key) as Pod | undefined;
    if (pod === undefined || pod.metadata?.uid !== uid) return;
    if (pod.metadata?.deletionTimestamp) return this.#beginShutdown(pod);
    let record = this.#records.get(uid);
    if (record === undefined) {
      if (pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed") return;
      record = this.#admit(pod);
      this.#records.set(uid, record);
      this.#keys.set(uid, key);
      this.#runs.start(pod, record);
    }
    if (record.terminating) return;
    if (this.#pastActiveDeadline(pod, record)) return this.#endPastDeadline(pod, record);
    this.#followImages(pod, record);
    const freed = this.#decideResize(pod, record);
    const current = await this.#report(pod, record);
    if (record.inProgress) {
      this.#actuate(pod, record);
      await this.#report(current, record);
    }
    if (freed) this.retryDeferred();
  }

  /**
   * The kubelet's activeDeadlineHandler: whether the pod has been active on the node (since its
   * `status.startTime`) for `spec.activeDeadlineSeconds`; if not yet, the pod is synced again then
   * (the deadline may only be shortened by an update, which syncs the pod anyway).
   */
  #pastActiveDeadline(pod: Pod, record: PodRecord): boolean {
    const uid = record.uid;
    clearTimeout(this.#deadlines.get(uid));
    this.#deadlines.delete(uid);
    const seconds = pod.spec?.activeDeadlineSeconds;
    if (seconds === undefined || seconds === null) return false;
    const remainingMs = Date.parse(record.startTime) + Number(seconds) * 1000 - Date.now();
    if (remainingMs <= 0) return true;
    // setTimeout holds at most 2^31-1 ms; a later deadline is checked again when that runs out.
    const timer = setTimeout(() => void this.#run(uid, () => this.#syncLatest(uid)), Math.min(remainingMs, 2 ** 31 - 1));
    timer.unref();
    this.#deadlines.set(uid, timer);
    return false;
  }

  /** Kills the pod's containers and reports it Failed with DeadlineExceeded, as the kubelet does; it stays until deleted. */
  async #endPastDeadline(pod: Pod, record: PodRecord): Promise<void> {
    const now = nowRFC3339();
    record.terminating = true;
    record.ended = { reason: "DeadlineExceeded", message: "Pod was active on the node longer than the specified deadline" };
    record.pending = undefined;
    record.inProgress = false;
    for (const container of record.containers) {
      container.waiting = undefined;
      // Killed, as the runtime reports a container stopped by SIGKILL.
      container.terminated = {
        exitCode: 137,
        reason: "Error",
        startedAt: container.startedAt,
        finishedAt: now,
        containerID: container.containerID,
      };
    }
    await this.#report(pod, record);
    // Its room on the node is free again.
    this.retryDeferred();
  }

  /** A container about to start: it waits in ErrImagePull instead when its image does not pull. */
  #pulled(pod: Pod, container: ContainerRecord): ContainerRecord {
    if (!this.#imagePullFails(container.image)) return { ...container, waiting: undefined };
    this.#backOffLater(pod.metadata?.uid ?? "");
    return { ...container, waiting: imagePullWaiting(container.image, false) };
  }

  /** After the first failed pull is reported, the kubelet's image back-off shows as ImagePullBackOff. */
  #backOffLater(uid: string): void {
    if (this.#pullBackOffs.has(uid)) return;
    const timer = setTimeout(() => {
      this.#pullBackOffs.delete(uid);
      void this.#run(uid, async () => {
        const record = this.#records.get(uid);
        if (record === undefined || record.terminating) return;
        for (const container of record.containers)
          if (container.waiting?.reason === "ErrImagePull") container.waiting = imagePullWaiting(container.image, true);
        await this.#syncLatest(uid);
      });
    }, IMAGE_PULL_BACKOFF_MS);
    timer.unref();
    this.#pullBackOffs.set(uid, timer);
  }

  /**
   * A container whose image the pod's spec changed (the one mutable container field) is started
   * again with the new image, or waits on it when it does not pull; one waiting on an image that
   * now pulls starts.
   */
  #followImages(pod: Pod, record: PodRecord): void {
    const now = nowRFC3339();
    for (const [i, container] of record.containers.entries()) {
      const image = (pod.spec?.containers ?? []).find((c) => c.name === container.name)?.image;
      if (image === undefined || image === container.image) continue;
      if (container.waiting === undefined) restartContainer(container, now, "Completed", 0);
      else container.startedAt = now;
      record.containers[i] = this.#pulled(pod, { ...container, image });
    }
  }

  /** Takes a pod on: its containers run with what they ask for, or (after a kubelet restart) with what it reported. */
  #admit(pod: Pod): PodRecord {
    const now = nowRFC3339();
    const statuses = pod.status?.containerStatuses ?? [];
    const reported = (pod.status?.podIPs ?? []).map((p) => p.ip);
    // A host-network pod shares its node's network namespace: its IPs are the node's.
    const hostNetwork = pod.spec?.["hostNetwork"] === true;
    const podIP = hostNetwork ? this.#node.address : takePodIP(this.#node.podIPs, reported);
    const secondary = hostNetwork ? undefined : this.#node.secondaryPodIPs;
    const containers = (pod.spec?.containers ?? []).map((container): ContainerRecord => {
      const fresh = startContainer(container, resourcesOf(container), now);
      const status = statuses.find((s) => s.name === container.name);
      if (status === undefined || status.state?.["waiting"] !== undefined) return this.#pulled(pod, fresh);
      // Recovered from the status this kubelet posted before it restarted (upstream reads its checkpoint).
      const allocated =
        status.allocatedResources === undefined
          ? fresh.allocated
          : { requests: status.allocatedResources, ...(status.resources?.limits ? { limits: status.resources.limits } : {}) };
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
    return {
      uid: pod.metadata?.uid ?? "",
      podIP,
      ...(secondary !== undefined
        ? { secondaryPodIP: takePodIP(secondary, reported) }
        : hostNetwork && this.#node.secondaryAddress !== undefined
          ? { secondaryPodIP: this.#node.secondaryAddress }
          : {}),
      startTime: pod.status?.startTime ?? now,
      containers,
      inProgress: false,
      terminating: false,
      generation: pod.metadata?.generation ?? 0,
    };
  }

  /** The other pods this node runs, as the kubelet counts them: spec = allocated, status = actuated. */
  #allocatedPods(except: string): Pod[] {
    return [...this.#records.values()]
      .filter((r) => r.uid !== except && r.ended === undefined)
      .map((r) => ({
        spec: { containers: r.containers.map((c) => ({ name: c.name, resources: c.allocated })) },
        status: {
          containerStatuses: r.containers.map((c) => ({
            name: c.name,
            ready: true,
            restartCount: 0,
            image: "",
            imageID: "",
            allocatedResources: c.allocated.requests ?? {},
            resources: c.actuated,
          })),
        },
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
    const verdict = checkResize(pod, this.#node.allocatable, this.#allocatedPods(record.uid));
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
      const policies = ((pod.spec?.containers ?? []).find((c) => c.name === container.name)?.["resizePolicy"] ?? []) as Array<{
        resourceName?: string;
        restartPolicy?: string;
      }>;
      const restart = changed.some((name) => policies.some((p) => p.resourceName === name && p.restartPolicy === "RestartContainer"));
      if (restart) restartContainer(container, now, "Completed", 0);
      container.actuated = container.allocated;
    }
    record.inProgress = false;
  }

  /** Posts the pod's status when it differs from what the API holds; returns the pod as it now stands. */
  async #report(pod: Pod, record: PodRecord): Promise<Pod> {
    const status = podStatus(pod, record, this.#node, nowRFC3339());
    const current = Object.fromEntries(Object.keys(status).map((k) => [k, (pod.status as Record<string, unknown> | undefined)?.[k]]));
    if (sameJson(current, status)) return pod;
    try {
      return await this.#client.patch<Pod>(PODS, pod.metadata?.namespace, pod.metadata?.name ?? "", { status }, MERGE_PATCH, "status");
    } catch (error) {
      if (!isNotFound(error)) throw error;
      return pod;
    }
  }

  /** Retries Deferred resizes (room freed, or the periodic retry): higher priority first, then higher QoS class. */
  retryDeferred(): void {
    if (this.#node.stopped()) return;
    const waiting = this.#node.pods.cache
      .list()
      .map((p) => p as Pod)
      .filter((p) => this.#records.get(p.metadata?.uid ?? "")?.pending?.reason === "Deferred");
    waiting.sort(
      (a, b) =>
        (b.spec?.priority ?? 0) - (a.spec?.priority ?? 0) ||
        (QOS_RANK[a.status?.qosClass ?? ""] ?? 3) - (QOS_RANK[b.status?.qosClass ?? ""] ?? 3),
    );
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
    const delay = Math.max(1, Math.min(Math.max(this.#podShutdownMs, shutdownDelayMsOf(pod)), graceMs));
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
    this.#runs.forget(record.uid);
    const now = nowRFC3339();
    record.terminating = true;
    record.pending = undefined;
    record.inProgress = false;
    for (const container of record.containers) {
      // A container that had ended (or waits to restart) keeps its exit; a running one, or one whose image never pulled, ends now.
      container.terminated ??= {
        exitCode: 0,
        reason: "Completed",
        startedAt: container.startedAt,
        finishedAt: now,
        containerID: container.containerID,
      };
      container.waiting = undefined;
    }
    const latest = (this.#node.pods.cache.get(objectKey(pod)) as Pod | undefined) ?? pod;
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
    this.#failed.delete(uid);
    const record = this.#records.get(uid);
    const shutdown = this.#shutdowns.get(uid);
    if (shutdown !== undefined) clearTimeout(shutdown.timer);
    this.#shutdowns.delete(uid);
    clearTimeout(this.#deadlines.get(uid));
    this.#deadlines.delete(uid);
    clearTimeout(this.#pullBackOffs.get(uid));
    this.#pullBackOffs.delete(uid);
    this.#runs.forget(uid);
    if (record === undefined) return;
    this.#records.delete(uid);
    this.#keys.delete(uid);
    // A host-network pod's IPs are the node's, never taken from its ranges.
    if (record.podIP !== this.#node.address) this.#node.podIPs.release(record.podIP);
    if (record.secondaryPodIP !== undefined && record.secondaryPodIP !== this.#node.secondaryAddress)
      this.#node.secondaryPodIPs?.release(record.secondaryPodIP);
    this.retryDeferred();
  }
}

/** The address of `range`'s family the pod reported before (a kubelet restart keeps it), else a free one. */
function takePodIP(range: ClusterIPAllocator, reported: readonly string[]): string {
  const kept = reported.find((ip) => range.contains(ip));
  if (kept === undefined) return range.allocateNext();
  if (!range.isAllocated(kept)) range.allocate(kept);
  return kept;
}

/** A record's summed allocated requests. */
function requestsOf(record: PodRecord): Map<string, bigint> {
  return podRequests(
    { spec: { containers: record.containers.map((c) => ({ name: c.name, resources: c.allocated })) } },
    { useStatusResources: false },
  );
}
