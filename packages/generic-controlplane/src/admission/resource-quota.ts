import { forbidden } from "../api/errors/index.js";
import { milliOf } from "../api/quantity.js";
import { isControlPlaneError } from "../errors.js";
import type { ResourceStore } from "../registry/types.js";
import { objectCountNames, type ResourceQuota } from "../resources/resource-quotas.js";
import { StoreCache } from "./store-cache.js";
import type { AdmissionAttributes, AdmissionPlugin } from "./types.js";

/** Conflicts on a quota's status (another create charged it first) are retried this often, as upstream. */
const MAX_CHARGE_ATTEMPTS = 5;

/** Whole objects in a quantity's text, as `resource.Quantity.String()` prints a count. */
const formatCount = (milli: bigint): string => String(milli / 1000n);

/**
 * The ResourceQuota admission plugin for object counts (upstream `plugin/pkg/admission/resourcequota`
 * with the object count evaluators): a CREATE in a namespace whose quotas limit the resource's
 * count — `count/<resource>[.<group>]`, or the bare plural for the core types — is refused with
 * 403 `exceeded quota` when it would go over, and otherwise charged to each such quota's
 * `status.used` before the object is stored, with compare-and-swap on the quota so concurrent
 * creates never both take the last unit. A quota whose status does not list the resource yet
 * (the controller has not seen it) refuses the create, as upstream does. Dry runs are checked,
 * never charged. Deleted objects are given back by the `resourcequota` controller's recount.
 * Quotas are read from a watch-fed cache (no storage read for a create in a namespace without
 * quota); a charge that meets a newer quota reads the store and evaluates again.
 */
export function resourceQuotaAdmission(quotas: ResourceStore): AdmissionPlugin & { stop(): void } {
  const cache = new StoreCache(quotas);
  return {
    stop: () => cache.stop(),
    name: "ResourceQuota",
    validate(attributes) {
      if (attributes.operation !== "CREATE" || attributes.subresource !== "" || attributes.namespace === undefined) return;
      const counted = objectCountNames(attributes.definition.group, attributes.definition.plural);
      // No quota in the namespace limits this resource (the cache can tell at once): no promise to wait for.
      const held = cache.peekNamespace(attributes.namespace) as ResourceQuota[] | undefined;
      if (held !== undefined && !held.some((quota) => counted.some((name) => quota.spec?.hard?.[name] !== undefined))) return;
      return chargeQuotas(attributes, attributes.namespace, counted);
    },
  };

  async function chargeQuotas(attributes: AdmissionAttributes, namespace: string, counted: readonly string[]): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const current = attempt === 1 ? await cache.list(namespace) : (await quotas.list(namespace)).items;
      const limiting = (current as ResourceQuota[]).filter((quota) => counted.some((name) => quota.spec?.hard?.[name] !== undefined));
      if (limiting.length === 0) return;
      const charged = limiting.map((quota) => charge(quota, counted, attributes));
      if (attributes.dryRun) return;
      try {
        for (const quota of charged) await quotas.update(namespace, quota.metadata?.name ?? "", quota, { subresource: "status" });
        return;
      } catch (error) {
        // Another create charged a quota meanwhile: evaluate again against its new usage.
        if (!(isControlPlaneError(error) && error.code === "Conflict") || attempt >= MAX_CHARGE_ATTEMPTS) throw error;
      }
    }
  }
}

/** The quota with one more object of each counted name in `status.used`, or the 403 when that goes over. */
function charge(quota: ResourceQuota, counted: readonly string[], attributes: AdmissionAttributes): ResourceQuota {
  const name = quota.metadata?.name ?? "";
  const names = counted.filter((resource) => quota.spec?.hard?.[resource] !== undefined);
  const hard = quota.status?.hard ?? {};
  const unknown = names.filter((resource) => hard[resource] === undefined);
  if (unknown.length > 0) throw refuse(attributes, `status unknown for quota: ${name}, resources: ${unknown.join(",")}`);
  const used = { ...(quota.status?.used ?? {}) };
  const over = names.filter((resource) => (milliOf(used[resource]) ?? 0n) + 1000n > (milliOf(hard[resource]) ?? 0n));
  if (over.length > 0) {
    const list = (values: (resource: string) => string) => over.map((resource) => `${resource}=${values(resource)}`).join(",");
    throw refuse(
      attributes,
      `exceeded quota: ${name}, requested: ${list(() => "1")}, used: ${list((r) => formatCount(milliOf(used[r]) ?? 0n))}, limited: ${list((r) => formatCount(milliOf(hard[r]) ?? 0n))}`,
    );
  }
  for (const resource of names) used[resource] = formatCount((milliOf(used[resource]) ?? 0n) + 1000n);
  return { ...quota, status: { ...quota.status, used } };
}

function refuse(attributes: AdmissionAttributes, why: string) {
  return forbidden({ group: attributes.definition.group, resource: attributes.definition.plural }, attributes.name, why);
}
