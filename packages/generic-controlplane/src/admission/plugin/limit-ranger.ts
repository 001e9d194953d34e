import { forbidden } from "../../api/errors/index.js";
import type { KubeObject } from "../../api/types.js";
import { milliOf, quantityText } from "../../api/quantity.js";
import type { ResourceStore } from "../../registry/types.js";
import type { LimitRange, LimitRangeItem, ResourceList } from "../../resources/limit-ranges.js";
import { StoreCache } from "./store-cache.js";
import type { AdmissionAttributes, AdmissionPlugin } from "../types.js";

interface Container {
  name?: string;
  resources?: { limits?: ResourceList; requests?: ResourceList };
}

interface PodLike extends KubeObject {
  spec?: { containers?: Container[]; initContainers?: Container[] };
}

/** The annotation upstream's plugin records its defaults in. */
export const LIMIT_RANGER_ANNOTATION = "kubernetes.io/limit-ranger";

const isPodCreate = (attributes: AdmissionAttributes): boolean =>
  attributes.operation === "CREATE" &&
  attributes.subresource === "" &&
  attributes.definition.group === "" &&
  attributes.definition.plural === "pods" &&
  attributes.namespace !== undefined;

/**
 * The LimitRanger admission plugin (upstream `plugin/pkg/admission/limitranger`) for pods, when a
 * consumer serves them: on create, each container without a request or limit gets the
 * namespace's Container defaults (`defaultRequest`, `default`), recorded in the
 * `kubernetes.io/limit-ranger` annotation; then every Container and Pod item's `min`, `max` and
 * `maxLimitRequestRatio` are checked, refusing with upstream's 403 and messages. A limit given
 * without a request counts as that request first, as API defaulting would have made it.
 * LimitRanges are read from a watch-fed cache.
 */
export function limitRanger(limitRanges: ResourceStore): AdmissionPlugin & { stop(): void } {
  const cache = new StoreCache(limitRanges);
  const itemsIn = async (namespace: string): Promise<LimitRangeItem[]> =>
    ((await cache.list(namespace)) as LimitRange[]).flatMap((range) => range.spec?.limits ?? []);

  async function admitPod(attributes: AdmissionAttributes): Promise<void> {
    const items = (await itemsIn(attributes.namespace!)).filter((item) => item.type === "Container");
    if (items.length === 0) return;
    const defaults: { limits: ResourceList; requests: ResourceList } = { limits: {}, requests: {} };
    for (const item of items) {
      // Spread, not Object.assign: a resource name is a plain key, `__proto__` included.
      defaults.limits = { ...defaults.limits, ...item.default };
      defaults.requests = { ...defaults.requests, ...item.defaultRequest };
    }
    const pod = attributes.object as PodLike;
    const notes: string[] = [];
    for (const [containers, kind] of [
      [pod.spec?.initContainers ?? [], "init container"],
      [pod.spec?.containers ?? [], "container"],
    ] as const) {
      for (const container of containers) notes.push(...applyDefaults(container, defaults, kind));
    }
    if (notes.length > 0) {
      pod.metadata ??= {};
      pod.metadata.annotations = { ...pod.metadata.annotations, [LIMIT_RANGER_ANNOTATION]: `LimitRanger plugin set: ${notes.join("; ")}` };
    }
  }

  async function validatePod(attributes: AdmissionAttributes): Promise<void> {
    const items = await itemsIn(attributes.namespace!);
    if (items.length === 0) return;
    const pod = attributes.object as PodLike;
    const errors: string[] = [];
    for (const item of items) {
      if (item.type === "Container") {
        for (const container of [...(pod.spec?.initContainers ?? []), ...(pod.spec?.containers ?? [])]) {
          errors.push(...constraints(item, "Container", effective(container)));
        }
      } else if (item.type === "Pod") {
        errors.push(...constraints(item, "Pod", podTotals(pod)));
      }
    }
    if (errors.length > 0) {
      throw forbidden({ group: "", resource: "pods" }, attributes.name, errors.length === 1 ? errors[0]! : `[${errors.join(", ")}]`);
    }
  }

  // Anything but a pod create is answered at once, with no promise to wait for.
  const applies = (attributes: AdmissionAttributes): boolean => isPodCreate(attributes) && attributes.object !== undefined;
  return {
    name: "LimitRanger",
    stop: () => cache.stop(),
    admit: (attributes) => (applies(attributes) ? admitPod(attributes) : undefined),
    validate: (attributes) => (applies(attributes) ? validatePod(attributes) : undefined),
  };
}

/** Sets what the container lacks; returns the annotation's notes (`cpu, memory request for container app`). */
function applyDefaults(container: Container, defaults: { limits: ResourceList; requests: ResourceList }, kind: string): string[] {
  const resources = (container.resources ??= {});
  const limits = (resources.limits ??= {});
  const requests = (resources.requests ??= {});
  // API defaulting runs before admission upstream: a limit without a request is that request.
  for (const [name, value] of Object.entries(limits)) requests[name] ??= value;
  const setLimits = Object.keys(defaults.limits).filter((name) => limits[name] === undefined);
  const setRequests = Object.keys(defaults.requests).filter((name) => requests[name] === undefined);
  for (const name of setLimits) limits[name] = defaults.limits[name]!;
  for (const name of setRequests) requests[name] = defaults.requests[name]!;
  if (Object.keys(limits).length === 0) delete resources.limits;
  if (Object.keys(requests).length === 0) delete resources.requests;
  const notes: string[] = [];
  if (setRequests.length > 0) notes.push(`${setRequests.sort().join(", ")} request for ${kind} ${container.name ?? ""}`);
  if (setLimits.length > 0) notes.push(`${setLimits.sort().join(", ")} limit for ${kind} ${container.name ?? ""}`);
  return notes;
}

interface Usage {
  requests: Map<string, { milli: bigint; text: string }>;
  limits: Map<string, { milli: bigint; text: string }>;
}

function effective(container: Container): Usage {
  const read = (list: ResourceList | undefined) => {
    const out = new Map<string, { milli: bigint; text: string }>();
    for (const [name, value] of Object.entries(list ?? {})) {
      const parsed = milliOf(value);
      if (parsed !== undefined) out.set(name, { milli: parsed, text: quantityText(value)! });
    }
    return out;
  };
  const limits = read(container.resources?.limits);
  const requests = read(container.resources?.requests);
  for (const [name, value] of limits) if (!requests.has(name)) requests.set(name, value);
  return { requests, limits };
}

/** The pod's effective usage: the sum over its containers, or the largest init container when that is more. */
function podTotals(pod: PodLike): Usage {
  const sum = (usages: Usage[], key: keyof Usage) => {
    const out = new Map<string, { milli: bigint; text: string }>();
    for (const usage of usages) {
      for (const [name, value] of usage[key]) {
        const total = (out.get(name)?.milli ?? 0n) + value.milli;
        out.set(name, { milli: total, text: formatMilli(total) });
      }
    }
    return out;
  };
  const containers = (pod.spec?.containers ?? []).map(effective);
  const totals: Usage = { requests: sum(containers, "requests"), limits: sum(containers, "limits") };
  for (const init of (pod.spec?.initContainers ?? []).map(effective)) {
    for (const key of ["requests", "limits"] as const) {
      for (const [name, value] of init[key]) if ((totals[key].get(name)?.milli ?? -1n) < value.milli) totals[key].set(name, value);
    }
  }
  return totals;
}

/** A milli-value the way `resource.Quantity.String()` prints a decimal quantity. */
function formatMilli(value: bigint): string {
  return value % 1000n === 0n ? String(value / 1000n) : `${value}m`;
}

/** upstream `minConstraint`, `maxConstraint` and `limitRequestRatioConstraint`, with their messages. */
function constraints(item: LimitRangeItem, type: "Container" | "Pod", usage: Usage): string[] {
  const errors: string[] = [];
  for (const [name, text] of Object.entries(item.min ?? {})) {
    const enforced = milliOf(text)!;
    const request = usage.requests.get(name);
    const limit = usage.limits.get(name);
    if (request === undefined) errors.push(`minimum ${name} usage per ${type} is ${text}.  No request is specified`);
    else if (request.milli < enforced) errors.push(`minimum ${name} usage per ${type} is ${text}, but request is ${request.text}`);
    else if (limit !== undefined && limit.milli < enforced)
      errors.push(`minimum ${name} usage per ${type} is ${text}, but limit is ${limit.text}`);
  }
  for (const [name, text] of Object.entries(item.max ?? {})) {
    const enforced = milliOf(text)!;
    const request = usage.requests.get(name);
    const limit = usage.limits.get(name);
    if (limit === undefined) errors.push(`maximum ${name} usage per ${type} is ${text}.  No limit is specified`);
    else if (limit.milli > enforced) errors.push(`maximum ${name} usage per ${type} is ${text}, but limit is ${limit.text}`);
    else if (request !== undefined && request.milli > enforced)
      errors.push(`maximum ${name} usage per ${type} is ${text}, but request is ${request.text}`);
  }
  for (const [name, text] of Object.entries(item.maxLimitRequestRatio ?? {})) {
    const enforced = milliOf(text)!;
    const request = usage.requests.get(name);
    const limit = usage.limits.get(name);
    if (request === undefined || request.milli === 0n)
      errors.push(`${name} max limit to request ratio per ${type} is ${text}, but no request is specified or request is 0`);
    else if (limit === undefined || limit.milli === 0n)
      errors.push(`${name} max limit to request ratio per ${type} is ${text}, but no limit is specified or limit is 0`);
    else if (limit.milli * 1000n > enforced * request.milli) {
      errors.push(
        `${name} max limit to request ratio per ${type} is ${text}, but provided ratio is ${(Number(limit.milli) / Number(request.milli)).toFixed(6)}`,
      );
    }
  }
  return errors;
}
