import { StoreCache } from "../admission/plugin/store-cache.js";
import type { ResourceStore } from "../registry/types.js";
import type { ServedResource } from "../server/served-resource.js";
import { groupResource } from "./served-resources.js";

/** The admission configuration resources the webhook and ValidatingAdmissionPolicy plugins read on every write. */
const CONFIGURATION_RESOURCES = [
  "mutatingwebhookconfigurations.admissionregistration.k8s.io",
  "validatingwebhookconfigurations.admissionregistration.k8s.io",
  "validatingadmissionpolicies.admissionregistration.k8s.io",
  "validatingadmissionpolicybindings.admissionregistration.k8s.io",
] as const;

export type AdmissionConfigurationCaches = Partial<Record<(typeof CONFIGURATION_RESOURCES)[number], StoreCache>>;

/**
 * A watch-fed cache of each served admission configuration resource, whose store is then served
 * (and handed to in-process clients) writing through it: a configuration's write returns once the
 * cache holds it, so the plugins read the caches instead of storage and still apply it from the
 * next request on. Replaces the stores in `served` and `stores`.
 */
export function cacheAdmissionConfigurations(served: ServedResource[], stores: Map<string, ResourceStore>): AdmissionConfigurationCaches {
  const caches: AdmissionConfigurationCaches = {};
  for (const name of CONFIGURATION_RESOURCES) {
    const store = stores.get(name);
    if (store === undefined) continue;
    const cache = new StoreCache(store);
    const writingThrough = cache.writingThrough();
    stores.set(name, writingThrough);
    const index = served.findIndex((entry) => groupResource(entry.definition) === name);
    if (index !== -1) served[index] = { ...served[index]!, store: writingThrough };
    caches[name] = cache;
  }
  return caches;
}
