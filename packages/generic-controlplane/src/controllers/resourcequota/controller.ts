import type { KubeObject } from "../../api/types.js";
import { isApiError, type ResourceRef } from "../client.js";
import { aborted, runWorkers, type Controller, type ControllerContext } from "../runtime.js";
import { WorkQueue } from "../workqueue.js";
import type { ResourceQuota } from "../../resources/resource-quotas.js";

export const RESOURCE_QUOTAS: ResourceRef = { group: "", version: "v1", resource: "resourcequotas", namespaced: true };

/** Core types counted under their bare plural, from before `count/<resource>` existed. */
const LEGACY_COUNTED = new Set(["pods", "services", "replicationcontrollers", "resourcequotas", "secrets", "configmaps", "persistentvolumeclaims"]);

export interface ResourceQuotaControllerOptions {
  /** Full recount of every quota this often (kube-controller-manager's `--resource-quota-sync-period`, default 5 min). */
  resyncPeriodMs?: number;
  workers?: number;
}

/** The group and resource a quota name counts objects of, or undefined for names that are no object count. */
export function countedResource(name: string): { group: string; resource: string } | undefined {
  if (name.startsWith("count/")) {
    const rest = name.slice("count/".length);
    const dot = rest.indexOf(".");
    return dot < 0 ? { group: "", resource: rest } : { group: rest.slice(dot + 1), resource: rest.slice(0, dot) };
  }
  return LEGACY_COUNTED.has(name) ? { group: "", resource: name } : undefined;
}

const sameMap = (a: Record<string, string> | undefined, b: Record<string, string>): boolean => {
  const left = a ?? {};
  return Object.keys(left).length === Object.keys(b).length && Object.entries(b).every(([key, value]) => left[key] === value);
};

/**
 * Keeps each ResourceQuota's status (upstream `pkg/controller/resourcequota`): `status.hard` is
 * the spec's, `status.used` counts the objects of every counted resource of a served type in the
 * quota's namespace. A quota is recounted when it is created or its spec changes, when an object
 * it counts is deleted (the replenishment upstream's monitors do: the ResourceQuota admission
 * plugin charges creates itself), and every `resyncPeriodMs`. Names that count nothing here (cpu,
 * memory, unserved types) are enforced by nobody and get no usage.
 */
export function resourceQuotaController(options: ResourceQuotaControllerOptions = {}): Controller {
  return {
    name: "resourcequota",
    async run(context: ControllerContext, signal: AbortSignal) {
      const queue = new WorkQueue({ name: "resourcequota_primary", ...(context.registry !== undefined ? { registry: context.registry } : {}) });
      const quotas = context.informers.informerFor(RESOURCE_QUOTAS);
      const keyOf = (quota: KubeObject) => `${quota.metadata?.namespace ?? ""}/${quota.metadata?.name ?? ""}`;
      const enqueueNamespace = (namespace: string | undefined) => {
        for (const quota of quotas.cache.list()) if (quota.metadata?.namespace === namespace) queue.add(keyOf(quota));
      };
      quotas.addEventHandler({
        add: (quota) => queue.add(keyOf(quota)),
        update: (old, quota) => {
          const [before, after] = [old as ResourceQuota, quota as ResourceQuota];
          const specChanged = JSON.stringify(before.spec ?? {}) !== JSON.stringify(after.spec ?? {});
          if (specChanged || !sameMap(after.status?.hard, after.spec?.hard ?? {})) queue.add(keyOf(quota));
        },
      });
      /** Counted types whose deletions already enqueue their namespace's quotas. */
      const monitored = new Set<string>();
      const monitor = (ref: ResourceRef) => {
        const key = `${ref.group}/${ref.resource}`;
        if (monitored.has(key)) return;
        monitored.add(key);
        const informer = context.informers.informerFor(ref);
        informer.addEventHandler({ delete: (object) => enqueueNamespace(object.metadata?.namespace) });
        informer.start();
      };
      quotas.start();
      await Promise.race([quotas.waitForSync(), aborted(signal)]);
      const resync = setInterval(() => {
        for (const quota of quotas.cache.list()) queue.add(keyOf(quota));
      }, options.resyncPeriodMs ?? 300_000);
      resync.unref();

      const workers = runWorkers(
        queue,
        options.workers ?? 1,
        async (key) => {
          const quota = quotas.cache.get(key) as ResourceQuota | undefined;
          if (quota === undefined) return;
          const namespace = quota.metadata?.namespace ?? "";
          const hard = { ...(quota.spec?.hard ?? {}) };
          const used: Record<string, string> = {};
          for (const name of Object.keys(hard)) {
            const counted = countedResource(name);
            const ref = counted === undefined ? undefined : await context.mapper.resource(counted.group, counted.resource);
            if (ref === undefined || !ref.namespaced) continue;
            monitor(ref);
            // One item and the server's count of the rest: no full list to count a namespace.
            const page = await context.client.list(ref, namespace, { limit: "1" });
            used[name] = String(page.items.length + (page.metadata.remainingItemCount ?? 0));
          }
          if (sameMap(quota.status?.hard, hard) && sameMap(quota.status?.used, used)) return;
          try {
            await context.client.update(RESOURCE_QUOTAS, namespace, { ...quota, status: { hard, used } }, "status");
          } catch (error) {
            // A create charged the quota meanwhile (409) or it went away (404): the cache brings the news.
            if (isApiError(error) && error.code === 409) {
              queue.addAfter(key, 100);
              return;
            }
            if (isApiError(error) && error.code === 404) return;
            throw error;
          }
        },
        context.logger,
      );
      await aborted(signal);
      clearInterval(resync);
      await queue.shutDownWithDrain();
      await workers;
    },
  };
}
