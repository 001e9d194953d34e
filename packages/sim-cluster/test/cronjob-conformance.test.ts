/**
 * Ports of kubernetes/kubernetes test/e2e/apps/cronjob.go (SIGDescribe("CronJob")), with
 * upstream's objects (newTestCronJob: parallelism 1, completions 1, backoffLimit 1,
 * restartPolicy OnFailure, busybox container "c" with an emptyDir "data" at /data) and
 * assertions: the conformance tests "should support CronJob API operations", "should
 * schedule multiple jobs concurrently" and "should not schedule jobs when suspended", and
 * "should support timezone". Schedules fire on minute boundaries, so the scheduling test takes up
 * to two minutes, as upstream's does. Upstream's suspended test polls for cronJobTimeout (15
 * minutes) expecting no Job; the port waits past the next minute boundary, when the schedule
 * would have fired. Also "should remove from active list jobs that have been deleted" (not
 * conformance), which waits for the controller's MissingJob Event.
 */
import { ApiError } from "@kubekit/generic-controlplane/controllers";
import type { KubeObject, WatchEvent } from "@kubekit/generic-controlplane";
import { describe, expect, it } from "vitest";
import type { CronJob } from "../src/resources/cronjobs.js";
import { isJobFinished, type Job } from "../src/resources/jobs.js";
import { CRON_JOBS, JOBS } from "../src/refs.js";
import { eventually } from "./kubectl.js";
import { useSimCluster } from "./fixture.js";

const PODS = { group: "", version: "v1", resource: "pods", namespaced: true };
const EVENTS = { group: "", version: "v1", resource: "events", namespaced: true };
const sleepCommand = ["sleep", "300"];
const successCommand = ["/bin/true"];
const failureCommand = ["/bin/false"];

const sim = useSimCluster({ nodes: 1, namespacePrefix: "cronjob" });

function newTestCronJob(
  name: string,
  schedule: string,
  concurrencyPolicy: string,
  command: string[] | undefined,
  successfulJobsHistoryLimit?: number,
  failedJobsHistoryLimit?: number,
): CronJob {
  return {
    apiVersion: "batch/v1",
    kind: "CronJob",
    metadata: { name },
    spec: {
      schedule,
      concurrencyPolicy,
      jobTemplate: {
        spec: {
          parallelism: 1,
          completions: 1,
          backoffLimit: 1,
          template: {
            spec: {
              restartPolicy: "OnFailure",
              volumes: [{ name: "data", emptyDir: {} }],
              containers: [
                {
                  name: "c",
                  image: "registry.k8s.io/e2e-test-images/busybox:1.36.1-1",
                  volumeMounts: [{ mountPath: "/data", name: "data" }],
                  ...(command ? { command } : {}),
                },
              ],
            },
          },
        },
      },
      ...(successfulJobsHistoryLimit !== undefined ? { successfulJobsHistoryLimit } : {}),
      ...(failedJobsHistoryLimit !== undefined ? { failedJobsHistoryLimit } : {}),
    },
  };
}

describe("[sig-apps] CronJob (test/e2e/apps/cronjob.go)", { timeout: 150_000 }, () => {
  // Conformance (v1.21): CronJob MUST schedule multiple jobs concurrently.
  it("should schedule multiple jobs concurrently", async () => {
    const ns = await sim.newNamespace();
    const cronJob = await sim.client.create<CronJob>(CRON_JOBS, ns, newTestCronJob("concurrent", "*/1 * * * ?", "Allow", sleepCommand));
    // waitForActiveJobs(2): a run at each of the next two minute boundaries.
    await eventually(
      "2 active jobs",
      async () => (((await sim.client.get<CronJob>(CRON_JOBS, ns, "concurrent")).status?.active?.length ?? 0) >= 2 ? true : undefined),
      140_000,
    );
    const jobs = await sim.client.list<Job>(JOBS, ns);
    const active = jobs.items.filter((j) => !isJobFinished(j));
    expect(active.length).toBeGreaterThanOrEqual(2);
    for (const job of active)
      expect(job.metadata?.annotations?.["batch.kubernetes.io/cronjob-scheduled-timestamp"]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:00Z$/);
    await sim.client.delete(CRON_JOBS, ns, cronJob.metadata?.name ?? "", { propagationPolicy: "Background" });
  });

  // Conformance (v1.21): CronJob MUST NOT schedule new jobs while suspended.
  it("should not schedule jobs when suspended", async () => {
    const ns = await sim.newNamespace();
    const cronJob = newTestCronJob("suspended", "*/1 * * * ?", "Allow", sleepCommand);
    cronJob.spec!.suspend = true;
    await sim.client.create(CRON_JOBS, ns, cronJob);
    const nextMinute = Math.ceil(Date.now() / 60_000) * 60_000;
    let scheduled = false;
    while (Date.now() < nextMinute + 5_000) {
      const cj = await sim.client.get<CronJob>(CRON_JOBS, ns, "suspended");
      if ((cj.status?.active?.length ?? 0) > 0) scheduled = true;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
    expect(scheduled).toBe(false);
    const jobs = await sim.client.list<Job>(JOBS, ns);
    expect(jobs.items).toHaveLength(0);
    await sim.client.delete(CRON_JOBS, ns, "suspended", { propagationPolicy: "Background" });
  });

  // Deleted jobs should be removed from the active list.
  it("should remove from active list jobs that have been deleted", async () => {
    const ns = await sim.newNamespace();
    // Creating a ForbidConcurrent cronjob
    await sim.client.create<CronJob>(CRON_JOBS, ns, newTestCronJob("forbid", "*/1 * * * ?", "Forbid", sleepCommand));
    // Ensuring a job is scheduled: waitForActiveJobs(1)
    await eventually(
      "1 active job",
      async () => (((await sim.client.get<CronJob>(CRON_JOBS, ns, "forbid")).status?.active?.length ?? 0) >= 1 ? true : undefined),
      140_000,
    );
    // Ensuring exactly one is scheduled
    const cronJob = await sim.client.get<CronJob>(CRON_JOBS, ns, "forbid");
    expect(cronJob.status?.active).toHaveLength(1);
    // Deleting the job: DeleteResourceAndWaitForGC (background propagation, then its pods gone)
    const job = cronJob.status!.active![0]!;
    await sim.client.delete(JOBS, ns, job.name ?? "", { propagationPolicy: "Background" });
    await eventually(
      "the job's pods collected",
      async () =>
        (await sim.client.list(PODS, ns, { labelSelector: `job-name=${job.name ?? ""}` })).items.length === 0 ? true : undefined,
      60_000,
    );
    // Ensuring job was deleted
    let error: unknown;
    await sim.client.get(JOBS, ns, job.name ?? "").catch((e: unknown) => (error = e));
    expect(error instanceof ApiError && error.code === 404).toBe(true);
    // Ensuring the job is not in the cronjob active list: waitForJobNotActive
    await eventually(
      "the job not active",
      async () =>
        ((await sim.client.get<CronJob>(CRON_JOBS, ns, "forbid")).status?.active ?? []).some((ref) => ref.name === job.name)
          ? undefined
          : true,
      30_000,
    );
    // Ensuring MissingJob event has occurred: waitForEventWithReason, over the events Search finds for the CronJob
    await eventually(
      "a MissingJob event",
      async () => {
        const fieldSelector = `involvedObject.kind=CronJob,involvedObject.name=forbid,involvedObject.namespace=${ns},involvedObject.uid=${cronJob.metadata?.uid ?? ""}`;
        const events = await sim.client.list<KubeObject & { reason?: string }>(EVENTS, ns, { fieldSelector });
        return events.items.some((event) => event.reason === "MissingJob") ? true : undefined;
      },
      30_000,
    );
    // Removing cronjob
    await sim.client.delete(CRON_JOBS, ns, "forbid", { propagationPolicy: "Background" });
  });

  it("should support timezone", async () => {
    const ns = await sim.newNamespace();
    const cronJob = newTestCronJob("cronjob-with-timezone", "*/1 * * * ?", "Allow", failureCommand);
    cronJob.spec!.timeZone = "bad-time-zone";
    let error: unknown;
    try {
      await sim.client.create(CRON_JOBS, ns, cronJob);
    } catch (e) {
      error = e;
    }
    expect(error instanceof ApiError && error.code === 422 && error.reason === "Invalid").toBe(true);
  });

  // Conformance (v1.21): CronJob API Operations.
  it("should support CronJob API operations", async () => {
    const ns = await sim.newNamespace();
    const uniqueName = `${ns}-unique`;
    const cjTemplate = newTestCronJob("test-api", "* */1 * * ?", "Allow", successCommand, 1, 0);
    cjTemplate.metadata!.labels = { "special-label": uniqueName };
    const labelSelector = `special-label=${uniqueName}`;

    const createdCronJob = await sim.client.create<CronJob>(CRON_JOBS, ns, cjTemplate);
    const gottenCronJob = await sim.client.get<CronJob>(CRON_JOBS, ns, "test-api");
    expect(gottenCronJob.metadata?.uid).toBe(createdCronJob.metadata?.uid);

    const cjs = await sim.client.list<CronJob>(CRON_JOBS, ns, { labelSelector });
    expect(cjs.items).toHaveLength(1);
    const events: WatchEvent[] = [];
    const watch = await sim.client.watch(
      `/apis/batch/v1/namespaces/${ns}/cronjobs`,
      { resourceVersion: cjs.metadata?.resourceVersion ?? "", labelSelector },
      (event) => events.push(event),
    );
    try {
      const clusterCJs = await sim.client.list<CronJob>(CRON_JOBS, undefined, { labelSelector });
      expect(clusterCJs.items).toHaveLength(1);
      const clusterWatch = await sim.client.watch(
        "/apis/batch/v1/cronjobs",
        { resourceVersion: cjs.metadata?.resourceVersion ?? "", labelSelector },
        () => undefined,
      );
      clusterWatch.stop();

      const patchedCronJob = await sim.client.patch<CronJob>(
        CRON_JOBS,
        ns,
        "test-api",
        { metadata: { annotations: { patched: "true" } } },
        "application/merge-patch+json",
      );
      expect(patchedCronJob.metadata?.annotations?.["patched"]).toBe("true");

      let updatedCronJob: CronJob | undefined;
      while (updatedCronJob === undefined) {
        const cjToUpdate = await sim.client.get<CronJob>(CRON_JOBS, ns, "test-api");
        cjToUpdate.metadata!.annotations = { ...cjToUpdate.metadata?.annotations, updated: "true" };
        try {
          updatedCronJob = await sim.client.update<CronJob>(CRON_JOBS, ns, cjToUpdate);
        } catch (error) {
          if (!(error instanceof ApiError && error.code === 409)) throw error;
        }
      }
      expect(updatedCronJob.metadata?.annotations?.["updated"]).toBe("true");

      await eventually("watch event with the patched annotation", () =>
        Promise.resolve(events.some((e) => (e.object as CronJob).metadata?.annotations?.["patched"] === "true") ? true : undefined),
      );
      for (const event of events) expect(event.type).toBe("MODIFIED");
    } finally {
      watch.stop();
    }

    const now1 = new Date(Date.now() - 120_000).toISOString().replace(/\.\d+Z$/, "Z");
    const patchedStatus = await sim.client.patch<CronJob>(
      CRON_JOBS,
      ns,
      "test-api",
      { metadata: { annotations: { patchedstatus: "true" } }, status: { lastScheduleTime: now1 } },
      "application/merge-patch+json",
      "status",
    );
    expect(patchedStatus.status?.lastScheduleTime).toBe(now1);
    expect(patchedStatus.metadata?.annotations?.["patchedstatus"]).toBe("true");

    const now2 = new Date(Date.now() - 60_000).toISOString().replace(/\.\d+Z$/, "Z");
    let updatedStatus: CronJob | undefined;
    while (updatedStatus === undefined) {
      const statusToUpdate = await sim.client.get<CronJob>(CRON_JOBS, ns, "test-api");
      statusToUpdate.status = { ...statusToUpdate.status, lastScheduleTime: now2 };
      try {
        updatedStatus = await sim.client.update<CronJob>(CRON_JOBS, ns, statusToUpdate, "status");
      } catch (error) {
        if (!(error instanceof ApiError && error.code === 409)) throw error;
      }
    }
    expect(updatedStatus.status?.lastScheduleTime).toBe(now2);
    const gottenStatus = (await sim.client.request("GET", `/apis/batch/v1/namespaces/${ns}/cronjobs/test-api/status`)) as CronJob;
    expect(gottenStatus.metadata?.uid).toBe(createdCronJob.metadata?.uid);

    const expectFinalizer = (cj: CronJob) => {
      expect(cj.metadata?.deletionTimestamp).toBeDefined();
      expect(cj.metadata?.finalizers ?? []).not.toHaveLength(0);
    };
    cjTemplate.metadata!.name = "for-removal";
    const forRemoval = await sim.client.create<CronJob>(CRON_JOBS, ns, cjTemplate);
    await sim.client.delete(CRON_JOBS, ns, forRemoval.metadata?.name ?? "");
    try {
      expectFinalizer(await sim.client.get<CronJob>(CRON_JOBS, ns, "for-removal"));
    } catch (error) {
      if (!(error instanceof ApiError && error.code === 404)) throw error;
    }
    await sim.client.deleteCollection(CRON_JOBS, ns, {}, { labelSelector });
    const remaining = await sim.client.list<CronJob>(CRON_JOBS, ns, { labelSelector });
    expect(remaining.items.length).toBeLessThanOrEqual(2);
    for (const cj of remaining.items) expectFinalizer(cj);
  });
});
