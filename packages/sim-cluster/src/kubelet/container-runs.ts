import { nowRFC3339 } from "../controllers/util.js";
import type { Pod } from "../resources/pods.js";
import { containerExit } from "./container-exit.js";
import { newContainerID, type ContainerRecord, type PodRecord } from "./pod-status.js";

/** The kubelet's crash loop back-off: the first restart is at once, then 10 s doubling up to 5 min. */
const BACKOFF_INITIAL_MS = 10_000;
const BACKOFF_MAX_MS = 300_000;

export function restartBackoffMs(restartCount: number): number {
  return restartCount === 0 ? 0 : Math.min(BACKOFF_INITIAL_MS * 2 ** (restartCount - 1), BACKOFF_MAX_MS);
}

/**
 * The runs of a node's containers: each run ends as `containerExit` says, and the pod's
 * `restartPolicy` decides whether it starts again (Always: whatever the code; OnFailure: after a
 * non-zero code; Never: not), after the crash loop back-off. `changed(uid)` is called whenever a
 * container of that pod exits or starts again, so the pod's status is reported.
 */
export class ContainerRuns {
  readonly #changed: (uid: string) => void;
  /** Per pod uid, the timers of its containers (an exit or a restart due) and the pod they were armed from. */
  readonly #pods = new Map<string, { pod: Pod; record: PodRecord; timers: Map<string, NodeJS.Timeout> }>();

  constructor(changed: (uid: string) => void) {
    this.#changed = changed;
  }

  /** Arms the end of every running container of a pod the kubelet just took on. */
  start(pod: Pod, record: PodRecord): void {
    if (this.#pods.has(record.uid)) return;
    this.#pods.set(record.uid, { pod, record, timers: new Map() });
    for (const container of record.containers) if (container.terminated === undefined) this.#arm(record.uid, container);
  }

  /** Every running container started again (a node reboot): their runs are timed anew. */
  rearm(uid: string): void {
    const entry = this.#pods.get(uid);
    if (entry === undefined) return;
    for (const timer of entry.timers.values()) clearTimeout(timer);
    entry.timers.clear();
    for (const container of entry.record.containers)
      if (container.terminated === undefined && container.waiting === undefined) this.#arm(uid, container);
  }

  /** The pod is shutting down or gone: nothing of it exits or restarts any more. */
  forget(uid: string): void {
    const entry = this.#pods.get(uid);
    if (entry === undefined) return;
    for (const timer of entry.timers.values()) clearTimeout(timer);
    this.#pods.delete(uid);
  }

  stop(): void {
    for (const uid of [...this.#pods.keys()]) this.forget(uid);
  }

  #arm(uid: string, container: ContainerRecord): void {
    const entry = this.#pods.get(uid);
    const spec = entry?.pod.spec?.containers?.find((c) => c.name === container.name);
    if (entry === undefined || spec === undefined) return;
    const exit = containerExit(entry.pod, spec, container.restartCount);
    if (exit === undefined) return;
    entry.timers.set(
      container.name,
      setTimeout(() => this.#exited(uid, container, exit.exitCode), exit.afterMs),
    );
  }

  #exited(uid: string, container: ContainerRecord, exitCode: number): void {
    const entry = this.#pods.get(uid);
    if (entry === undefined || entry.record.terminating) return;
    entry.timers.delete(container.name);
    container.terminated = {
      exitCode,
      reason: exitCode === 0 ? "Completed" : "Error",
      startedAt: container.startedAt,
      finishedAt: nowRFC3339(),
      containerID: container.containerID,
    };
    const policy = entry.pod.spec?.restartPolicy ?? "Always";
    if (policy === "Always" || (policy === "OnFailure" && exitCode !== 0)) {
      const delay = restartBackoffMs(container.restartCount);
      if (delay === 0) this.#restart(uid, container, false);
      else {
        const meta = entry.pod.metadata;
        container.waiting = {
          reason: "CrashLoopBackOff",
          message: `back-off ${delay / 1000}s restarting failed container=${container.name} pod=${meta?.name ?? ""}_${meta?.namespace ?? ""}(${uid})`,
        };
        entry.timers.set(
          container.name,
          setTimeout(() => this.#restart(uid, container, true), delay),
        );
      }
    }
    this.#changed(uid);
  }

  /** The next run: the one that ended becomes `lastState`, and `restartCount` counts it. */
  #restart(uid: string, container: ContainerRecord, report: boolean): void {
    const entry = this.#pods.get(uid);
    if (entry === undefined || entry.record.terminating || container.terminated === undefined) return;
    entry.timers.delete(container.name);
    container.lastState = { terminated: container.terminated };
    delete container.terminated;
    container.waiting = undefined;
    container.containerID = newContainerID();
    container.startedAt = nowRFC3339();
    container.restartCount++;
    this.#arm(uid, container);
    if (report) this.#changed(uid);
  }
}
