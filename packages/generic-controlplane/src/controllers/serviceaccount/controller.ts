import type { KubeObject } from "../../api/types.js";
import { isApiError, type ResourceRef } from "../client.js";
import { NAMESPACES } from "../namespace/deleter.js";
import { aborted, runWorkers, type Controller, type ControllerContext } from "../runtime.js";
import { WorkQueue } from "../workqueue.js";

export const SERVICE_ACCOUNTS: ResourceRef = { group: "", version: "v1", resource: "serviceaccounts", namespaced: true };

export interface ServiceAccountControllerOptions {
  /** The service accounts every active namespace gets (default: `default`, as upstream). */
  serviceAccounts?: readonly string[];
  workers?: number;
}

/**
 * Keeps the `default` ServiceAccount in every active namespace, re-creating it when deleted
 * (upstream `pkg/controller/serviceaccount` ServiceAccountsController).
 */
export function serviceAccountController(options: ServiceAccountControllerOptions = {}): Controller {
  return {
    name: "serviceaccount",
    async run(context: ControllerContext, signal: AbortSignal) {
      const names = options.serviceAccounts ?? ["default"];
      const queue = new WorkQueue({ name: "serviceaccount", ...(context.registry !== undefined ? { registry: context.registry } : {}) });
      const namespaces = context.informers.informerFor(NAMESPACES);
      const serviceAccounts = context.informers.informerFor(SERVICE_ACCOUNTS);
      const enqueueNamespace = (ns: KubeObject) => queue.add(ns.metadata?.name ?? "");
      namespaces.addEventHandler({ add: enqueueNamespace, update: (_old, ns) => enqueueNamespace(ns) });
      serviceAccounts.addEventHandler({
        delete: (sa) => {
          if (names.includes(sa.metadata?.name ?? "")) queue.add(sa.metadata?.namespace ?? "");
        },
      });
      namespaces.start();
      serviceAccounts.start();
      // Work from complete caches only (upstream `WaitForNamedCacheSync`).
      await Promise.race([Promise.all([namespaces.waitForSync(), serviceAccounts.waitForSync()]), aborted(signal)]);
      const workers = runWorkers(
        queue,
        options.workers ?? 1,
        async (namespace) => {
          const ns = namespaces.cache.get(namespace) as (KubeObject & { status?: { phase?: string } }) | undefined;
          if (ns === undefined || ns.status?.phase !== "Active") return;
          const failures: Error[] = [];
          for (const name of names) {
            if (serviceAccounts.cache.get(`${namespace}/${name}`) !== undefined) continue;
            try {
              await context.client.create(SERVICE_ACCOUNTS, namespace, { apiVersion: "v1", kind: "ServiceAccount", metadata: { name, namespace } });
            } catch (error) {
              if (isApiError(error) && error.code === 409) continue;
              // A namespace that started terminating meanwhile refuses creates: nothing to do.
              if (isApiError(error) && error.status?.details?.causes?.some((c) => c.reason === "NamespaceTerminating")) continue;
              failures.push(error instanceof Error ? error : new Error(String(error)));
            }
          }
          if (failures.length === 1) throw failures[0]!;
          if (failures.length > 1) throw new AggregateError(failures, `[${failures.map((e) => e.message).join(", ")}]`);
        },
        context.logger,
      );
      await aborted(signal);
      await queue.shutDownWithDrain();
      await workers;
    },
  };
}
