import type { AdmissionAttributes } from "../admission/types.js";
import type { KubeObject } from "../api/types.js";
import { countOf, type QuotaUsage } from "./resource-list.js";

/** One requirement of a quota's scope (`spec.scopes` entries are `Exists` requirements). */
export interface QuotaScopeRequirement {
  scopeName: string;
  operator: string;
  values?: readonly string[];
}

/**
 * Measures what objects of one resource use of quota (upstream `quota.Evaluator`), the extension
 * point of ResourceQuota: admission charges what `usage` says for each request `handles`, and the
 * `resourcequota` controller sums `usage` over the namespace's objects that fall in each quota's
 * scopes. Resources without an evaluator get the object count one.
 */
export interface QuotaEvaluator<T extends KubeObject = KubeObject> {
  /** The API group and plural measured. */
  readonly group: string;
  readonly resource: string;
  /** The quota resource names among `names` this evaluator measures (`MatchingResources`). */
  matchingResources(names: readonly string[]): string[];
  /** What one object uses (`Usage`); `now` decides time-bound rules such as an expired deletion grace. */
  usage(object: T, now: Date): QuotaUsage;
  /** Whether a request changes usage (`Handles`); default: a create of the resource itself. */
  handles?(attributes: AdmissionAttributes): boolean;
  /** Whether the object falls under a scope requirement; default: under none, so scoped quotas never count it. */
  matchesScope?(requirement: QuotaScopeRequirement, object: T): boolean;
  /** Why the object may not be admitted under a quota tracking `tracked` (`Constraints`), or undefined. */
  constraints?(tracked: readonly string[], object: T): string | undefined;
}

/** Core types that had quota before `count/<resource>` existed, counted under their bare plural too. */
const LEGACY_COUNTED = new Set([
  "pods",
  "services",
  "replicationcontrollers",
  "resourcequotas",
  "secrets",
  "configmaps",
  "persistentvolumeclaims",
]);

/** The quota name that counts objects of a resource (`ObjectCountQuotaResourceNameFor`). */
export const objectCountName = (group: string, resource: string): string =>
  group === "" ? `count/${resource}` : `count/${resource}.${group}`;

/**
 * The quota names that count objects of a resource: `count/<resource>[.<group>]`, and for the
 * core types that had quota before it the bare plural.
 */
export function objectCountNames(group: string, resource: string): string[] {
  const names = [objectCountName(group, resource)];
  if (group === "" && LEGACY_COUNTED.has(resource)) names.push(resource);
  return names;
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

/** The evaluator every resource gets by default (upstream `generic.NewObjectCountEvaluator`): one object each, creates only. */
export function objectCountEvaluator(group: string, resource: string): QuotaEvaluator & { readonly countsObjects: true } {
  const names = objectCountNames(group, resource);
  return {
    group,
    resource,
    countsObjects: true,
    matchingResources: (input) => input.filter((name) => names.includes(name)),
    usage: () => new Map(names.map((name) => [name, countOf(1)])),
  };
}

/** The evaluators in effect: the registered ones by group and resource, else an object count one. */
export class QuotaEvaluatorRegistry {
  readonly #evaluators = new Map<string, QuotaEvaluator>();

  constructor(evaluators: readonly QuotaEvaluator[] = []) {
    for (const evaluator of evaluators) this.#evaluators.set(`${evaluator.resource}.${evaluator.group}`, evaluator);
  }

  get(group: string, resource: string): QuotaEvaluator {
    const key = `${resource}.${group}`;
    let evaluator = this.#evaluators.get(key);
    if (evaluator === undefined) {
      evaluator = objectCountEvaluator(group, resource);
      this.#evaluators.set(key, evaluator);
    }
    return evaluator;
  }

  /** The registered evaluators that measure more than an object count (they need every object, not a count). */
  measuring(): QuotaEvaluator[] {
    return [...this.#evaluators.values()].filter((evaluator) => !("countsObjects" in evaluator));
  }
}

/** A quota's scope requirements: `spec.scopes` as `Exists`, then `spec.scopeSelector.matchExpressions`. */
export function scopeRequirementsOf(quota: {
  spec?: { scopes?: string[]; scopeSelector?: { matchExpressions?: Array<{ scopeName?: string; operator?: string; values?: string[] }> } };
}): QuotaScopeRequirement[] {
  return [
    ...(quota.spec?.scopes ?? []).map((scopeName) => ({ scopeName, operator: "Exists" })),
    ...(quota.spec?.scopeSelector?.matchExpressions ?? []).map((e) => ({
      scopeName: e.scopeName ?? "",
      operator: e.operator ?? "",
      ...(e.values !== undefined ? { values: e.values } : {}),
    })),
  ];
}

/** Whether the object falls under every scope requirement of the quota (no requirement: it does). */
export function inQuotaScope(evaluator: QuotaEvaluator, requirements: readonly QuotaScopeRequirement[], object: KubeObject): boolean {
  return requirements.every((requirement) => evaluator.matchesScope?.(requirement, object) ?? false);
}
