/**
 * Ports of kubernetes/kubernetes test/e2e/apps/job.go (SIGDescribe("Job")), with upstream's
 * objects (test/e2e/framework/job/fixtures.go NewTestJob: busybox container "c", template label
 * somekey=somevalue, an emptyDir "data" at /data) and assertions. Conformance tests ported:
 * "should run a job to completion when tasks sometimes fail and are locally restarted",
 * "should create pods for an Indexed job with completion indexes and specified hostname",
 * "should delete a job", "should adopt matching orphans and release non-matching pods",
 * "should apply changes to a job status", "should manage the lifecycle of a job"; and the
 * non-conformance "should run a job to completion when tasks succeed", "should not create pods
 * when created in suspend state", "should delete pods when suspended", "should remove pods when
 * job is deleted", "should fail when exceeds active deadline", "should fail to exceed backoffLimit".
 *
 * One difference: the "failOnce" behaviour is a shell script that keeps a file in its emptyDir
 * (`if [[ -r /data/foo ]] ; then exit 0 ; else touch /data/foo ; exit 1 ; fi`), which the
 * simulated kubelet's exit rule does not read (src/kubelet/container-exit.ts), so the port adds
 * the annotation `sim.kubekit.io/exit-codes: "1,0"` (the first run fails, the restart succeeds),
 * which is what that script does under restartPolicy OnFailure.
 */
import { ApiError } from "@kubekit/generic-controlplane/controllers";
import type { WatchEvent } from "@kubekit/generic-controlplane";
import { describe, expect, it } from "vitest";
import type { Job } from "../src/resources/jobs.js";
import type { Pod } from "../src/resources/pods.js";
import { JOBS, PODS } from "../src/refs.js";
import { eventually } from "./kubectl.js";
import { useSimCluster } from "./fixture.js";

const parallelism = 2;
const completions = 4;
const backoffLimit = 6;

const sim = useSimCluster({ nodes: 2, namespacePrefix: "job" });

type Behavior = "notTerminate" | "fail" | "succeed" | "failOnce";

/** e2ejob.NewTestJob. */
function newTestJob(
  behavior: Behavior,
  name: string,
  restartPolicy: string,
  par: number,
  comp: number,
  activeDeadlineSeconds: number | undefined,
  backoff: number,
): Job {
  const command = {
    notTerminate: ["sleep", "1000000"],
    fail: ["/bin/sh", "-c", "exit 1"],
    succeed: ["/bin/sh", "-c", "exit 0"],
    failOnce: ["/bin/sh", "-c", "if [[ -r /data/foo ]] ; then exit 0 ; else touch /data/foo ; exit 1 ; fi"],
  }[behavior];
  return {
    apiVersion: "batch/v1",
    kind: "Job",
    metadata: { name },
    spec: {
      ...(activeDeadlineSeconds !== undefined ? { activeDeadlineSeconds } : {}),
      parallelism: par,
      completions: comp,
      backoffLimit: backoff,
      manualSelector: false,
      template: {
        metadata: {
          labels: { somekey: "somevalue" },
          ...(behavior === "failOnce" ? { annotations: { "sim.kubekit.io/exit-codes": "1,0" } } : {}),
        },
        spec: {
          restartPolicy,
          volumes: [{ name: "data", emptyDir: {} }],
          containers: [
            {
              name: "c",
              image: "registry.k8s.io/e2e-test-images/busybox:1.36.1-1",
              command,
              volumeMounts: [{ mountPath: "/data", name: "data" }],
            },
          ],
        },
      },
    },
  };
}

async function getJobPods(ns: string, name: string): Promise<Pod[]> {
  return (await sim.client.list<Pod>(PODS, ns, { labelSelector: `job-name=${name}` })).items;
}

/** e2ejob.WaitForJobComplete: succeeded reaches completions, and the Job is Complete. */
async function waitForJobComplete(ns: string, name: string, count: number): Promise<Job> {
  return eventually(
    `job ${name} complete`,
    async () => {
      const job = await sim.client.get<Job>(JOBS, ns, name);
      return job.status?.succeeded === count && job.status.conditions?.some((c) => c.type === "Complete" && c.status === "True")
        ? job
        : undefined;
    },
    30_000,
  );
}

async function waitForJobFailure(ns: string, name: string, timeoutMs: number, reason: string): Promise<Job> {
  return eventually(
    `job ${name} failed with ${reason}`,
    async () => {
      const job = await sim.client.get<Job>(JOBS, ns, name);
      return job.status?.conditions?.some((c) => c.type === "Failed" && c.status === "True" && (reason === "" || c.reason === reason))
        ? job
        : undefined;
    },
    timeoutMs,
  );
}

async function waitForAllJobPodsRunning(ns: string, name: string, count: number): Promise<void> {
  await eventually(
    `${count} pods of ${name} running`,
    async () => ((await getJobPods(ns, name)).filter((p) => p.status?.phase === "Running").length === count ? true : undefined),
    30_000,
  );
}

async function waitForAllJobPodsGone(ns: string, name: string): Promise<void> {
  await eventually(`pods of ${name} gone`, async () => ((await getJobPods(ns, name)).length === 0 ? true : undefined), 30_000);
}

async function isNotFound(read: () => Promise<unknown>): Promise<boolean> {
  try {
    await read();
    return false;
  } catch (error) {
    if (error instanceof ApiError && error.code === 404) return true;
    throw error;
  }
}

/** e2eresource.DeleteResourceAndWaitForGC: delete in the background, then wait for the Job and its pods to go. */
async function deleteJobAndWaitForGC(ns: string, name: string): Promise<void> {
  await sim.client.delete(JOBS, ns, name, { propagationPolicy: "Background" });
  await eventually(`job ${name} gone`, async () => ((await isNotFound(() => sim.client.get(JOBS, ns, name))) ? true : undefined), 30_000);
  await waitForAllJobPodsGone(ns, name);
}

const controllerOf = (pod: Pod) => pod.metadata?.ownerReferences?.find((r) => r.controller === true);

describe("[sig-apps] Job (test/e2e/apps/job.go)", { timeout: 60_000 }, () => {
  it("should run a job to completion when tasks succeed", async () => {
    const ns = await sim.newNamespace();
    const job = await sim.client.create<Job>(
      JOBS,
      ns,
      newTestJob("succeed", "all-succeed", "Never", parallelism, completions, undefined, backoffLimit),
    );
    await waitForJobComplete(ns, job.metadata?.name ?? "", completions);
    const pods = await getJobPods(ns, job.metadata?.name ?? "");
    expect(pods.filter((p) => p.status?.phase === "Succeeded").length).toBe(completions);
  });

  it("should not create pods when created in suspend state", async () => {
    const ns = await sim.newNamespace();
    const template = newTestJob("succeed", "suspend-true-to-false", "Never", parallelism, completions, undefined, backoffLimit);
    template.spec!.suspend = true;
    await sim.client.create<Job>(JOBS, ns, template);
    // Upstream polls for pods until wait.ForeverTestTimeout and expects the poll to time out.
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await getJobPods(ns, "suspend-true-to-false")).toHaveLength(0);
    const job = await eventually("Suspended condition", async () => {
      const j = await sim.client.get<Job>(JOBS, ns, "suspend-true-to-false");
      return j.status?.conditions?.some((c) => c.type === "Suspended") ? j : undefined;
    });
    job.spec!.suspend = false;
    await sim.client.update(JOBS, ns, job);
    await waitForJobComplete(ns, "suspend-true-to-false", completions);
  });

  it("should delete pods when suspended", async () => {
    const ns = await sim.newNamespace();
    const template = newTestJob("notTerminate", "suspend-false-to-true", "Never", parallelism, completions, undefined, backoffLimit);
    template.spec!.suspend = false;
    await sim.client.create(JOBS, ns, template);
    await waitForAllJobPodsRunning(ns, "suspend-false-to-true", parallelism);
    const job = await sim.client.get<Job>(JOBS, ns, "suspend-false-to-true");
    job.spec!.suspend = true;
    await sim.client.update(JOBS, ns, job);
    await waitForAllJobPodsGone(ns, "suspend-false-to-true");
    const suspended = await sim.client.get<Job>(JOBS, ns, "suspend-false-to-true");
    expect(suspended.status?.conditions?.some((c) => c.type === "Suspended")).toBe(true);
  });

  // Conformance (v1.24): Ensure Pods of an Indexed Job get a unique index.
  it("should create pods for an Indexed job with completion indexes and specified hostname", async () => {
    const ns = await sim.newNamespace();
    const template = newTestJob("succeed", "indexed-job", "Never", parallelism, completions, undefined, backoffLimit);
    template.spec!.completionMode = "Indexed";
    const job = await sim.client.create<Job>(JOBS, ns, template);
    await waitForJobComplete(ns, "indexed-job", completions);
    const pods = await getJobPods(ns, "indexed-job");
    const succeededIndexes = new Set<number>();
    for (const pod of pods) {
      if (pod.status?.phase === "Succeeded" && pod.metadata?.annotations) {
        const ix = Number.parseInt(pod.metadata.annotations["batch.kubernetes.io/job-completion-index"] ?? "", 10);
        expect(Number.isNaN(ix)).toBe(false);
        succeededIndexes.add(ix);
        expect(pod.spec?.["hostname"]).toBe(`${job.metadata?.name}-${ix}`);
      }
    }
    expect([...succeededIndexes].sort()).toEqual([0, 1, 2, 3]);
  });

  it("should remove pods when job is deleted", async () => {
    const ns = await sim.newNamespace();
    await sim.client.create(
      JOBS,
      ns,
      newTestJob("notTerminate", "all-pods-removed", "Never", parallelism, completions, undefined, backoffLimit),
    );
    await waitForAllJobPodsRunning(ns, "all-pods-removed", parallelism);
    await deleteJobAndWaitForGC(ns, "all-pods-removed");
    await waitForAllJobPodsGone(ns, "all-pods-removed");
  });

  // Conformance (v1.16): Jobs, completion after task failure.
  it("should run a job to completion when tasks sometimes fail and are locally restarted", async () => {
    const ns = await sim.newNamespace();
    await sim.client.create(
      JOBS,
      ns,
      newTestJob("failOnce", "fail-once-local", "OnFailure", parallelism, completions, undefined, backoffLimit),
    );
    await waitForJobComplete(ns, "fail-once-local", completions);
  });

  it("should fail when exceeds active deadline", async () => {
    const ns = await sim.newNamespace();
    const activeDeadlineSeconds = 1;
    await sim.client.create(
      JOBS,
      ns,
      newTestJob("notTerminate", "exceed-active-deadline", "Never", parallelism, completions, activeDeadlineSeconds, backoffLimit),
    );
    await waitForJobFailure(ns, "exceed-active-deadline", (activeDeadlineSeconds + 15) * 1000, "DeadlineExceeded");
  });

  // Conformance (v1.15): Jobs, active pods, graceful termination.
  it("should delete a job", async () => {
    const ns = await sim.newNamespace();
    await sim.client.create(JOBS, ns, newTestJob("notTerminate", "foo", "Never", parallelism, completions, undefined, backoffLimit));
    await waitForAllJobPodsRunning(ns, "foo", parallelism);
    await deleteJobAndWaitForGC(ns, "foo");
    expect(await isNotFound(() => sim.client.get(JOBS, ns, "foo"))).toBe(true);
  });

  // Conformance (v1.16): Jobs, orphan pods, re-adoption.
  it("should adopt matching orphans and release non-matching pods", async () => {
    const ns = await sim.newNamespace();
    const job = await sim.client.create<Job>(
      JOBS,
      ns,
      newTestJob("notTerminate", "adopt-release", "Never", parallelism, completions, undefined, backoffLimit),
    );
    await waitForAllJobPodsRunning(ns, "adopt-release", parallelism);
    const pods = await getJobPods(ns, "adopt-release");
    expect(pods).toHaveLength(parallelism);
    const pod = pods[0]!;
    const name = pod.metadata?.name ?? "";
    const updatePod = async (change: (p: Pod) => void) => {
      for (;;) {
        const current = await sim.client.get<Pod>(PODS, ns, name);
        change(current);
        try {
          await sim.client.update(PODS, ns, current);
          return;
        } catch (error) {
          if (!(error instanceof ApiError && error.code === 409)) throw error;
        }
      }
    };
    await updatePod((p) => {
      delete p.metadata!.ownerReferences;
    });
    await eventually("adopted", async () => {
      const ref = controllerOf(await sim.client.get<Pod>(PODS, ns, name));
      if (ref === undefined) return undefined;
      if (ref.kind !== "Job" || ref.name !== job.metadata?.name || ref.uid !== job.metadata?.uid)
        throw new Error(`pod has wrong controllerRef: ${JSON.stringify(ref)}`);
      return true;
    });
    await updatePod((p) => {
      delete p.metadata!.labels;
    });
    await eventually("released", async () => (controllerOf(await sim.client.get<Pod>(PODS, ns, name)) === undefined ? true : undefined));
  });

  it("should fail to exceed backoffLimit", async () => {
    const ns = await sim.newNamespace();
    const backoff = 1;
    await sim.client.create(JOBS, ns, newTestJob("fail", "backofflimit", "Never", 1, 1, undefined, backoff));
    // The second pod waits out the controller's 10 s pod failure back-off.
    await waitForJobFailure(ns, "backofflimit", 30_000, "BackoffLimitExceeded");
    const pods = await getJobPods(ns, "backofflimit");
    expect(pods).toHaveLength(backoff + 1);
    for (const pod of pods) expect(pod.status?.phase).toBe("Failed");
  });

  // Conformance (v1.24): Jobs, apply changes to status.
  it("should apply changes to a job status", async () => {
    const ns = await sim.newNamespace();
    const job = await sim.client.create<Job>(
      JOBS,
      ns,
      newTestJob("notTerminate", "suspend-false-to-true", "Never", parallelism, completions, undefined, backoffLimit),
    );
    await waitForAllJobPodsRunning(ns, "suspend-false-to-true", parallelism);
    const rfc3339 = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");
    const now1 = rfc3339(Date.now() - 60_000);
    const patched = await sim.client.patch<Job>(
      JOBS,
      ns,
      "suspend-false-to-true",
      { metadata: { annotations: { patchedstatus: "true" } }, status: { startTime: now1 } },
      "application/merge-patch+json",
      "status",
    );
    expect(patched.status?.startTime).toBe(now1);
    expect(patched.metadata?.annotations?.["patchedstatus"]).toBe("true");
    const now2 = rfc3339(Date.now() - 30_000);
    let updated: Job | undefined;
    for (let attempt = 0; updated === undefined; attempt++) {
      const toUpdate = await sim.client.get<Job>(JOBS, ns, "suspend-false-to-true");
      toUpdate.status!.startTime = now2;
      try {
        updated = await sim.client.update<Job>(JOBS, ns, toUpdate, "status");
      } catch (error) {
        if (!(error instanceof ApiError && error.code === 409) || attempt > 5) throw error;
      }
    }
    expect(updated.status?.startTime).toBe(now2);
    const gotten = (await sim.client.request("GET", `/apis/batch/v1/namespaces/${ns}/jobs/suspend-false-to-true/status`)) as Job;
    expect(gotten.metadata?.uid).toBe(job.metadata?.uid);
  });

  // Conformance (v1.25): Jobs, manage lifecycle.
  it("should manage the lifecycle of a job", async () => {
    const ns = await sim.newNamespace();
    const jobName = `e2e-${Math.random().toString(36).slice(2, 7)}`;
    const labelSelector = `e2e-job-label=${jobName}`;
    const jobsList = await sim.client.list<Job>(JOBS, ns, { labelSelector });
    const events: WatchEvent[] = [];
    const watch = await sim.client.watch(
      `/apis/batch/v1/namespaces/${ns}/jobs`,
      { labelSelector, resourceVersion: jobsList.metadata?.resourceVersion ?? "" },
      (event) => events.push(event),
    );
    try {
      const template = newTestJob("succeed", jobName, "Never", parallelism, completions, undefined, backoffLimit);
      template.metadata!.labels = { "e2e-job-label": jobName };
      template.spec!.suspend = true;
      await sim.client.create(JOBS, ns, template);
      const patchedJob = await sim.client.patch<Job>(
        JOBS,
        ns,
        jobName,
        { metadata: { labels: { [jobName]: "patched" } } },
        "application/strategic-merge-patch+json",
      );
      const sawEvent = (type: string, check: (job: Job) => boolean) =>
        eventually(`${type} event`, () =>
          Promise.resolve(events.some((e) => e.type === type && check(e.object as Job)) ? true : undefined),
        );
      await sawEvent("MODIFIED", (j) => j.metadata?.labels?.[jobName] === "patched");
      expect(patchedJob.metadata?.labels?.[jobName]).toBe("patched");

      let updatedJob: Job | undefined;
      while (updatedJob === undefined) {
        const current = await sim.client.get<Job>(JOBS, ns, jobName);
        current.spec!.suspend = false;
        current.metadata!.annotations = { ...current.metadata?.annotations, updated: "true" };
        try {
          updatedJob = await sim.client.update<Job>(JOBS, ns, current);
        } catch (error) {
          if (!(error instanceof ApiError && error.code === 409)) throw error;
        }
      }
      await sawEvent("MODIFIED", (j) => j.metadata?.annotations?.["updated"] === "true");
      expect(updatedJob.metadata?.annotations?.["updated"]).toBe("true");

      const jobs = await sim.client.list<Job>(JOBS, undefined, { labelSelector });
      expect(jobs.items).toHaveLength(1);
      await waitForJobComplete(ns, jobName, completions);
      await sim.client.deleteCollection(JOBS, ns, { propagationPolicy: "Background" }, { labelSelector });
      await sawEvent("DELETED", (j) => j.metadata?.labels?.["e2e-job-label"] === jobName);
      const relisted = await sim.client.list<Job>(JOBS, undefined, { labelSelector });
      expect(relisted.items).toHaveLength(0);
    } finally {
      watch.stop();
    }
  });
});
