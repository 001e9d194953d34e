import type { KubeObject } from "@kubekit/generic-controlplane";
import { isNotFound, type KubeClient } from "@kubekit/generic-controlplane/controllers";
import { COMPLETION_INDEX, JOB_TRACKING_FINALIZER, type Job } from "../resources/jobs.js";
import type { Container } from "../resources/pod-spec.js";
import type { Pod } from "../resources/pods.js";
import { PODS } from "../refs.js";
import { completionIndexOf } from "./job-indexes.js";
import { isPodReady, ownerReferenceTo } from "./util.js";

/** The number of failures of an index before this pod (backoffLimitPerIndex). */
export const INDEX_FAILURE_COUNT = "batch.kubernetes.io/job-index-failure-count";
const MERGE_PATCH = "application/merge-patch+json";
/** Upstream's limit on a generated name's prefix (the API adds 5 random characters). */
const MAX_GENERATE_NAME = 58;

export function hasTrackingFinalizer(pod: KubeObject): boolean {
  return pod.metadata?.finalizers?.includes(JOB_TRACKING_FINALIZER) === true;
}

/** onlyReplaceFailedPods: a replacement waits for the pod to be Failed, not only terminating. */
export function onlyReplaceFailedPods(job: Job): boolean {
  return job.spec?.podReplacementPolicy === "Failed" || job.spec?.podFailurePolicy !== undefined;
}

/** isPodFailed: Failed; or, unless replacements wait for Failed, being deleted before it succeeded (an orphan may never reach Failed). */
export function isPodFailed(pod: Pod, job: Job): boolean {
  if (pod.status?.phase === "Failed") return true;
  if (onlyReplaceFailedPods(job)) return false;
  return pod.metadata?.deletionTimestamp !== undefined && pod.status?.phase !== "Succeeded";
}

/** A pod for `job` as its template says, with the tracking finalizer, and for an Indexed Job its index. */
export function jobPod(job: Job, index: number | undefined, failureCount: number | undefined): Pod {
  const template = structuredClone(job.spec?.template ?? {});
  const name = job.metadata?.name ?? "";
  const labels = { ...(template.metadata?.labels ?? {}) };
  const annotations = { ...(template.metadata?.annotations ?? {}) };
  const spec = template.spec ?? {};
  let generateName = `${name}-`;
  if (index !== undefined) {
    annotations[COMPLETION_INDEX] = String(index);
    labels[COMPLETION_INDEX] = String(index);
    if (failureCount !== undefined) annotations[INDEX_FAILURE_COUNT] = String(failureCount);
    spec.hostname = `${name}-${index}`;
    generateName = `${name}-${index}-`;
    for (const container of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) addIndexEnv(container);
  }
  if (generateName.length > MAX_GENERATE_NAME) generateName = generateName.slice(0, MAX_GENERATE_NAME);
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: {
      generateName,
      namespace: job.metadata?.namespace ?? "",
      labels,
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
      finalizers: [...new Set([...(template.metadata?.finalizers ?? []), JOB_TRACKING_FINALIZER])],
      ownerReferences: [ownerReferenceTo(job, "batch/v1", "Job")],
    },
    spec,
  };
}

/** addCompletionIndexEnvVariable: JOB_COMPLETION_INDEX from the pod's index annotation, unless the container sets it. */
function addIndexEnv(container: Container): void {
  const env = (Array.isArray(container["env"]) ? container["env"] : []) as Array<{ name?: string }>;
  if (env.some((e) => e.name === "JOB_COMPLETION_INDEX")) return;
  container["env"] = [
    ...env,
    {
      name: "JOB_COMPLETION_INDEX",
      valueFrom: { fieldRef: { apiVersion: "v1", fieldPath: `metadata.annotations['${COMPLETION_INDEX}']` } },
    },
  ];
}

/** Removes the tracking finalizer; true once it is gone (or the pod is). */
export async function removeTrackingFinalizer(client: KubeClient, pod: Pod): Promise<boolean> {
  if (!hasTrackingFinalizer(pod)) return true;
  const finalizers = (pod.metadata?.finalizers ?? []).filter((f) => f !== JOB_TRACKING_FINALIZER);
  try {
    await client.patch(
      PODS,
      pod.metadata?.namespace,
      pod.metadata?.name ?? "",
      { metadata: { finalizers: finalizers.length > 0 ? finalizers : null } },
      MERGE_PATCH,
    );
    return true;
  } catch (error) {
    if (isNotFound(error)) return true;
    throw error;
  }
}

/** controller.ActivePods order, most deletable first: unscheduled, pending, not ready, newest. */
function removalRank(pod: Pod): number[] {
  return [
    pod.spec?.nodeName ? 1 : 0,
    pod.status?.phase === "Pending" ? 0 : pod.status?.phase === "Running" ? 2 : 1,
    isPodReady(pod) ? 1 : 0,
    -Date.parse(pod.metadata?.creationTimestamp ?? "0"),
  ];
}

export function byRemovalOrder(a: Pod, b: Pod): number {
  const ra = removalRank(a);
  const rb = removalRank(b);
  for (let i = 0; i < ra.length; i++) if (ra[i] !== rb[i]) return ra[i]! - rb[i]!;
  return 0;
}

/**
 * activePodsForRemoval: for an Indexed Job first the pods without a valid index or repeating
 * another's, then the most deletable of the rest up to `atLeast` in all.
 */
export function activePodsForRemoval(job: Job, active: readonly Pod[], atLeast: number): Pod[] {
  const ordered = [...active].sort(byRemovalOrder);
  if (job.spec?.completionMode !== "Indexed") return ordered.slice(0, atLeast);
  const completions = job.spec.completions ?? 0;
  const remove: Pod[] = [];
  const keep: Pod[] = [];
  const seen = new Set<number>();
  // The best pod of an index is kept: walk from the least deletable.
  for (const pod of [...ordered].reverse()) {
    const index = completionIndexOf(pod);
    if (index === undefined || index >= completions || seen.has(index)) remove.push(pod);
    else {
      seen.add(index);
      keep.unshift(pod);
    }
  }
  return [...remove, ...keep.slice(0, Math.max(0, atLeast - remove.length))];
}
