import { randomUUID } from "node:crypto";
import type { Container } from "../resources/pod-spec.js";
import type { ContainerStatus, Pod, PodCondition } from "../resources/pods.js";
import type { ContainerResources, PendingReason } from "./allocation.js";
import { podPhase } from "./container-exit.js";

/** One simulated container: what was allocated to it, what it runs with, and its run history. */
export interface ContainerRecord {
  name: string;
  image: string;
  containerID: string;
  startedAt: string;
  restartCount: number;
  lastState?: Record<string, unknown>;
  /** Terminated (its run ended, or the pod is shutting down): its final state. */
  terminated?: Record<string, unknown>;
  /**
   * Waiting: never started because its image did not pull (ErrImagePull, then ImagePullBackOff;
   * `terminated` unset), or ended and waiting to restart (the crash loop back-off; `terminated`
   * holds the run that ended).
   */
  waiting?: { reason: string; message: string } | undefined;
  allocated: ContainerResources;
  actuated: ContainerResources;
}

/** What the kubelet knows of a pod it runs (upstream keeps the allocation in a checkpoint). */
export interface PodRecord {
  uid: string;
  podIP: string;
  /** On a dual-stack node, the pod's address of the other family. */
  secondaryPodIP?: string;
  startTime: string;
  containers: ContainerRecord[];
  /** A resize the kubelet has not admitted yet. */
  pending?: { reason: PendingReason; message: string } | undefined;
  /** Allocated but not yet actuated: PodResizeInProgress. */
  inProgress: boolean;
  /** Shutting down after a graceful delete, or ended by the kubelet (`ended`). */
  terminating: boolean;
  /** Ended by the kubelet itself (its active deadline passed): phase Failed with this reason. */
  ended?: { reason: string; message: string };
  /** The generation the kubelet last acted on. */
  generation: number;
}

export function newContainerID(): string {
  return `sim://${randomUUID()}`;
}

/** A fresh container record running with what its spec asks for. */
export function startContainer(container: Container, resources: ContainerResources, now: string): ContainerRecord {
  return {
    name: container.name ?? "",
    image: container.image ?? "",
    containerID: newContainerID(),
    startedAt: now,
    restartCount: 0,
    allocated: resources,
    actuated: resources,
  };
}

/** Restarts a container (resize with RestartContainer, node reboot): restartCount + 1 and the old run as lastState. */
export function restartContainer(record: ContainerRecord, now: string, reason: string, exitCode: number): void {
  record.lastState = { terminated: { exitCode, reason, startedAt: record.startedAt, finishedAt: now, containerID: record.containerID } };
  record.containerID = newContainerID();
  record.startedAt = now;
  record.restartCount++;
}

function withoutEmpty(resources: ContainerResources): ContainerResources {
  const out: ContainerResources = {};
  if (resources.requests !== undefined) out.requests = { ...resources.requests };
  if (resources.limits !== undefined) out.limits = { ...resources.limits };
  return out;
}

function containerStatus(record: ContainerRecord): ContainerStatus {
  const resources = {
    // allocatedResources holds requests only; resources is what the container runs with.
    allocatedResources: { ...(record.allocated.requests ?? {}) },
    resources: withoutEmpty(record.actuated),
  };
  if (record.waiting !== undefined && record.terminated === undefined) {
    // Never started: no container ID, no image ID (nothing was pulled).
    return {
      name: record.name,
      ready: false,
      started: false,
      restartCount: record.restartCount,
      image: record.image,
      imageID: "",
      state: { waiting: { ...record.waiting } },
      lastState: record.lastState ?? {},
      ...resources,
    };
  }
  const running = record.terminated === undefined;
  return {
    name: record.name,
    ready: running,
    started: running,
    restartCount: record.restartCount,
    image: record.image,
    imageID: `sim://${record.image}`,
    containerID: record.containerID,
    state:
      record.waiting !== undefined
        ? { waiting: record.waiting }
        : running
          ? { running: { startedAt: record.startedAt } }
          : { terminated: record.terminated },
    ...(record.waiting !== undefined
      ? { lastState: { terminated: record.terminated } }
      : record.lastState !== undefined
        ? { lastState: record.lastState }
        : { lastState: {} }),
    ...resources,
  };
}

/** A condition keeping its lastTransitionTime while its status stays, as the status manager does. */
function condition(
  pod: Pod,
  type: string,
  status: "True" | "False",
  now: string,
  generation: number,
  reason?: string,
  message?: string,
): PodCondition {
  const before = pod.status?.conditions?.find((c) => c.type === type);
  const since = before !== undefined && before.status === status && before.lastTransitionTime ? before.lastTransitionTime : now;
  return {
    type,
    status,
    observedGeneration: generation,
    // No lastProbeTime: the kubelet never probes conditions, and the API keeps no null time, so a
    // null here would make every report differ from the status it reads back and be sent again.
    lastTransitionTime: since,
    ...(reason !== undefined ? { reason } : {}),
    ...(message !== undefined ? { message } : {}),
  };
}

/**
 * GeneratePodReadyCondition's readiness gates: each `spec.readinessGates` condition type must be
 * True in the pod's status (set by whoever owns it) for the pod to be Ready; the messages name
 * those that are not.
 */
function unmetReadinessGates(pod: Pod): string[] {
  const gates = (pod.spec?.["readinessGates"] as Array<{ conditionType?: string }> | undefined) ?? [];
  const unmet: string[] = [];
  for (const gate of gates) {
    const type = gate.conditionType ?? "";
    const found = pod.status?.conditions?.find((c) => c.type === type);
    if (found === undefined) unmet.push(`corresponding condition of pod readiness gate "${type}" does not exist.`);
    else if (found.status !== "True") unmet.push(`the status of pod readiness gate "${type}" is not "True", but ${found.status}`);
  }
  return unmet;
}

/** The conditions the kubelet sets itself (PodConditionByKubelet, and PodScheduled which it carries over). */
const KUBELET_CONDITIONS = new Set([
  "PodReadyToStartContainers",
  "Initialized",
  "Ready",
  "ContainersReady",
  "PodScheduled",
  "PodResizePending",
  "PodResizeInProgress",
]);

/** The pod status the kubelet reports for `record` (sent as a merge patch of `status`, so lists are whole). */
export function podStatus(
  pod: Pod,
  record: PodRecord,
  node: { address: string; secondaryAddress?: string },
  now: string,
): NonNullable<Pod["status"]> {
  const generation = pod.metadata?.generation ?? 0;
  const stopped = record.containers.some((c) => c.terminated !== undefined);
  const waiting = record.containers.filter((c) => c.waiting !== undefined && c.terminated === undefined);
  const ready = !stopped && waiting.length === 0;
  const readyStatus = ready ? "True" : "False";
  // Ended by the kubelet (active deadline): Failed. A container whose image never pulled keeps
  // the pod Pending (getPhase); otherwise the containers' runs decide (container-exit.ts).
  const phase = record.ended !== undefined ? "Failed" : waiting.length > 0 ? "Pending" : podPhase(record);
  const ended = phase === "Succeeded" || phase === "Failed";
  // GeneratePodReadyCondition's reasons: an ended pod is PodCompleted; otherwise the containers not running are named.
  const unready = record.containers.filter((c) => c.terminated !== undefined || c.waiting !== undefined).map((c) => c.name);
  const notReady = ready ? undefined : ended ? "PodCompleted" : "ContainersNotReady";
  const notReadyMessage = ready || ended ? undefined : `containers with unready status: [${unready.join(" ")}]`;
  const gates = ready ? unmetReadinessGates(pod) : [];
  const podReady = ready && gates.length === 0;
  const conditions: PodCondition[] = [
    condition(pod, "PodReadyToStartContainers", ended ? "False" : "True", now, generation),
    condition(pod, "Initialized", "True", now, generation),
    podReady || !ready
      ? condition(pod, "Ready", readyStatus, now, generation, notReady, notReadyMessage)
      : condition(pod, "Ready", "False", now, generation, "ReadinessGatesNotReady", gates.join(", ")),
    condition(pod, "ContainersReady", readyStatus, now, generation, notReady, notReadyMessage),
  ];
  const scheduled = pod.status?.conditions?.find((c) => c.type === "PodScheduled");
  conditions.push(scheduled ?? { type: "PodScheduled", status: "True", lastTransitionTime: now });
  if (record.pending !== undefined)
    conditions.push(condition(pod, "PodResizePending", "True", now, generation, record.pending.reason, record.pending.message));
  if (record.inProgress) conditions.push(condition(pod, "PodResizeInProgress", "True", now, generation));
  // Conditions others own (DisruptionTarget, readiness gates' types) are kept as the API has them, as generateAPIPodStatus does.
  for (const other of pod.status?.conditions ?? []) if (!KUBELET_CONDITIONS.has(other.type)) conditions.push(other);
  return {
    observedGeneration: generation,
    // Containers stopped by a deletion exit 0; the others end as their command says (container-exit.ts).
    phase,
    ...(record.ended !== undefined ? { reason: record.ended.reason, message: record.ended.message } : {}),
    hostIP: node.address,
    hostIPs: [{ ip: node.address }, ...(node.secondaryAddress !== undefined ? [{ ip: node.secondaryAddress }] : [])],
    podIP: record.podIP,
    podIPs: [{ ip: record.podIP }, ...(record.secondaryPodIP !== undefined ? [{ ip: record.secondaryPodIP }] : [])],
    startTime: record.startTime,
    conditions,
    containerStatuses: record.containers.map(containerStatus),
  };
}
