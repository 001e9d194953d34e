import { controllerFor, isApiError, isNotFound, splitKey, type Controller, type Requeue } from "@kubekit/generic-controlplane/controllers";
import { isJobFinished, jobCondition, type Job } from "../resources/jobs.js";
import { JOBS } from "../refs.js";
import { keyOf } from "./util.js";

/** When a finished Job with `ttlSecondsAfterFinished` expires (ms), from its Complete or Failed condition. */
function expiresAt(job: Job): number | undefined {
  const ttl = job.spec?.ttlSecondsAfterFinished;
  if (ttl === undefined || !isJobFinished(job) || job.metadata?.deletionTimestamp !== undefined) return undefined;
  const finishedAt = Date.parse((jobCondition(job, "Complete") ?? jobCondition(job, "Failed"))?.lastTransitionTime ?? "");
  return Number.isFinite(finishedAt) ? finishedAt + ttl * 1000 : undefined;
}

/**
 * The TTL-after-finished controller (`ttl-after-finished-controller`): deletes a finished Job
 * `ttlSecondsAfterFinished` after it finished, in the foreground (its pods go first), checking a
 * fresh copy first so a TTL changed meanwhile is honoured.
 */
export function ttlAfterFinishedController(): Controller {
  return controllerFor(JOBS, { on: [] })
    .named("ttl-after-finished-controller")
    .watches(JOBS, (job) => (expiresAt(job) === undefined ? undefined : keyOf(job)), { on: ["add", "update"] })
    .withOptions({ workers: 1, queueName: "ttl_jobs_to_delete" })
    .complete(async (key, { primary: jobs, client }): Promise<void | Requeue> => {
      const cached = jobs.cache.get(key) as Job | undefined;
      if (cached === undefined) return;
      const at = expiresAt(cached);
      if (at === undefined) return;
      if (at > Date.now()) return { requeueAfterMs: at - Date.now() + 10 };
      const { namespace, name } = splitKey(key);
      try {
        const fresh = await client.get<Job>(JOBS, namespace, name);
        const freshAt = expiresAt(fresh);
        if (freshAt === undefined) return;
        if (freshAt > Date.now()) return { requeueAfterMs: freshAt - Date.now() + 10 };
        await client.delete(JOBS, namespace, name, {
          propagationPolicy: "Foreground",
          preconditions: { uid: fresh.metadata?.uid ?? "", resourceVersion: fresh.metadata?.resourceVersion ?? "" },
        });
      } catch (error) {
        if (isNotFound(error) || (isApiError(error) && error.code === 409)) return;
        throw error;
      }
    });
}
