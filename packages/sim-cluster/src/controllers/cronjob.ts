import {
  controllerFor,
  isApiError,
  isNotFound,
  splitKey,
  type Controller,
  type EventRecorder,
  type KubeClient,
  type ReconcileContext,
  type Requeue,
} from "@kubekit/generic-controlplane/controllers";
import type { CronJob } from "../resources/cronjobs.js";
import { isJobFinished, jobCondition, type Job } from "../resources/jobs.js";
import { CRON_JOBS, JOBS } from "../refs.js";
import { mostRecentTime, nextTime, parseSchedule } from "./cron-schedule.js";
import { controllerRefOf, ownerReferenceTo, toleratingStaleCache } from "./util.js";

/** The annotation a CronJob's Job carries: the time it was scheduled for, in the CronJob's zone. */
export const SCHEDULED_TIMESTAMP = "batch.kubernetes.io/cronjob-scheduled-timestamp";
const MINUTE = 60_000;

/** RFC 3339 of `ms` with the offset of `zone` at that instant (`2026-01-01T09:00:00+01:00`). */
function rfc3339In(ms: number, zone: string): string {
  const parts: Record<string, string> = {};
  for (const p of new Intl.DateTimeFormat("en-US", {
    timeZone: zone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  }).formatToParts(ms))
    parts[p.type] = p.value;
  const local = Date.UTC(
    Number(parts["year"]),
    Number(parts["month"]) - 1,
    Number(parts["day"]),
    Number(parts["hour"]),
    Number(parts["minute"]),
    Number(parts["second"]),
  );
  const offset = Math.round((local - Math.floor(ms / 1000) * 1000) / MINUTE);
  const sign = offset < 0 ? "-" : "+";
  const abs = Math.abs(offset);
  const zoneText = offset === 0 ? "Z" : `${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
  return `${parts["year"]}-${parts["month"]}-${parts["day"]}T${parts["hour"]}:${parts["minute"]}:${parts["second"]}${zoneText}`;
}

function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");
}

/**
 * The CronJob controller (upstream `pkg/controller/cronjob`, v2): creates a Job
 * (`<name>-<minutes since the epoch>`, owned by the CronJob, annotated with its scheduled time)
 * at each time of `schedule` in `timeZone` (UTC by default), starting a missed run only within
 * `startingDeadlineSeconds` and only the latest of several; `concurrencyPolicy` Forbid skips a
 * run while one is active and Replace deletes the active ones first; `suspend` stops new runs;
 * finished Jobs beyond `successfulJobsHistoryLimit` / `failedJobsHistoryLimit` are deleted,
 * oldest first; status keeps the active Jobs, `lastScheduleTime` and `lastSuccessfulTime`.
 */
export function cronJobController(): Controller {
  return controllerFor(CRON_JOBS, { kind: "CronJob" })
    .named("cronjob")
    .owns(JOBS)
    .withState(({ context }) => context.events("cronjob-controller"))
    .withOptions({ workers: 2 })
    .complete(
      toleratingStaleCache(
        async (
          key: string,
          { primary: cronJobs, informer, client, state: events }: ReconcileContext<EventRecorder>,
        ): Promise<void | Requeue> => {
          const cronJob = cronJobs.cache.get(key) as CronJob | undefined;
          if (cronJob === undefined) return;
          const { namespace } = splitKey(key);
          const owned = (informer(JOBS).cache.list() as Job[]).filter(
            (j) => j.metadata?.namespace === namespace && controllerRefOf(j)?.uid === cronJob.metadata?.uid,
          );
          return syncCronJob(client, events, structuredClone(cronJob), owned);
        },
      ),
    );
}

function jobFinishedAt(job: Job): number | undefined {
  const condition = jobCondition(job, "Complete") ?? jobCondition(job, "Failed");
  const at = Date.parse(condition?.lastTransitionTime ?? "");
  return Number.isFinite(at) ? at : undefined;
}

async function syncCronJob(client: KubeClient, events: EventRecorder, cronJob: CronJob, owned: Job[]): Promise<void | Requeue> {
  const spec = cronJob.spec ?? {};
  const namespace = cronJob.metadata?.namespace ?? "";
  const status = (cronJob.status ??= {});
  const before = JSON.stringify(status);
  const about = involved(cronJob);
  const byUid = new Map(owned.map((j) => [j.metadata?.uid ?? "", j]));
  const activeRefs: NonNullable<NonNullable<CronJob["status"]>["active"]> = [];
  for (const ref of status.active ?? []) {
    const job = byUid.get(ref.uid ?? "");
    if (job !== undefined) {
      if (!isJobFinished(job)) activeRefs.push(ref);
      else
        void events.event(
          about,
          "Normal",
          "SawCompletedJob",
          `Saw completed job: ${job.metadata?.name ?? ""}, condition: ${jobCondition(job, "Complete") !== undefined ? "Complete" : "Failed"}`,
        );
      continue;
    }
    // Not in the cache: gone, or created after the cache was read. Ask the server, as upstream does.
    const found = await client.get<Job>(JOBS, namespace, ref.name ?? "").catch((error: unknown) => {
      if (isNotFound(error)) return undefined;
      throw error;
    });
    if (found !== undefined && found.metadata?.uid === ref.uid) {
      if (!isJobFinished(found)) activeRefs.push(ref);
      continue;
    }
    void events.event(about, "Normal", "MissingJob", `Active job went missing: ${ref.name ?? ""}`);
  }
  // Jobs of this CronJob running but not listed are listed again. The cache may be behind the
  // status this controller wrote last: only a Job the stored CronJob does not list either is
  // unexpected (a status write lost, or a Job someone else made for it), as upstream checks.
  const unlisted = owned.filter((job) => !isJobFinished(job) && !activeRefs.some((r) => r.uid === job.metadata?.uid));
  if (unlisted.length > 0) {
    const stored = await client.get<CronJob>(CRON_JOBS, namespace, cronJob.metadata?.name ?? "").catch(() => undefined);
    for (const job of unlisted) {
      const listed = stored?.status?.active?.some((r) => r.uid === job.metadata?.uid) === true;
      if (!listed)
        void events.event(
          about,
          "Warning",
          "UnexpectedJob",
          `Saw a job that the controller did not create or forgot: ${job.metadata?.name ?? ""}`,
        );
      activeRefs.push(objectReference(job));
    }
  }
  for (const job of owned) {
    if (jobCondition(job, "Complete") === undefined) continue;
    const at = jobFinishedAt(job);
    if (at !== undefined && (status.lastSuccessfulTime === undefined || Date.parse(status.lastSuccessfulTime) < at))
      status.lastSuccessfulTime = rfc3339(at);
  }
  status.active = activeRefs;
  await removeOldJobs(client, events, about, spec, owned);
  const writeStatus = async () => {
    const next = { ...status, ...(status.active?.length ? {} : { active: undefined }) };
    if (JSON.stringify(next) === before) return;
    await client.update(CRON_JOBS, namespace, { ...cronJob, status: JSON.parse(JSON.stringify(next)) as CronJob["status"] }, "status");
  };
  if (cronJob.metadata?.deletionTimestamp !== undefined || spec.suspend === true) return writeStatus();
  const schedule = parseSchedule(spec.schedule ?? "");
  if ("error" in schedule) {
    void events.event(about, "Warning", "InvalidSchedule", `invalid schedule: ${spec.schedule ?? ""} : ${schedule.error}`);
    return writeStatus();
  }
  const zone = spec.timeZone ?? "UTC";
  const now = Date.now();
  const next = (from: number): Requeue | undefined => {
    const t = nextTime(schedule, from, zone);
    return t === undefined ? undefined : { requeueAfterMs: Math.max(10, t - Date.now() + 100) };
  };
  let earliest = Date.parse(status.lastScheduleTime ?? cronJob.metadata?.creationTimestamp ?? "");
  if (!Number.isFinite(earliest)) earliest = now;
  if (spec.startingDeadlineSeconds !== undefined) earliest = Math.max(earliest, now - spec.startingDeadlineSeconds * 1000);
  const { time: scheduledTime } = mostRecentTime(schedule, earliest, now, zone);
  if (scheduledTime === undefined) {
    await writeStatus();
    return next(now);
  }
  if (spec.startingDeadlineSeconds !== undefined && scheduledTime + spec.startingDeadlineSeconds * 1000 < now) {
    void events.event(about, "Warning", "MissSchedule", `Missed scheduled time to start a job: ${rfc1123z(scheduledTime)}`);
    await writeStatus();
    return next(now);
  }
  const jobName = `${cronJob.metadata?.name ?? ""}-${Math.floor(scheduledTime / MINUTE)}`;
  if (owned.some((j) => j.metadata?.name === jobName)) {
    await writeStatus();
    return next(now);
  }
  if (spec.concurrencyPolicy === "Forbid" && activeRefs.length > 0) {
    void events.event(
      about,
      "Normal",
      "JobAlreadyActive",
      "Not starting job because prior execution is running and concurrency policy is Forbid",
    );
    await writeStatus();
    return next(now);
  }
  if (spec.concurrencyPolicy === "Replace") {
    for (const ref of activeRefs) {
      const deleted = await client.delete(JOBS, namespace, ref.name ?? "", { propagationPolicy: "Background" }).then(
        () => true,
        (error: unknown) => {
          if (!isNotFound(error)) throw error;
          return false;
        },
      );
      if (deleted) void events.event(about, "Normal", "SuccessfulDelete", `Deleted job ${ref.name ?? ""}`);
    }
    status.active = [];
  }
  const template = spec.jobTemplate ?? {};
  const job: Job = {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: {
      name: jobName,
      namespace,
      labels: { ...(template.metadata?.labels ?? {}) },
      annotations: { ...(template.metadata?.annotations ?? {}), [SCHEDULED_TIMESTAMP]: rfc3339In(scheduledTime, zone) },
      ownerReferences: [ownerReferenceTo(cronJob, "batch/v1", "CronJob")],
    },
    spec: structuredClone(template.spec ?? {}),
  };
  let created: Job;
  try {
    created = await client.create<Job>(JOBS, namespace, job);
    void events.event(about, "Normal", "SuccessfulCreate", `Created job ${jobName}`);
  } catch (error) {
    if (!(isApiError(error) && error.code === 409)) {
      void events.event(about, "Warning", "FailedCreate", `Error creating job: ${error instanceof Error ? error.message : String(error)}`);
      throw error;
    }
    created = await client.get<Job>(JOBS, namespace, jobName);
    if (controllerRefOf(created)?.uid !== cronJob.metadata?.uid) {
      await writeStatus();
      return next(now);
    }
  }
  status.active = [...(status.active ?? []).filter((r) => r.uid !== created.metadata?.uid), objectReference(created)];
  status.lastScheduleTime = rfc3339(scheduledTime);
  await writeStatus();
  return next(now);
}

function objectReference(job: Job): NonNullable<NonNullable<CronJob["status"]>["active"]>[number] {
  return {
    kind: "Job",
    namespace: job.metadata?.namespace ?? "",
    name: job.metadata?.name ?? "",
    uid: job.metadata?.uid ?? "",
    apiVersion: "batch/v1",
    resourceVersion: job.metadata?.resourceVersion ?? "",
  };
}

/** cleanupFinishedJobs: the oldest finished Jobs beyond each history limit go, in the background. */
async function removeOldJobs(
  client: KubeClient,
  events: EventRecorder,
  about: InvolvedCronJob,
  spec: NonNullable<CronJob["spec"]>,
  owned: Job[],
): Promise<void> {
  const finished = owned.filter((j) => isJobFinished(j) && j.metadata?.deletionTimestamp === undefined);
  const startOf = (j: Job) => Date.parse(j.status?.startTime ?? j.metadata?.creationTimestamp ?? "") || 0;
  const victims: Job[] = [];
  for (const [type, limit] of [
    ["Complete", spec.successfulJobsHistoryLimit],
    ["Failed", spec.failedJobsHistoryLimit],
  ] as const) {
    if (limit === undefined) continue;
    const ofType = finished.filter((j) => jobCondition(j, type) !== undefined).sort((a, b) => startOf(a) - startOf(b));
    victims.push(...ofType.slice(0, Math.max(0, ofType.length - limit)));
  }
  for (const job of victims) {
    const deleted = await client.delete(JOBS, job.metadata?.namespace, job.metadata?.name ?? "", { propagationPolicy: "Background" }).then(
      () => true,
      (error: unknown) => {
        if (!isNotFound(error)) throw error;
        return false;
      },
    );
    if (deleted) void events.event(about, "Normal", "SuccessfulDelete", `Deleted job ${job.metadata?.name ?? ""}`);
  }
}

type InvolvedCronJob = ReturnType<typeof involved>;

function involved(cronJob: CronJob): { apiVersion: string; kind: string; namespace: string; name: string; uid: string } {
  return {
    apiVersion: "batch/v1",
    kind: "CronJob",
    namespace: cronJob.metadata?.namespace ?? "",
    name: cronJob.metadata?.name ?? "",
    uid: cronJob.metadata?.uid ?? "",
  };
}

/** Go's time.RFC1123Z of `ms` in UTC (`Mon, 02 Jan 2006 15:04:05 +0000`), as upstream's MissSchedule message. */
function rfc1123z(ms: number): string {
  return new Date(ms).toUTCString().replace(/GMT$/, "+0000");
}
