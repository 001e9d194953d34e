import { forbidden } from "../../api/errors/index.js";
import type { KubeObject } from "../../api/types.js";
import { isControlPlaneError } from "../../api/errors/control-plane-error.js";
import { inQuotaScope, QuotaEvaluatorRegistry, scopeRequirementsOf, type QuotaEvaluator } from "../../quota/evaluator.js";
import {
  addUsage,
  exceededNames,
  isZeroUsage,
  maskUsage,
  prettyPrintUsage,
  subtractNonNegative,
  usageOf,
  usageToList,
} from "../../quota/resource-list.js";
import type { ResourceStore } from "../../registry/types.js";
import type { ResourceQuota } from "../../resources/resource-quotas.js";
import { StoreCache } from "./store-cache.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../types.js";

/** Conflicts on a quota's status (another request charged it first) are retried this often, as upstream. */
const MAX_CHARGE_ATTEMPTS = 5;

export interface ResourceQuotaAdmissionOptions {
  /** Evaluators of resources measured beyond an object count (pods' requests, services' node ports…). */
  evaluators?: readonly QuotaEvaluator[];
  /** The time pod-like evaluators measure against (default: now). */
  clock?: () => Date;
}

const createsResource = (attributes: AdmissionAttributes): boolean => attributes.operation === "CREATE" && attributes.subresource === "";

/**
 * The ResourceQuota admission plugin (upstream `plugin/pkg/admission/resourcequota`): a request
 * an evaluator handles (by default a CREATE) in a namespace with quotas is measured; each quota
 * whose `status.hard` names a resource the evaluator tracks and whose scopes take the object is
 * checked in order — the evaluator's constraints (`failed quota: …`), a status the controller has
 * not calculated yet (`status unknown for quota: …`), then the new usage against the hard limits
 * (`exceeded quota: <name>, requested: …, used: …, limited: …`), each a 403 — and charged to its
 * `status.used` before the object is stored, with compare-and-swap so concurrent requests never
 * both take the last unit. An update is charged what it adds over the old object. Dry runs are
 * checked, never charged. What deletes and completions give back the `resourcequota` controller's
 * recount returns. Quotas are read from a watch-fed cache; a charge that meets a newer quota reads
 * the store and evaluates again.
 */
export function resourceQuotaAdmission(
  quotas: ResourceStore,
  options: ResourceQuotaAdmissionOptions = {},
): AdmissionPlugin & { stop(): void } {
  const cache = new StoreCache(quotas);
  const registry = new QuotaEvaluatorRegistry(options.evaluators);
  const clock = options.clock ?? (() => new Date());
  return {
    stop: () => cache.stop(),
    name: "ResourceQuota",
    validate(attributes) {
      if (attributes.namespace === undefined || attributes.object === undefined) return;
      const evaluator = registry.get(attributes.definition.group, attributes.definition.plural);
      if (!(evaluator.handles?.(attributes) ?? createsResource(attributes))) return;
      // No quota in the namespace tracks this resource (the cache can tell at once): no promise to wait for.
      const held = cache.peekNamespace(attributes.namespace) as ResourceQuota[] | undefined;
      if (held !== undefined && !held.some((quota) => evaluator.matchingResources(hardNamesOf(quota)).length > 0)) return;
      return chargeQuotas(attributes, attributes.namespace, evaluator);
    },
  };

  async function chargeQuotas(attributes: AdmissionAttributes, namespace: string, evaluator: QuotaEvaluator): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const current = (attempt === 1 ? await cache.list(namespace) : (await quotas.list(namespace)).items) as ResourceQuota[];
      const charged = evaluate(attributes, evaluator, [...current].sort(byName));
      if (charged.length === 0 || attributes.dryRun) return;
      try {
        for (const quota of charged) await quotas.update(namespace, quota.metadata?.name ?? "", quota, { subresource: "status" });
        return;
      } catch (error) {
        // Another request charged a quota meanwhile: evaluate again against its new usage.
        if (!(isControlPlaneError(error) && error.code === "Conflict") || attempt >= MAX_CHARGE_ATTEMPTS) throw error;
      }
    }
  }

  /** upstream `CheckRequest`: the quotas with the request's usage added, or the 403 that refuses it. */
  function evaluate(
    attributes: AdmissionAttributes,
    evaluator: QuotaEvaluator,
    quotasInNamespace: readonly ResourceQuota[],
  ): ResourceQuota[] {
    const object = attributes.object as KubeObject;
    const interesting: ResourceQuota[] = [];
    for (const quota of quotasInNamespace) {
      const tracked = evaluator.matchingResources(hardNamesOf(quota));
      if (tracked.length === 0 || !inQuotaScope(evaluator, scopeRequirementsOf(quota), object)) continue;
      const name = quota.metadata?.name ?? "";
      const broken = evaluator.constraints?.(tracked, object);
      if (broken !== undefined) throw refuse(attributes, `failed quota: ${name}: ${broken}`);
      const used = quota.status?.used ?? {};
      if (tracked.some((resource) => !Object.hasOwn(used, resource)))
        throw refuse(attributes, `status unknown for quota: ${name}, resources: ${[...tracked].sort().join(",")}`);
      interesting.push(quota);
    }
    if (interesting.length === 0) return [];
    const now = clock();
    let delta = evaluator.usage(object, now);
    // An update is charged what it adds; an update that creates (no resourceVersion before) pays in full.
    if (attributes.operation === "UPDATE" && attributes.oldObject?.metadata?.resourceVersion)
      delta = subtractNonNegative(delta, evaluator.usage(attributes.oldObject, now));
    if (isZeroUsage(delta)) return [];
    return interesting.map((quota) => {
      const hard = usageOf(quota.status?.hard);
      const used = usageOf(quota.status?.used);
      const requested = maskUsage(delta, hard.keys());
      const newUsage = addUsage(used, requested);
      const exceeded = exceededNames(maskUsage(newUsage, requested.keys()), hard);
      if (exceeded.length > 0) {
        throw refuse(
          attributes,
          `exceeded quota: ${quota.metadata?.name ?? ""}, requested: ${prettyPrintUsage(maskUsage(requested, exceeded))}, used: ${prettyPrintUsage(maskUsage(used, exceeded))}, limited: ${prettyPrintUsage(maskUsage(hard, exceeded))}`,
        );
      }
      return { ...quota, status: { ...quota.status, used: usageToList(newUsage) } };
    });
  }
}

/** The names a quota limits: its status's, and its spec's before the controller has copied them (then refused as status unknown). */
const hardNamesOf = (quota: ResourceQuota): string[] => [
  ...new Set([...Object.keys(quota.spec?.hard ?? {}), ...Object.keys(quota.status?.hard ?? {})]),
];

const byName = (a: KubeObject, b: KubeObject): number => (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? "");

function refuse(attributes: AdmissionAttributes, why: string) {
  return forbidden({ group: attributes.definition.group, resource: attributes.definition.plural }, attributes.name, why);
}
