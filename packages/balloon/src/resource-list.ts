import { BalloonError } from "./errors.js";
import { isQualifiedName, Quantity, QuantityError } from "@kubekit/apimachinery";

/**
 * A set of named resource amounts, like a container's `resources.requests` or a node's
 * `status.allocatable`: `cpu`, `memory`, `ephemeral-storage`, `hugepages-<size>`, `pods`, or an
 * extended resource such as `nvidia.com/gpu`. `JSON.stringify` gives the canonical strings.
 */
export type ResourceList = Readonly<Record<string, Quantity>>;

/** What Kubernetes accepts in a resource list read from YAML or JSON: strings or plain numbers. */
export type ResourceListInput = Readonly<Record<string, string | number | Quantity>>;

/** True when `name` is a valid resource name (a Kubernetes qualified name, `IsQualifiedName`). */
export function isResourceName(name: string): boolean {
  return isQualifiedName(name).length === 0;
}

function checkName(name: string, context: string): void {
  if (!isResourceName(name)) {
    throw new BalloonError("invalid-resource-list", `${context}: ${JSON.stringify(name)} is not a valid resource name`);
  }
}

function parseEntry(name: string, value: string | number | Quantity, context: string): Quantity {
  if (value instanceof Quantity) return value;
  // Like apimachinery's UnmarshalJSON: numbers are read through their text, surrounding spaces are trimmed.
  const text = typeof value === "number" ? String(value) : value.trim();
  try {
    return Quantity.parse(text);
  } catch (error) {
    const reason = error instanceof QuantityError ? error.message : String(error);
    throw new BalloonError(
      error instanceof QuantityError && error.code !== "invalid-argument" ? error.code : "invalid-resource-list",
      `${context}: resource ${JSON.stringify(name)}: ${reason}`,
      { cause: error },
    );
  }
}

/** A `ResourceList` from an object as found in a manifest (`{ cpu: "2", memory: "8Gi" }`). */
export function resourceList(input: ResourceListInput = {}, context = "resource list"): ResourceList {
  const result: Record<string, Quantity> = {};
  for (const [name, value] of Object.entries(input)) {
    checkName(name, context);
    result[name] = parseEntry(name, value, context);
  }
  return result;
}

/**
 * Parses the command-line spelling `cpu=8,memory=32Gi` (also accepting spaces after commas).
 * A name given twice is an error rather than a silent override.
 */
export function parseResourceList(text: string, context = "resource list"): ResourceList {
  const result: Record<string, Quantity> = {};
  const trimmed = text.trim();
  if (trimmed === "") return result;
  for (const item of trimmed.split(",")) {
    const entry = item.trim();
    const eq = entry.indexOf("=");
    if (eq <= 0) {
      throw new BalloonError(
        "invalid-resource-list",
        `${context}: expected name=quantity, got ${JSON.stringify(entry)} in ${JSON.stringify(text)}`,
      );
    }
    const name = entry.slice(0, eq).trim();
    checkName(name, context);
    if (Object.hasOwn(result, name)) {
      throw new BalloonError("invalid-resource-list", `${context}: resource ${JSON.stringify(name)} is given twice`);
    }
    result[name] = parseEntry(name, entry.slice(eq + 1), context);
  }
  return result;
}

/** `cpu=2,memory=8Gi`: the inverse of `parseResourceList`, in canonical quantities. */
export function formatResourceList(list: ResourceList): string {
  return Object.entries(list)
    .map(([name, quantity]) => `${name}=${quantity.toString()}`)
    .join(",");
}

/** The canonical strings, as a manifest or a resize patch carries them. */
export function resourceListStrings(list: ResourceList): Record<string, string> {
  return Object.fromEntries(Object.entries(list).map(([name, quantity]) => [name, quantity.toString()]));
}

function namesOf(lists: readonly ResourceList[]): string[] {
  const names = new Set<string>();
  for (const list of lists) for (const name of Object.keys(list)) names.add(name);
  return [...names];
}

/** The amount of `name` in `list`, zero when absent. */
export function amountOf(list: ResourceList, name: string): Quantity {
  return list[name] ?? Quantity.zero();
}

/** Per-resource sum over every name that appears in any list. */
export function sumResourceLists(...lists: readonly ResourceList[]): ResourceList {
  const result: Record<string, Quantity> = {};
  for (const name of namesOf(lists)) {
    result[name] = lists.reduce((total, list) => total.add(amountOf(list, name)), Quantity.zero());
  }
  return result;
}

/** `a − b` per resource over the names of both; a name only in `b` comes out negative. */
export function subtractResourceLists(a: ResourceList, b: ResourceList): ResourceList {
  const result: Record<string, Quantity> = {};
  for (const name of namesOf([a, b])) result[name] = amountOf(a, name).sub(amountOf(b, name));
  return result;
}

/** Per-resource maximum over every name that appears in any list (how init containers count). */
export function maxResourceLists(...lists: readonly ResourceList[]): ResourceList {
  const result: Record<string, Quantity> = {};
  for (const name of namesOf(lists)) {
    result[name] = lists.reduce((best, list) => best.max(amountOf(list, name)), amountOf(lists[0] ?? {}, name));
  }
  return result;
}

/** One resource a request does not fit in: how much was asked, how much there is. */
export interface Shortfall {
  readonly resource: string;
  readonly requested: Quantity;
  readonly available: Quantity;
}

/**
 * Every resource of `requests` that exceeds `available` (a resource absent from `available` has
 * none of it), in the order of `requests`. Empty exactly when the requests fit.
 */
export function shortfalls(requests: ResourceList, available: ResourceList): Shortfall[] {
  const result: Shortfall[] = [];
  for (const [resource, requested] of Object.entries(requests)) {
    const have = amountOf(available, resource);
    if (requested.cmp(have) > 0) result.push({ resource, requested, available: have });
  }
  return result;
}

/** True when every requested amount is at most what is available (the scheduler's fit rule). */
export function fits(requests: ResourceList, available: ResourceList): boolean {
  return shortfalls(requests, available).length === 0;
}

/**
 * Each amount of `list` limited to `[min[r], max[r]]`; a bound that does not name a resource
 * leaves that side unbounded. Throws when a resource's minimum exceeds its maximum.
 */
export function clampResourceList(list: ResourceList, bounds: { min?: ResourceList; max?: ResourceList }): ResourceList {
  const result: Record<string, Quantity> = {};
  for (const [name, quantity] of Object.entries(list)) {
    const low = bounds.min?.[name];
    const high = bounds.max?.[name];
    if (low && high && low.cmp(high) > 0) {
      throw new BalloonError("invalid-argument", `cannot clamp ${name}: minimum ${low.toString()} exceeds maximum ${high.toString()}`);
    }
    let clamped = quantity;
    if (low) clamped = clamped.max(low);
    if (high) clamped = clamped.min(high);
    result[name] = clamped;
  }
  return result;
}

/** Only the named resources of `list` (those it has). */
export function pickResources(list: ResourceList, names: Iterable<string>): ResourceList {
  const result: Record<string, Quantity> = {};
  for (const name of names) {
    const quantity = list[name];
    if (quantity) result[name] = quantity;
  }
  return result;
}

/** True when both lists hold equal amounts for every name either has (absent counts as zero). */
export function resourceListsEqual(a: ResourceList, b: ResourceList): boolean {
  return namesOf([a, b]).every((name) => amountOf(a, name).equals(amountOf(b, name)));
}
