import { ApiError, KubeClient } from "@kubekit/generic-controlplane/controllers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../../test/kubectl.js";
import { startSimCluster, type SimCluster } from "../cluster.js";
import type { Job } from "../resources/jobs.js";
import type { Pod } from "../resources/pods.js";
import { JOBS, PODS } from "../refs.js";

let cluster: SimCluster;
let client: KubeClient;
beforeAll(async () => {
  cluster = await startSimCluster({ nodes: 2 });
  client = new KubeClient({ server: cluster.url });
});
afterAll(async () => {
  client.close();
  await cluster.close();
});

function job(
  name: string,
  spec: Record<string, unknown>,
  command: string[] | undefined,
  podSpec: Record<string, unknown> = {},
  annotations?: Record<string, string>,
): Job {
  return {
    metadata: { name },
    spec: {
      ...spec,
      template: {
        ...(annotations ? { metadata: { annotations } } : {}),
        spec: { restartPolicy: "Never", containers: [{ name: "c", image: "busybox", ...(command ? { command } : {}) }], ...podSpec },
      },
    },
  };
}

async function finished(name: string, type: "Complete" | "Failed", timeoutMs = 15_000): Promise<Job> {
  return eventually(
    `job ${name} ${type}`,
    async () => {
      const j = await client.get<Job>(JOBS, "default", name);
      return j.status?.conditions?.some((c) => c.type === type && c.status === "True") ? j : undefined;
    },
    timeoutMs,
  );
}

async function podsOf(name: string): Promise<Pod[]> {
  const list = await client.list<Pod>(PODS, "default", { labelSelector: `batch.kubernetes.io/job-name=${name}` });
  return list.items;
}

describe("the Job controller", { timeout: 40_000 }, () => {
  it("runs completions pods, parallelism at a time, to SuccessCriteriaMet and then Complete, counting them through the tracking finalizer", async () => {
    const created = await client.create<Job>(
      JOBS,
      "default",
      job("three", { completions: 3, parallelism: 2 }, ["sh", "-c", "sleep 0.2; exit 0"]),
    );
    expect(created.spec?.selector).toEqual({ matchLabels: { "batch.kubernetes.io/controller-uid": created.metadata?.uid } });
    expect(created.spec?.template?.metadata?.labels).toMatchObject({
      "batch.kubernetes.io/job-name": "three",
      "job-name": "three",
      "controller-uid": created.metadata?.uid,
    });
    expect(created.spec).toMatchObject({
      backoffLimit: 6,
      completionMode: "NonIndexed",
      suspend: false,
      podReplacementPolicy: "TerminatingOrFailed",
    });
    const done = await finished("three", "Complete");
    expect(done.status).toMatchObject({ succeeded: 3, ready: 0, terminating: 0, uncountedTerminatedPods: {} });
    // omitempty, as upstream writes them
    expect(done.status?.failed).toBeUndefined();
    expect(done.status?.active).toBeUndefined();
    expect(done.status?.conditions?.map((c) => [c.type, c.status, c.reason])).toEqual([
      ["SuccessCriteriaMet", "True", "CompletionsReached"],
      ["Complete", "True", "CompletionsReached"],
    ]);
    expect(done.status?.completionTime).toBeDefined();
    const pods = await podsOf("three");
    expect(pods).toHaveLength(3);
    for (const pod of pods) {
      expect(pod.status?.phase).toBe("Succeeded");
      expect(pod.metadata?.finalizers ?? []).not.toContain("batch.kubernetes.io/job-tracking");
      expect(pod.metadata?.ownerReferences?.[0]).toMatchObject({ apiVersion: "batch/v1", kind: "Job", name: "three", controller: true });
    }
  });

  it("fails a Job past its backoffLimit (FailureTarget first, then Failed)", async () => {
    await client.create(JOBS, "default", job("flunk", { backoffLimit: 0 }, ["/bin/false"]));
    const failed = await finished("flunk", "Failed");
    expect(failed.status?.failed).toBe(1);
    expect(failed.status?.conditions?.map((c) => [c.type, c.reason, c.message])).toEqual([
      ["FailureTarget", "BackoffLimitExceeded", "Job has reached the specified backoff limit"],
      ["Failed", "BackoffLimitExceeded", "Job has reached the specified backoff limit"],
    ]);
    expect(failed.status?.completionTime).toBeUndefined();
  });

  it("waits the pod failure back-off once per failure: 10 s before the second pod, not 20", async () => {
    await client.create(JOBS, "default", job("twice", { backoffLimit: 1 }, ["/bin/false"]));
    await finished("twice", "Failed", 25_000);
    const pods = (await podsOf("twice")).sort(
      (a, b) => Date.parse(a.metadata?.creationTimestamp ?? "") - Date.parse(b.metadata?.creationTimestamp ?? ""),
    );
    expect(pods).toHaveLength(2);
    const gap = Date.parse(pods[1]!.metadata?.creationTimestamp ?? "") - Date.parse(pods[0]!.metadata?.creationTimestamp ?? "");
    expect(gap).toBeGreaterThanOrEqual(9_000);
    expect(gap).toBeLessThanOrEqual(13_000);
  });

  it("fails a Job at once on a podFailurePolicy FailJob rule, naming the container, exit code and rule", async () => {
    await client.create(
      JOBS,
      "default",
      job(
        "policy",
        { backoffLimit: 6, podFailurePolicy: { rules: [{ action: "FailJob", onExitCodes: { operator: "In", values: [42] } }] } },
        ["sh", "-c", "exit 42"],
      ),
    );
    const failed = await finished("policy", "Failed");
    const pod = (await podsOf("policy"))[0]!;
    expect(failed.status?.conditions?.find((c) => c.type === "Failed")).toMatchObject({
      reason: "PodFailurePolicy",
      message: `Container c for pod default/${pod.metadata?.name} failed with exit code 42 matching FailJob rule at index 0`,
    });
    expect(failed.spec?.podReplacementPolicy).toBe("Failed");
  });

  it("does not count failures an Ignore rule matches", async () => {
    await client.create(
      JOBS,
      "default",
      job(
        "ignored",
        { backoffLimit: 0, podFailurePolicy: { rules: [{ action: "Ignore", onExitCodes: { operator: "In", values: [3] } }] } },
        undefined,
        {},
        { "sim.kubekit.io/exit-codes": "3,0" },
      ),
    );
    // Each pod is a new container (run 0): exit 3 forever, so every replacement is ignored; the count stays 0.
    await eventually("two ignored pods", async () =>
      (await podsOf("ignored")).filter((p) => p.status?.phase === "Failed").length >= 2 ? true : undefined,
    );
    const j = await client.get<Job>(JOBS, "default", "ignored");
    expect(j.status?.failed ?? 0).toBe(0);
    expect(j.status?.conditions ?? []).toEqual([]);
    await client.delete(JOBS, "default", "ignored", { propagationPolicy: "Background" });
  });

  it("runs an Indexed Job: one pod per index with its hostname, annotation, label and JOB_COMPLETION_INDEX; completedIndexes", async () => {
    await client.create(JOBS, "default", job("indexed", { completions: 3, parallelism: 3, completionMode: "Indexed" }, ["sleep", "0.1"]));
    const done = await finished("indexed", "Complete");
    expect(done.status).toMatchObject({ succeeded: 3, completedIndexes: "0-2" });
    const pods = await podsOf("indexed");
    const indexes = pods.map((p) => p.metadata?.annotations?.["batch.kubernetes.io/job-completion-index"]).sort();
    expect(indexes).toEqual(["0", "1", "2"]);
    for (const pod of pods) {
      const index = pod.metadata?.annotations?.["batch.kubernetes.io/job-completion-index"];
      expect(pod.metadata?.labels?.["batch.kubernetes.io/job-completion-index"]).toBe(index);
      expect(pod.spec?.["hostname"]).toBe(`indexed-${index}`);
      expect(pod.metadata?.name?.startsWith(`indexed-${index}-`)).toBe(true);
      expect(pod.spec?.containers?.[0]?.["env"]).toEqual([
        {
          name: "JOB_COMPLETION_INDEX",
          valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']" } },
        },
      ]);
    }
  });

  it("ends an Indexed Job by its successPolicy, deleting the pods still running", async () => {
    await client.create(
      JOBS,
      "default",
      job(
        "leader",
        { completions: 3, parallelism: 3, completionMode: "Indexed", successPolicy: { rules: [{ succeededIndexes: "0" }] } },
        ["sh", "-c", "sleep 100"],
        {},
        { "exit-codes.sim.kubekit.io/c": "0", "run-seconds.sim.kubekit.io/c": "0.3" },
      ),
    );
    const done = await finished("leader", "Complete");
    expect(done.status?.conditions?.map((c) => [c.type, c.reason, c.message])).toEqual([
      ["SuccessCriteriaMet", "SuccessPolicy", "Matched rules at index 0"],
      ["Complete", "SuccessPolicy", "Matched rules at index 0"],
    ]);
  });

  it("marks indexes failed past backoffLimitPerIndex and fails the Job with FailedIndexes", async () => {
    await client.create(
      JOBS,
      "default",
      job("perindex", { completions: 2, parallelism: 2, completionMode: "Indexed", backoffLimitPerIndex: 0 }, ["/bin/false"]),
    );
    const failed = await finished("perindex", "Failed");
    expect(failed.spec?.backoffLimit).toBe(2147483647);
    expect(failed.status).toMatchObject({ failedIndexes: "0,1", failed: 2 });
    expect(failed.status?.conditions?.find((c) => c.type === "Failed")).toMatchObject({
      reason: "FailedIndexes",
      message: "Job has failed indexes",
    });
  });

  it("fails a Job active longer than activeDeadlineSeconds and deletes its pods", async () => {
    await client.create(JOBS, "default", job("deadline", { activeDeadlineSeconds: 1 }, ["sleep", "1000"]));
    const failed = await finished("deadline", "Failed");
    expect(failed.status?.conditions?.find((c) => c.type === "Failed")).toMatchObject({
      reason: "DeadlineExceeded",
      message: "Job was active longer than specified deadline",
    });
    expect(failed.status?.active).toBeUndefined();
  });

  it("creates no pods while suspended, and runs them once resumed", async () => {
    await client.create(JOBS, "default", job("later", { suspend: true, completions: 1 }, ["true"]));
    const suspended = await eventually("Suspended", async () => {
      const j = await client.get<Job>(JOBS, "default", "later");
      return j.status?.conditions?.some((c) => c.type === "Suspended" && c.status === "True") ? j : undefined;
    });
    expect(suspended.status?.conditions?.find((c) => c.type === "Suspended")).toMatchObject({
      reason: "JobSuspended",
      message: "Job suspended",
    });
    expect(suspended.status?.startTime).toBeUndefined();
    expect(await podsOf("later")).toHaveLength(0);
    await client.patch(JOBS, "default", "later", { spec: { suspend: false } }, "application/merge-patch+json");
    const done = await finished("later", "Complete");
    expect(done.status?.conditions?.find((c) => c.type === "Suspended")).toMatchObject({
      status: "False",
      reason: "JobResumed",
      message: "Job resumed",
    });
  });

  it("deletes a finished Job after ttlSecondsAfterFinished, with its pods", async () => {
    await client.create(JOBS, "default", job("shortlived", { ttlSecondsAfterFinished: 0 }, ["true"]));
    await eventually("job deleted", async () => {
      try {
        await client.get(JOBS, "default", "shortlived");
        return undefined;
      } catch (error) {
        if (error instanceof ApiError && error.code === 404) return true;
        throw error;
      }
    });
    await eventually("pods deleted", async () => ((await podsOf("shortlived")).length === 0 ? true : undefined));
  });

  it("validates Jobs as upstream", async () => {
    const refused = async (body: Job): Promise<string> => {
      try {
        await client.create(JOBS, "default", body);
      } catch (error) {
        if (error instanceof ApiError) return error.message;
        throw error;
      }
      throw new Error("accepted");
    };
    expect(await refused(job("bad1", {}, ["true"], { restartPolicy: "Always" }))).toContain(
      'spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"',
    );
    expect(await refused(job("bad2", { completionMode: "Indexed", parallelism: 2 }, ["true"]))).toContain(
      "spec.completions: Required value: when completion mode is Indexed",
    );
    expect(await refused(job("bad3", { backoffLimitPerIndex: 1 }, ["true"]))).toContain(
      "spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode",
    );
    expect(
      await refused(
        job("bad4", { podFailurePolicy: { rules: [{ action: "FailJob", onExitCodes: { operator: "In", values: [0] } }] } }, ["true"]),
      ),
    ).toContain("spec.podFailurePolicy.rules[0].onExitCodes.values[0]: Invalid value: 0: must not be 0 for the In operator");
    expect(await refused(job("bad5", { parallelism: -1 }, ["true"]))).toContain(
      "spec.parallelism: Invalid value: -1: must be greater than or equal to 0",
    );
    await client.create(JOBS, "default", job("fixed", { suspend: true }, ["true"]));
    try {
      await client.patch(JOBS, "default", "fixed", { spec: { completions: 5 } }, "application/merge-patch+json");
      throw new Error("accepted");
    } catch (error) {
      expect(error instanceof ApiError && error.message).toContain("spec.completions: Invalid value: 5: field is immutable");
    }
  });
});
