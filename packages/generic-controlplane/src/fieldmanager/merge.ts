import type { JSONSchemaProps } from "../schema/types.js";
import { itemElement } from "./field-set.js";
import { childSchema, elementSchema, isRecord, shapeOf, type Shape } from "./type-shape.js";
import { cloneJson, ownValue, setOwn } from "../patch/json-value.js";

/** A list or map of the merged result whose entries are still to be merged. */
interface Unfilled {
  shape: Shape;
  live: unknown[] | Record<string, unknown>;
  config: unknown[] | Record<string, unknown>;
  out: unknown[] | Record<string, unknown>;
}

/**
 * Merges an applied configuration into the live object, after structured-merge-diff's
 * `TypedValue.Merge`: granular maps merge key by key, associative lists item by item (keeping the
 * live order, with shared items in the order the configuration lists them), sets value by value;
 * scalars, atomic maps and atomic lists take the configuration's value. Containers are filled from
 * a work list rather than by recursion, as objects nest 10,000 levels deep.
 */
export function mergeValues(live: unknown, config: unknown, schema: JSONSchemaProps | undefined): unknown {
  const unfilled: Unfilled[] = [];
  const merged = mergeNode(live, config, schema, unfilled);
  while (unfilled.length > 0) {
    const next = unfilled.pop()!;
    if (Array.isArray(next.out)) mergeLists(next.shape, next.live as unknown[], next.config as unknown[], next.out, unfilled);
    else mergeMaps(next.shape, next.live as Record<string, unknown>, next.config as Record<string, unknown>, next.out, unfilled);
  }
  return merged;
}

/** One node of the merge: its final value, or an empty container queued in `unfilled` for its entries. */
function mergeNode(live: unknown, config: unknown, schema: JSONSchemaProps | undefined, unfilled: Unfilled[]): unknown {
  if (config === undefined) return live;
  if (live === undefined) return cloneJson(config);
  // A null map or list in a configuration claims the field but merges as empty (SMD merges a nil map).
  if (config === null && live !== null && shapeOf(schema, live).kind !== "scalar") return live;
  const shape = shapeOf(schema, config);
  const liveShape = shapeOf(schema, live);
  if (shape.kind !== liveShape.kind) return cloneJson(config);
  if (shape.kind === "list") {
    if (shape.type === "atomic" || !Array.isArray(live) || !Array.isArray(config) || (live.length === 0 && config.length === 0))
      return cloneJson(config);
    const out: unknown[] = [];
    unfilled.push({ shape, live, config, out });
    return out;
  }
  if (shape.kind === "scalar" || shape.atomic || !isRecord(live) || !isRecord(config)) return cloneJson(config);
  if (Object.keys(live).length === 0 && Object.keys(config).length === 0) return cloneJson(config);
  const out: Record<string, unknown> = {};
  unfilled.push({ shape, live, config, out });
  return out;
}

function mergeMaps(
  shape: Shape,
  live: Record<string, unknown>,
  config: Record<string, unknown>,
  out: Record<string, unknown>,
  unfilled: Unfilled[],
): void {
  for (const key of new Set([...Object.keys(live), ...Object.keys(config)])) {
    const merged = mergeNode(ownValue(live, key), ownValue(config, key), childSchema(shape, key), unfilled);
    if (merged !== undefined && merged !== null) setOwn(out, key, merged);
    else if (merged === null && !Object.hasOwn(config, key)) setOwn(out, key, null);
  }
}

interface Indexed {
  elements: string[];
  items: Map<string, unknown>;
}

function index(shape: Shape, list: unknown[]): Indexed {
  const elements: string[] = [];
  const items = new Map<string, unknown>();
  for (const item of list) {
    const element = itemElement(shape, item);
    if (!items.has(element)) elements.push(element);
    items.set(element, item);
  }
  return { elements, items };
}

/** SMD's list merge order: live items stay where they are; shared items follow the configuration's order, new ones come after the configuration item before them. */
function mergeLists(shape: Shape, live: unknown[], config: unknown[], out: unknown[], unfilled: Unfilled[]): void {
  const items = elementSchema(shape);
  const lhs = index(shape, live);
  const rhs = index(shape, config);
  const shared = rhs.elements.filter((e) => lhs.items.has(e));
  let nextShared: string | undefined = shared.shift();
  const merged = new Set<string>();
  const emit = (element: string) => {
    const value = mergeNode(lhs.items.get(element), rhs.items.get(element), items, unfilled);
    if (value !== undefined) out.push(value);
  };
  let l = 0;
  let r = 0;
  while (l < lhs.elements.length || r < rhs.elements.length) {
    if (l < lhs.elements.length && r < rhs.elements.length) {
      const element = lhs.elements[l] as string;
      if (element === rhs.elements[r]) {
        merged.add(element);
        emit(element);
        l++;
        r++;
        nextShared = shared.shift();
        continue;
      }
      // A shared item out of the configuration's order waits for its turn on the right.
      if (rhs.items.has(element) && nextShared !== undefined && nextShared !== element) {
        l++;
        continue;
      }
    }
    if (l < lhs.elements.length) {
      const element = lhs.elements[l] as string;
      if (!rhs.items.has(element)) {
        emit(element);
        l++;
        continue;
      } else if (merged.has(element)) l++;
    }
    if (r < rhs.elements.length) {
      const element = rhs.elements[r] as string;
      merged.add(element);
      emit(element);
      r++;
      if (nextShared === element) nextShared = shared.shift();
    }
  }
}
