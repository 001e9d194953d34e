import type { KubeObject } from "@kubekit/generic-controlplane";
import { isApiError, isNotFound, runWorkers, splitKey, WorkQueue, type Controller, type ControllerContext, type Requeue } from "@kubekit/generic-controlplane/controllers";
import { isJobFinished, jobCondition, type Job } from "../resources/jobs.js";
import { JOBS } from "../refs.js";
import { aborted, keyOf } from "./util.js";

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
  return {
    name: "ttl-after-finished-controller",
    async run(context: ControllerContext, signal: AbortSignal) {
      const queue = new WorkQueue({ name: "ttl_jobs_to_delete", ...(context.registry !== undefined ? { registry: context.registry } : {}) });
      const jobs = context.informers.informerFor(JOBS);
      const enqueue = (job: KubeObject) => {
        if (expiresAt(job) !== undefined) queue.add(keyOf(job));
      };
      jobs.addEventHandler({ add: enqueue, update: (_old, job) => enqueue(job) });
      jobs.start();
      await Promise.race([jobs.waitForSync(), aborted(signal)]);
      const workers = runWorkers(
        queue,
        1,
        async (key): Promise<void | Requeue> => {
          const cached = jobs.cache.get(key) as Job | undefined;
          if (cached === undefined) return;
          const at = expiresAt(cached);
          if (at === undefined) return;
          if (at > Date.now()) return { requeueAfterMs: at - Date.now() + 10 };
          const { namespace, name } = splitKey(key);
          try {
            const fresh = await context.client.get<Job>(JOBS, namespace, name);
            const freshAt = expiresAt(fresh);
            if (freshAt === undefined) return;
            if (freshAt > Date.now()) return { requeueAfterMs: freshAt - Date.now() + 10 };
            await context.client.delete(JOBS, namespace, name, { propagationPolicy: "Foreground", preconditions: { uid: fresh.metadata?.uid ?? "", resourceVersion: fresh.metadata?.resourceVersion ?? "" } });
          } catch (error) {
            if (isNotFound(error) || (isApiError(error) && error.code === 409)) return;
            throw error;
          }
        },
        context.logger,
      );
      await aborted(signal);
      await queue.shutDownWithDrain();
      await workers;
    },
  };
}
