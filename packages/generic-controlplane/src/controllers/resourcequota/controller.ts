import type { KubeObject } from "../../api/types.js";
import { isApiError, type ResourceRef } from "../client.js";
import { controllerFor } from "../builder.js";
import type { Controller } from "../runtime.js";
import type { ResourceQuota } from "../../resources/resource-quotas.js";
import { NAMESPACE_INDEX } from "../cache.js";
import type { Informer } from "../informer.js";
import { countedResource, inQuotaScope, QuotaEvaluatorRegistry, scopeRequirementsOf, type QuotaEvaluator } from "../../quota/evaluator.js";
import { addUsage, countOf, maskUsage, sameUsage, usageToList, type QuotaUsage } from "../../quota/resource-list.js";

export const RESOURCE_QUOTAS: ResourceRef = { group: "", version: "v1", resource: "resourcequotas", namespaced: true };

export interface ResourceQuotaControllerOptions {
  /** Full recount of every quota this often (kube-controller-manager's `--resource-quota-sync-period`, default 5 min). */
  resyncPeriodMs?: number;
  workers?: number;
  /** Evaluators of resources measured beyond an object count, as the ResourceQuota admission plugin has them. */
  evaluators?: readonly QuotaEvaluator[];
  /** The time evaluators measure against (default: now). */
  clock?: () => Date;
}

const sameMap = (a: Record<string, string> | undefined, b: Record<string, string>): boolean => {
  const left = a ?? {};
  return (
    Object.keys(left).length === Object.keys(b).length &&
    Object.entries(b).every(([key, value]) => Object.hasOwn(left, key) && left[key] === value)
  );
};

/**
 * Keeps each ResourceQuota's status (upstream `pkg/controller/resourcequota`): `status.hard` is
 * the spec's, `status.used` what the quota's namespace uses of each limited resource. Resources
 * with an evaluator are measured by summing its usage over the namespace's objects that fall in
 * the quota's scopes (read from informers); other object counts are the server's count of a
 * served type. A quota is recalculated when it is created or its spec changes, when an object it
 * measures is deleted or changes its usage (a pod completing or resized: the replenishment
 * upstream's monitors do; the ResourceQuota admission plugin charges creates itself), and every
 * `resyncPeriodMs`. Names nothing measures (unserved types) get no usage.
 */
export function resourceQuotaController(options: ResourceQuotaControllerOptions = {}): Controller {
  const registry = new QuotaEvaluatorRegistry(options.evaluators);
  const clock = options.clock ?? (() => new Date());
  const keyOf = (quota: KubeObject) => `${quota.metadata?.namespace ?? ""}/${quota.metadata?.name ?? ""}`;
  return controllerFor(RESOURCE_QUOTAS, {
    handlers: ({ queue }) => ({
      add: (quota) => queue.add(keyOf(quota)),
      update: (old, quota) => {
        const [before, after] = [old as ResourceQuota, quota as ResourceQuota];
        const specChanged = JSON.stringify(before.spec ?? {}) !== JSON.stringify(after.spec ?? {});
        if (specChanged || !sameMap(after.status?.hard, after.spec?.hard ?? {})) queue.add(keyOf(quota));
      },
    }),
  })
    .named("resourcequota")
    .withState(({ queue, client, context, primary: quotas, informer: informerFor, onStop }) => {
      const enqueueNamespace = (namespace: string | undefined) => {
        for (const quota of quotas.cache.byIndex(NAMESPACE_INDEX, namespace ?? "")) queue.add(keyOf(quota));
      };
      /** Watched types: deletions, and usage changes of measured ones, enqueue their namespace's quotas. */
      const monitored = new Map<string, Informer>();
      const monitor = async (ref: ResourceRef, evaluator: QuotaEvaluator | undefined): Promise<Informer> => {
        const key = `${ref.group}/${ref.resource}`;
        let informer = monitored.get(key);
        if (informer === undefined) {
          informer = informerFor(ref);
          monitored.set(key, informer);
          informer.addEventHandler({
            delete: (object) => enqueueNamespace(object.metadata?.namespace),
            ...(evaluator === undefined
              ? {}
              : {
                  update: (old: KubeObject, object: KubeObject) => {
                    const now = clock();
                    if (!sameUsage(evaluator.usage(old, now), evaluator.usage(object, now))) enqueueNamespace(object.metadata?.namespace);
                  },
                }),
          });
          informer.start();
        }
        await informer.waitForSync();
        return informer;
      };
      const resync = setInterval(() => {
        for (const quota of quotas.cache.list()) queue.add(keyOf(quota));
      }, options.resyncPeriodMs ?? 300_000);
      resync.unref();
      onStop(() => clearInterval(resync));
      /** upstream `CalculateUsage`: each evaluator's usage over the namespace's objects in the quota's scopes, zero when none. */
      const calculateUsage = async (quota: ResourceQuota, hardNames: readonly string[]): Promise<QuotaUsage> => {
        const namespace = quota.metadata?.namespace ?? "";
        const scopes = scopeRequirementsOf(quota);
        let used: QuotaUsage = new Map();
        const measured = new Set<string>();
        for (const evaluator of registry.measuring()) {
          const tracked = evaluator.matchingResources(hardNames);
          const ref = tracked.length === 0 ? undefined : await context.mapper.resource(evaluator.group, evaluator.resource);
          if (ref === undefined || !ref.namespaced) continue;
          const informer = await monitor(ref, evaluator);
          const now = clock();
          let sum: QuotaUsage = new Map(tracked.map((name) => [name, countOf(0)]));
          for (const object of informer.cache.byIndex(NAMESPACE_INDEX, namespace)) {
            if (inQuotaScope(evaluator, scopes, object)) sum = addUsage(sum, maskUsage(evaluator.usage(object, now), tracked));
          }
          used = addUsage(used, sum);
          for (const name of tracked) measured.add(name);
        }
        for (const name of hardNames) {
          const counted = measured.has(name) ? undefined : countedResource(name);
          const ref = counted === undefined ? undefined : await context.mapper.resource(counted.group, counted.resource);
          if (ref === undefined || !ref.namespaced) continue;
          await monitor(ref, undefined);
          // An object count evaluator takes no scope: a scoped quota counts none of these.
          if (scopes.length > 0) {
            used.set(name, countOf(0));
            continue;
          }
          // One item and the server's count of the rest: no full list to count a namespace.
          const page = await client.list(ref, namespace, { limit: "1" });
          used.set(name, countOf(page.items.length + (page.metadata.remainingItemCount ?? 0)));
        }
        return used;
      };
      return { calculateUsage };
    })
    .withOptions({ workers: options.workers ?? 1, queueName: "resourcequota_primary" })
    .complete(async (key, { primary: quotas, queue, client, state: { calculateUsage } }) => {
      const quota = quotas.cache.get(key) as ResourceQuota | undefined;
      if (quota === undefined) return;
      const namespace = quota.metadata?.namespace ?? "";
      const hard = { ...(quota.spec?.hard ?? {}) };
      const used = usageToList(await calculateUsage(quota, Object.keys(hard)));
      if (sameMap(quota.status?.hard, hard) && sameMap(quota.status?.used, used)) return;
      try {
        await client.update(RESOURCE_QUOTAS, namespace, { ...quota, status: { hard, used } }, "status");
      } catch (error) {
        // A create charged the quota meanwhile (409) or it went away (404): the cache brings the news.
        if (isApiError(error) && error.code === 409) {
          queue.addAfter(key, 100);
          return;
        }
        if (isApiError(error) && error.code === 404) return;
        throw error;
      }
    });
}
