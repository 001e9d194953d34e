import type { KubeObject } from "@kubekit/generic-controlplane";
import {
  controllerFor,
  isNotFound,
  splitKey,
  type Controller,
  type Informer,
  type KubeClient,
  type ReconcileContext,
  type Requeue,
} from "@kubekit/generic-controlplane/controllers";
import { isJobFinished, jobCondition, type Job, type JobCondition } from "../resources/jobs.js";
import type { Pod } from "../resources/pods.js";
import { JOBS, PODS } from "../refs.js";
import { selectorMatches } from "../selector.js";
import { claimObjects } from "./claim.js";
import { Expectations } from "./expectations.js";
import { completionIndexOf, formatIndexes, indexSet } from "./job-indexes.js";
import {
  activePodsForRemoval,
  hasTrackingFinalizer,
  INDEX_FAILURE_COUNT,
  isPodFailed,
  jobPod,
  onlyReplaceFailedPods,
  removeTrackingFinalizer,
} from "./job-pods.js";
import { matchPodFailurePolicy, matchSuccessPolicy } from "./job-policies.js";
import {
  backoffRemainingMs,
  ensureJobCondition,
  newJobCondition,
  nextBackoffRecord,
  POD_FAILURE_BACKOFF_MS,
  type BackoffRecord,
} from "./job-status.js";
import { controllerRefOf, isPodActive, isPodReady, keyOf, nowRFC3339, toleratingStaleCache } from "./util.js";

export interface JobControllerOptions {
  workers?: number;
  /** The first pod failure back-off (upstream's 10 s, doubling to 6 min). */
  podFailureBackoffMs?: number;
}

const JOB_CONTROLLER_NAME = "kubernetes.io/job-controller";
/** How many pods one sync creates or deletes at most (MaxPodCreateDeletePerSync). */
const MAX_POD_CHANGES_PER_SYNC = 500;
const ORPHAN_PREFIX = "pod:";

/**
 * The Job controller (upstream `pkg/controller/job`, as in 1.32): runs a Job's pods to
 * `completions` with up to `parallelism` at a time (one per index for Indexed Jobs, with
 * `JOB_COMPLETION_INDEX`), counts finished pods through the `batch.kubernetes.io/job-tracking`
 * finalizer and `status.uncountedTerminatedPods`, backs off pod creation after failures,
 * and ends the Job by `backoffLimit`, `backoffLimitPerIndex`/`maxFailedIndexes`,
 * `podFailurePolicy`, `successPolicy`, `activeDeadlineSeconds` or its completions: first the
 * interim `FailureTarget`/`SuccessCriteriaMet` condition, then, once no pod is left
 * terminating, `Failed`/`Complete`. `suspend` deletes the active pods (`Suspended`, and
 * `JobResumed` on resume, which restarts the deadline).
 */
export function jobController(options: JobControllerOptions = {}): Controller {
  const ownerKey = (pod: KubeObject): string | undefined => {
    const ref = controllerRefOf(pod);
    return ref?.kind === "Job" && ref.apiVersion === "batch/v1" ? `${pod.metadata?.namespace ?? ""}/${ref.name}` : undefined;
  };
  return controllerFor<SyncState>(JOBS)
    .named("job")
    .watches(PODS, {
      handlers: ({ queue, primary: jobs, state }) => {
        const { expectations } = state;
        const podChanged = (pod: Pod) => {
          const key = ownerKey(pod);
          const job = key === undefined ? undefined : (jobs.cache.get(key) as Job | undefined);
          if (key !== undefined && job?.metadata?.uid === controllerRefOf(pod)?.uid) queue.add(key);
          else if (key === undefined && isPodActive(pod)) {
            for (const candidate of jobs.cache.list() as Job[]) {
              if (
                candidate.metadata?.namespace === pod.metadata?.namespace &&
                selectorMatches(candidate.spec?.selector, pod.metadata?.labels)
              )
                queue.add(keyOf(candidate));
            }
          }
          // A pod whose Job is gone or finished keeps no tracking finalizer (syncOrphanPod).
          if (hasTrackingFinalizer(pod) && (job === undefined || job.metadata?.uid !== controllerRefOf(pod)?.uid || isJobFinished(job)))
            queue.add(ORPHAN_PREFIX + keyOf(pod));
        };
        return {
          add: (pod) => {
            const key = ownerKey(pod);
            if (key !== undefined) expectations.creationObserved(key);
            podChanged(pod);
          },
          update: (old, pod) => {
            const key = ownerKey(pod);
            if (key !== undefined && pod.metadata?.deletionTimestamp !== undefined && old.metadata?.deletionTimestamp === undefined)
              expectations.deletionObserved(key, pod.metadata?.name ?? "");
            if (key !== undefined && !hasTrackingFinalizer(pod)) state.removedFinalizers.get(key)?.delete(pod.metadata?.uid ?? "");
            podChanged(pod);
            const before = ownerKey(old);
            if (before !== undefined && before !== key) queue.add(before);
          },
          delete: (pod) => {
            const key = ownerKey(pod);
            if (key !== undefined) {
              expectations.deletionObserved(key, pod.metadata?.name ?? "");
              state.removedFinalizers.get(key)?.delete(pod.metadata?.uid ?? "");
              queue.add(key);
            }
          },
        };
      },
    })
    .withState(({ client, informer }): SyncState => ({
      client,
      pods: informer(PODS),
      expectations: new Expectations(),
      backoffs: new Map(),
      removedFinalizers: new Map(),
      backoffMs: options.podFailureBackoffMs ?? POD_FAILURE_BACKOFF_MS,
    }))
    .withOptions({ workers: options.workers ?? 4 })
    .complete(
      toleratingStaleCache(async (key: string, { primary: jobs, state }: ReconcileContext<SyncState>): Promise<void | Requeue> => {
        const { expectations } = state;
        if (key.startsWith(ORPHAN_PREFIX)) return syncOrphanPod(state, jobs, key.slice(ORPHAN_PREFIX.length));
        const job = jobs.cache.get(key) as Job | undefined;
        if (job === undefined) {
          expectations.forget(key);
          state.backoffs.delete(key);
          state.removedFinalizers.delete(key);
          return;
        }
        return syncJob(state, key, structuredClone(job));
      }),
    );
}

interface SyncState {
  client: KubeClient;
  pods: Informer;
  expectations: Expectations;
  backoffs: Map<string, BackoffRecord>;
  /** Per Job, pods whose finalizer this controller removed and whose update it has not seen yet (finalizerExpectations). */
  removedFinalizers: Map<string, Set<string>>;
  backoffMs: number;
}

async function syncOrphanPod(state: SyncState, jobs: Informer, podKey: string): Promise<void> {
  const pod = state.pods.cache.get(podKey) as Pod | undefined;
  if (pod === undefined || !hasTrackingFinalizer(pod)) return;
  const ref = controllerRefOf(pod);
  if (ref !== undefined && ref.kind === "Job" && ref.apiVersion === "batch/v1") {
    const job = jobs.cache.get(`${pod.metadata?.namespace ?? ""}/${ref.name}`) as Job | undefined;
    if (job !== undefined && job.metadata?.uid === ref.uid && !isJobFinished(job)) return;
  } else if (ref !== undefined) return;
  await removeTrackingFinalizer(state.client, pod);
}

function isIndexed(job: Job): boolean {
  return job.spec?.completionMode === "Indexed";
}

/** The JobSuccessPolicy form of a plain completion. */
const COMPLETIONS_REACHED = { reason: "CompletionsReached", message: "Reached expected number of succeeded pods" };

async function syncJob(state: SyncState, key: string, job: Job): Promise<void | Requeue> {
  const { client, expectations } = state;
  if (job.spec?.managedBy !== undefined && job.spec.managedBy !== JOB_CONTROLLER_NAME) return;
  if (isJobFinished(job)) {
    state.backoffs.delete(key);
    return;
  }
  const spec = job.spec ?? {};
  const status = (job.status ??= {});
  const uncounted = {
    succeeded: [...(status.uncountedTerminatedPods?.succeeded ?? [])],
    failed: [...(status.uncountedTerminatedPods?.failed ?? [])],
  };
  status.uncountedTerminatedPods = uncounted;
  const satisfied = expectations.satisfied(key);
  const { namespace } = splitKey(key);
  const inNamespace = (state.pods.cache.list() as Pod[]).filter((p) => p.metadata?.namespace === namespace);
  const pods = await claimObjects(client, PODS, job, "Job", inNamespace, {
    apiVersion: "batch/v1",
    finalizer: "batch.kubernetes.io/job-tracking",
  });
  const removed = state.removedFinalizers.get(key) ?? new Set<string>();
  state.removedFinalizers.set(key, removed);
  const tracked = (p: Pod) => hasTrackingFinalizer(p) && !removed.has(p.metadata?.uid ?? "");
  const activePods = pods.filter(isPodActive);
  let active = activePods.length;
  let ready = activePods.filter(isPodReady).length;
  let terminating = pods.filter(
    (p) => p.metadata?.deletionTimestamp !== undefined && p.status?.phase !== "Succeeded" && p.status?.phase !== "Failed",
  ).length;
  const uncountedSucceeded = new Set(uncounted.succeeded);
  const uncountedFailed = new Set(uncounted.failed);
  const newSucceeded = pods.filter((p) => tracked(p) && p.status?.phase === "Succeeded" && !uncountedSucceeded.has(p.metadata?.uid ?? ""));
  const newFailed = pods.filter((p) => tracked(p) && isPodFailed(p, job) && !uncountedFailed.has(p.metadata?.uid ?? ""));
  const countedNewFailures =
    spec.podFailurePolicy === undefined ? newFailed.length : newFailed.filter((p) => matchPodFailurePolicy(spec, p).countFailed).length;
  let succeeded = (status.succeeded ?? 0) + newSucceeded.length + uncounted.succeeded.length;
  const failed = (status.failed ?? 0) + countedNewFailures + uncounted.failed.length;
  const now = nowRFC3339();
  const nowMs = Date.now();
  const suspended = spec.suspend === true;
  if (status.startTime === undefined && !suspended) status.startTime = now;
  // Kept once the status counting these pods is written: a sync that loses a conflict must not count them twice.
  const backoff = nextBackoffRecord(state.backoffs.get(key), newSucceeded.length, countedNewFailures, nowMs);
  let requeueAfterMs: number | undefined;

  // What ends the Job, in upstream's order.
  let finished: JobCondition | undefined = jobCondition(job, "SuccessCriteriaMet");
  if (finished === undefined) {
    const target = jobCondition(job, "FailureTarget");
    if (target !== undefined) finished = target;
    else if (spec.podFailurePolicy !== undefined) {
      const message = pods
        .filter((p) => isPodFailed(p, job))
        .map((p) => matchPodFailurePolicy(spec, p).failJobMessage)
        .find((m) => m !== undefined);
      if (message !== undefined) finished = newJobCondition("FailureTarget", "PodFailurePolicy", message, now);
    }
  }
  if (finished === undefined) {
    if (failed > (spec.backoffLimit ?? 6) || pastBackoffLimitOnFailure(job, pods))
      finished = newJobCondition("FailureTarget", "BackoffLimitExceeded", "Job has reached the specified backoff limit", now);
    else if (spec.activeDeadlineSeconds !== undefined && status.startTime !== undefined && !suspended) {
      const left = Date.parse(status.startTime) + spec.activeDeadlineSeconds * 1000 - nowMs;
      if (left <= 0) finished = newJobCondition("FailureTarget", "DeadlineExceeded", "Job was active longer than specified deadline", now);
      else requeueAfterMs = left;
    }
  }
  let succeededIndexes = new Set<number>();
  let failedIndexes: Set<number> | undefined;
  const completions = spec.completions ?? 0;
  if (isIndexed(job)) {
    const previous = indexSet(status.completedIndexes, completions);
    succeededIndexes = new Set(previous);
    for (const pod of pods) {
      const index = completionIndexOf(pod);
      if (pod.status?.phase === "Succeeded" && index !== undefined && index < completions) succeededIndexes.add(index);
    }
    succeeded = succeededIndexes.size;
    if (spec.backoffLimitPerIndex !== undefined) {
      failedIndexes = indexSet(status.failedIndexes, completions);
      for (const pod of pods) {
        const index = completionIndexOf(pod);
        if (index === undefined || index >= completions || succeededIndexes.has(index) || !tracked(pod) || !isPodFailed(pod, job)) continue;
        const verdict = spec.podFailurePolicy === undefined ? { countFailed: true } : matchPodFailurePolicy(spec, pod);
        const failures = Number(pod.metadata?.annotations?.[INDEX_FAILURE_COUNT] ?? 0);
        if (verdict.action === "FailIndex" || (verdict.countFailed && failures >= spec.backoffLimitPerIndex)) failedIndexes.add(index);
      }
      if (finished === undefined) {
        if (spec.maxFailedIndexes !== undefined && failedIndexes.size > spec.maxFailedIndexes)
          finished = newJobCondition(
            "FailureTarget",
            "MaxFailedIndexesExceeded",
            "Job has exceeded the specified maximal number of failed indexes",
            now,
          );
        else if (failedIndexes.size > 0 && failedIndexes.size + succeededIndexes.size >= completions)
          finished = newJobCondition("FailureTarget", "FailedIndexes", "Job has failed indexes", now);
      }
    }
    if (finished === undefined) {
      const message = matchSuccessPolicy(job, succeededIndexes);
      if (message !== undefined) finished = newJobCondition("SuccessCriteriaMet", "SuccessPolicy", message, now);
    }
  }

  let suspendChanged = false;
  if (finished !== undefined) {
    const deleted = await deletePods(client, activePods);
    if (deleted !== active || !satisfied) finished = undefined;
    active -= deleted;
    terminating += deleted;
    ready -= activePods.filter((p) => isPodReady(p)).length;
    ready = Math.max(0, ready);
  } else {
    let manageCalled = false;
    if (satisfied && job.metadata?.deletionTimestamp === undefined) {
      const managed = await manageJob(state, key, job, {
        activePods,
        succeeded,
        succeededIndexes,
        failedIndexes,
        pods,
        terminating,
        backoff,
        nowMs,
      });
      active = managed.active;
      terminating = managed.terminating;
      ready = managed.ready;
      if (managed.requeueAfterMs !== undefined) requeueAfterMs = Math.min(requeueAfterMs ?? Infinity, managed.requeueAfterMs);
      manageCalled = true;
    }
    const complete = spec.completions === undefined ? succeeded > 0 && active === 0 : succeeded >= spec.completions && active === 0;
    if (complete) finished = newJobCondition("SuccessCriteriaMet", COMPLETIONS_REACHED.reason, COMPLETIONS_REACHED.message, now);
    else if (manageCalled) {
      let changed: boolean;
      if (suspended)
        [status.conditions, changed] = ensureJobCondition(
          status.conditions ?? [],
          "Suspended",
          "True",
          "JobSuspended",
          "Job suspended",
          now,
        );
      else {
        [status.conditions, changed] = ensureJobCondition(status.conditions ?? [], "Suspended", "False", "JobResumed", "Job resumed", now);
        // A resumed Job's deadline counts from now.
        if (changed) status.startTime = now;
      }
      suspendChanged = changed;
    }
  }
  const before = { active: status.active, ready: status.ready, terminating: status.terminating };
  status.active = active;
  status.ready = ready;
  status.terminating = terminating;
  const needsUpdate = suspendChanged || before.active !== active || before.ready !== ready || before.terminating !== terminating;
  await trackStatusAndRemoveFinalizers(state, key, job, {
    pods,
    tracked,
    finished,
    succeededIndexes,
    failedIndexes,
    terminating,
    needsUpdate,
    now,
    flushed: () => state.backoffs.set(key, backoff),
  });
  if (requeueAfterMs !== undefined && Number.isFinite(requeueAfterMs)) return { requeueAfterMs: Math.max(10, requeueAfterMs) };
}

/** pastBackoffLimitOnFailure: with restartPolicy OnFailure, the restarts of running and pending pods count against backoffLimit. */
function pastBackoffLimitOnFailure(job: Job, pods: readonly Pod[]): boolean {
  if (job.spec?.template?.spec?.restartPolicy !== "OnFailure") return false;
  let restarts = 0;
  for (const pod of pods) {
    if (pod.status?.phase !== "Running" && pod.status?.phase !== "Pending") continue;
    for (const s of [...(pod.status?.initContainerStatuses ?? []), ...(pod.status?.containerStatuses ?? [])])
      restarts += s.restartCount ?? 0;
  }
  const limit = job.spec.backoffLimit ?? 6;
  return limit === 0 ? restarts > 0 : restarts >= limit;
}

/** Deletes pods (keeping their finalizers: the status tracking removes them); returns how many deletes went through. */
async function deletePods(client: KubeClient, pods: readonly Pod[]): Promise<number> {
  const results = await Promise.all(
    pods.map((pod) =>
      client.delete(PODS, pod.metadata?.namespace, pod.metadata?.name ?? "").then(
        () => true,
        (error: unknown) => {
          if (isNotFound(error)) return true;
          throw error;
        },
      ),
    ),
  );
  return results.filter(Boolean).length;
}

interface ManageInput {
  activePods: Pod[];
  succeeded: number;
  succeededIndexes: Set<number>;
  failedIndexes: Set<number> | undefined;
  pods: Pod[];
  terminating: number;
  backoff: BackoffRecord;
  nowMs: number;
}

/** manageJob: deletes the pods of a suspended Job or beyond what is wanted, else creates the missing ones (after the failure back-off). */
async function manageJob(
  state: SyncState,
  key: string,
  job: Job,
  input: ManageInput,
): Promise<{ active: number; terminating: number; ready: number; requeueAfterMs?: number }> {
  const { client, expectations } = state;
  const spec = job.spec ?? {};
  let active = input.activePods.length;
  let terminating = input.terminating;
  let ready = input.activePods.filter(isPodReady).length;
  const parallelism = spec.parallelism ?? 1;
  const removeAndDelete = async (victims: Pod[]) => {
    expectations.expectDeletions(
      key,
      victims.map((p) => p.metadata?.name ?? ""),
    );
    let removed = 0;
    await Promise.all(
      victims.map(async (pod) => {
        try {
          // Deleted by the controller itself: removed from tracking first, so not counted as failed.
          await removeTrackingFinalizer(client, pod);
          await client.delete(PODS, pod.metadata?.namespace, pod.metadata?.name ?? "");
          removed++;
          if (isPodReady(pod)) ready--;
        } catch (error) {
          expectations.deletionObserved(key, pod.metadata?.name ?? "");
          if (!isNotFound(error)) throw error;
        }
      }),
    );
    active -= removed;
    terminating += removed;
    return { active, terminating, ready };
  };
  if (spec.suspend === true) return removeAndDelete(activePodsForRemoval(job, input.activePods, active));
  let wantActive: number;
  if (spec.completions === undefined) wantActive = input.succeeded > 0 ? active : parallelism;
  else wantActive = Math.max(0, Math.min(spec.completions - input.succeeded, parallelism));
  const victims = activePodsForRemoval(job, input.activePods, Math.max(0, active - wantActive)).slice(0, MAX_POD_CHANGES_PER_SYNC);
  if (victims.length > 0) return removeAndDelete(victims);
  const diff = wantActive - (onlyReplaceFailedPods(job) ? terminating : 0) - active;
  if (diff <= 0) return { active, terminating, ready };
  let creations: Array<{ index?: number; failureCount?: number }>;
  if (spec.completionMode === "Indexed") {
    const pending = pendingIndexes(job, input, diff);
    if (pending.waitMs !== undefined && pending.indexes.length === 0) return { active, terminating, ready, requeueAfterMs: pending.waitMs };
    creations = pending.indexes;
  } else {
    const remaining = backoffRemainingMs(input.backoff.failuresAfterLastSuccess, input.backoff.lastFailureAt, input.nowMs, state.backoffMs);
    if (remaining > 0) return { active, terminating, ready, requeueAfterMs: remaining };
    creations = Array.from({ length: Math.min(diff, MAX_POD_CHANGES_PER_SYNC) }, () => ({}));
  }
  if (creations.length === 0) return { active, terminating, ready };
  expectations.expectCreations(key, creations.length);
  const results = await Promise.allSettled(
    creations.map((c) =>
      client.create(PODS, job.metadata?.namespace, jobPod(job, c.index, c.failureCount)).catch((error: unknown) => {
        expectations.creationObserved(key);
        throw error;
      }),
    ),
  );
  active += results.filter((r) => r.status === "fulfilled").length;
  const failure = results.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failure !== undefined) throw failure.reason;
  return { active, terminating, ready };
}

/**
 * firstPendingIndexes: the lowest indexes neither succeeded, failed nor held by an active (or,
 * when replacements wait for Failed, terminating) pod; with backoffLimitPerIndex each index's
 * failure count travels to its next pod, which waits out that index's back-off.
 */
function pendingIndexes(
  job: Job,
  input: ManageInput,
  count: number,
): { indexes: Array<{ index: number; failureCount?: number }>; waitMs?: number } {
  const spec = job.spec ?? {};
  const completions = spec.completions ?? 0;
  const held = new Set<number>();
  for (const pod of input.pods) {
    const index = completionIndexOf(pod);
    if (index === undefined) continue;
    const terminatingPod =
      pod.metadata?.deletionTimestamp !== undefined && pod.status?.phase !== "Succeeded" && pod.status?.phase !== "Failed";
    if (isPodActive(pod) || (terminatingPod && onlyReplaceFailedPods(job))) held.add(index);
  }
  const perIndex = spec.backoffLimitPerIndex !== undefined;
  const indexes: Array<{ index: number; failureCount?: number }> = [];
  let waitMs: number | undefined;
  for (let index = 0; index < completions && indexes.length < Math.min(count, MAX_POD_CHANGES_PER_SYNC); index++) {
    if (input.succeededIndexes.has(index) || input.failedIndexes?.has(index) || held.has(index)) continue;
    if (!perIndex) {
      indexes.push({ index });
      continue;
    }
    const { failures, lastFailureAt } = indexFailures(job, input.pods, index);
    const remaining = backoffRemainingMs(failures, lastFailureAt, input.nowMs);
    if (remaining > 0) waitMs = Math.min(waitMs ?? Infinity, remaining);
    else indexes.push({ index, failureCount: failures });
  }
  if (!perIndex && indexes.length > 0) {
    const remaining = backoffRemainingMs(input.backoff.failuresAfterLastSuccess, input.backoff.lastFailureAt, input.nowMs);
    if (remaining > 0) return { indexes: [], waitMs: remaining };
  }
  return { indexes, ...(waitMs !== undefined ? { waitMs } : {}) };
}

/** An index's counted failures so far (its latest failed pod's count plus that failure) and when the last happened. */
function indexFailures(job: Job, pods: readonly Pod[], index: number): { failures: number; lastFailureAt: number } {
  let failures = 0;
  let lastFailureAt = 0;
  for (const pod of pods) {
    if (completionIndexOf(pod) !== index || !isPodFailed(pod, job)) continue;
    const verdict = job.spec?.podFailurePolicy === undefined ? { countFailed: true } : matchPodFailurePolicy(job.spec, pod);
    const count = Number(pod.metadata?.annotations?.[INDEX_FAILURE_COUNT] ?? 0) + (verdict.countFailed ? 1 : 0);
    failures = Math.max(failures, count);
    const statuses = pod.status?.containerStatuses ?? [];
    for (const s of statuses) {
      const at = Date.parse(String((s.state?.["terminated"] as { finishedAt?: string } | undefined)?.finishedAt ?? ""));
      if (Number.isFinite(at)) lastFailureAt = Math.max(lastFailureAt, at);
    }
  }
  return { failures, lastFailureAt };
}

interface TrackInput {
  pods: Pod[];
  tracked: (pod: Pod) => boolean;
  finished: JobCondition | undefined;
  succeededIndexes: Set<number>;
  failedIndexes: Set<number> | undefined;
  terminating: number;
  needsUpdate: boolean;
  now: string;
  /** The counted pods are in the stored status (upstream then updates its back-off store). */
  flushed: () => void;
}

/**
 * trackJobStatusAndRemoveFinalizers: finished pods go to `uncountedTerminatedPods` (written
 * first), lose their tracking finalizer, and are then moved into the counters; the interim
 * condition is written before the finalizers go, the terminal one once nothing is uncounted or
 * terminating.
 */
async function trackStatusAndRemoveFinalizers(state: SyncState, key: string, job: Job, input: TrackInput): Promise<void> {
  const { client } = state;
  const spec = job.spec ?? {};
  const status = job.status ?? {};
  const uncounted = status.uncountedTerminatedPods as { succeeded: string[]; failed: string[] };
  let needsFlush = input.needsUpdate;
  const withFinalizer = new Set(input.pods.filter(input.tracked).map((p) => p.metadata?.uid ?? ""));
  if (foldUncounted(job, withFinalizer)) needsFlush = true;
  const completions = spec.completions ?? 0;
  const indexed = isIndexed(job);
  const previousSucceeded = indexed ? indexSet(status.completedIndexes, completions) : new Set<number>();
  let finished = input.finished;
  const toRemove: Pod[] = [];
  for (const pod of input.pods) {
    if (!input.tracked(pod)) continue;
    const uid = pod.metadata?.uid ?? "";
    const failed = isPodFailed(pod, job);
    if (!(job.metadata?.deletionTimestamp !== undefined || finished !== undefined || pod.status?.phase === "Succeeded" || failed)) continue;
    toRemove.push(pod);
    if (pod.status?.phase === "Succeeded" && !uncounted.failed.includes(uid)) {
      if (indexed) {
        const index = completionIndexOf(pod);
        if (index !== undefined && index < completions && !previousSucceeded.has(index)) needsFlush = true;
      } else if (!uncounted.succeeded.includes(uid)) {
        uncounted.succeeded.push(uid);
        needsFlush = true;
      }
    } else if (failed || (finished !== undefined && finished.type !== "SuccessCriteriaMet")) {
      const index = completionIndexOf(pod);
      if (!uncounted.failed.includes(uid) && (!indexed || (index !== undefined && index < completions))) {
        if (spec.podFailurePolicy === undefined || matchPodFailurePolicy(spec, pod).countFailed) {
          uncounted.failed.push(uid);
          needsFlush = true;
        }
      }
    }
  }
  if (indexed) {
    const completedIndexes = formatIndexes(input.succeededIndexes);
    if (completedIndexes !== (status.completedIndexes ?? "")) needsFlush = true;
    status.succeeded = input.succeededIndexes.size;
    status.completedIndexes = completedIndexes;
    if (input.failedIndexes !== undefined) {
      const failedIndexes = formatIndexes(input.failedIndexes);
      if (failedIndexes !== status.failedIndexes) needsFlush = true;
      status.failedIndexes = failedIndexes;
    }
  }
  if (finished?.type === "FailureTarget") {
    if (jobCondition(job, "FailureTarget") === undefined) {
      status.conditions = [...(status.conditions ?? []), finished];
      needsFlush = true;
    }
    finished = newJobCondition("Failed", finished.reason ?? "", finished.message ?? "", input.now);
  } else if (finished?.type === "SuccessCriteriaMet") {
    if (jobCondition(job, "SuccessCriteriaMet") === undefined) {
      status.conditions = [...(status.conditions ?? []), finished];
      needsFlush = true;
    }
    finished = newJobCondition("Complete", finished.reason ?? "", finished.message ?? "", input.now);
  }
  let current = job;
  if (needsFlush) {
    current = await writeStatus(client, current);
    needsFlush = false;
  }
  input.flushed();
  if (toRemove.length > 0) {
    const removed = state.removedFinalizers.get(key);
    const outcomes = await Promise.allSettled(toRemove.map((pod) => removeTrackingFinalizer(client, pod)));
    outcomes.forEach((outcome, i) => {
      const uid = toRemove[i]?.metadata?.uid ?? "";
      if (outcome.status === "fulfilled") {
        withFinalizer.delete(uid);
        removed?.add(uid);
      }
    });
    if (foldUncounted(current, withFinalizer)) needsFlush = true;
    const failure = outcomes.find((o): o is PromiseRejectedResult => o.status === "rejected");
    if (failure !== undefined) {
      if (needsFlush) await writeStatus(client, current);
      throw failure.reason;
    }
  }
  const currentStatus = current.status ?? {};
  const stillUncounted =
    (currentStatus.uncountedTerminatedPods?.succeeded?.length ?? 0) + (currentStatus.uncountedTerminatedPods?.failed?.length ?? 0);
  if (finished !== undefined && stillUncounted === 0 && input.terminating === 0) {
    [currentStatus.conditions] = ensureJobCondition(
      currentStatus.conditions ?? [],
      finished.type,
      "True",
      finished.reason ?? "",
      finished.message ?? "",
      input.now,
    );
    if (finished.type === "Complete") currentStatus.completionTime = input.now;
    current.status = currentStatus;
    needsFlush = true;
  }
  if (needsFlush) await writeStatus(client, current);
}

/** cleanUncountedPodsWithoutFinalizers: uncounted pods whose finalizer is gone move into the counters. */
function foldUncounted(job: Job, withFinalizer: ReadonlySet<string>): boolean {
  const status = (job.status ??= {});
  const uncounted = (status.uncountedTerminatedPods ??= {});
  let changed = false;
  for (const field of ["succeeded", "failed"] as const) {
    const list = uncounted[field] ?? [];
    const kept = list.filter((uid) => withFinalizer.has(uid));
    if (kept.length !== list.length) {
      changed = true;
      // Indexed Jobs count succeeded pods by index, not by uid.
      if (field === "failed" || job.spec?.completionMode !== "Indexed") status[field] = (status[field] ?? 0) + list.length - kept.length;
      uncounted[field] = kept;
    }
  }
  return changed;
}

async function writeStatus(client: KubeClient, job: Job): Promise<Job> {
  const status = job.status ?? {};
  const uncounted = status.uncountedTerminatedPods ?? {};
  const clean: Job = {
    ...job,
    status: {
      ...status,
      uncountedTerminatedPods: {
        ...(uncounted.succeeded?.length ? { succeeded: uncounted.succeeded } : {}),
        ...(uncounted.failed?.length ? { failed: uncounted.failed } : {}),
      },
    },
  };
  // Upstream's omitempty fields: a zero count or an empty index list is not written.
  if (clean.status && clean.status.completedIndexes === "") delete clean.status.completedIndexes;
  for (const field of ["active", "succeeded", "failed"] as const) if (clean.status?.[field] === 0) delete clean.status[field];
  const written = await client.update<Job>(JOBS, job.metadata?.namespace, clean, "status");
  written.status ??= {};
  written.status.uncountedTerminatedPods = {
    succeeded: [...(written.status.uncountedTerminatedPods?.succeeded ?? [])],
    failed: [...(written.status.uncountedTerminatedPods?.failed ?? [])],
  };
  return written;
}
