import type { KubeObject } from "../../api/types.js";
import { isApiError, type ResourceRef } from "../client.js";
import { NAMESPACES } from "../namespace/deleter.js";
import { controllerFor } from "../builder.js";
import type { Controller } from "../runtime.js";

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
  const names = options.serviceAccounts ?? ["default"];
  return controllerFor(NAMESPACES, { on: ["add", "update"] })
    .named("serviceaccount")
    .watches(SERVICE_ACCOUNTS, (sa) => (names.includes(sa.metadata?.name ?? "") ? (sa.metadata?.namespace ?? "") : undefined), {
      on: ["delete"],
    })
    .withOptions({ workers: options.workers ?? 1 })
    .complete(async (namespace, { primary, informer, client }) => {
      const ns = primary.cache.get(namespace) as (KubeObject & { status?: { phase?: string } }) | undefined;
      if (ns === undefined || ns.status?.phase !== "Active") return;
      const serviceAccounts = informer(SERVICE_ACCOUNTS);
      const failures: Error[] = [];
      for (const name of names) {
        if (serviceAccounts.cache.get(`${namespace}/${name}`) !== undefined) continue;
        try {
          await client.create(SERVICE_ACCOUNTS, namespace, { apiVersion: "v1", kind: "ServiceAccount", metadata: { name, namespace } });
        } catch (error) {
          if (isApiError(error) && error.code === 409) continue;
          // A namespace that started terminating meanwhile refuses creates: nothing to do.
          if (isApiError(error) && error.status?.details?.causes?.some((c) => c.reason === "NamespaceTerminating")) continue;
          failures.push(error instanceof Error ? error : new Error(String(error)));
        }
      }
      if (failures.length === 1) throw failures[0]!;
      if (failures.length > 1) throw new AggregateError(failures, `[${failures.map((e) => e.message).join(", ")}]`);
    });
}
