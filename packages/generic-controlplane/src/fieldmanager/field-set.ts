import { jsonEqual, type JsonEqualRules } from "@kubekit/apimachinery";
import type { JSONSchemaProps } from "../schema/types.js";
import { ownValue, setOwn } from "../patch/json-value.js";
import { sameJson } from "../registry/rest/object-utils.js";
import { FieldSet, pruned } from "./field-set-trie.js";
import { fieldElement, keyElement, valueElement } from "./fields-v1.js";
import { childSchema, declaresField, elementSchema, isRecord, shapeOf, type Shape } from "./type-shape.js";

/**
 * Field sets of objects, after structured-merge-diff's `typed` package: the set of fields a value
 * sets (`ToFieldSet`), the difference between two values (`Compare`), removing fields from a value
 * (`RemoveItems`). Sets are tries (field-set-trie.ts); every walk keeps an explicit stack, as
 * objects nest 10,000 levels deep.
 */

export { FieldSet, difference, intersection, sameSet, union, withoutTopLevel, type FieldPath } from "./field-set-trie.js";

/** The path element of a list item: its key fields for a map-list, its value for a set. */
export function itemElement(shape: Shape, item: unknown): string {
  if (shape.kind === "list" && shape.type === "map" && isRecord(item)) {
    const key: Record<string, unknown> = {};
    for (const name of shape.keys) {
      const value = ownValue(item, name);
      if (value !== undefined) setOwn(key, name, value);
    }
    return keyElement(key);
  }
  return valueElement(item);
}

/** Items grouped by path element, in first-seen order. */
function indexItems(shape: Shape, list: unknown[]): Map<string, unknown[]> {
  const out = new Map<string, unknown[]>();
  for (const item of list) {
    const element = itemElement(shape, item);
    const seen = out.get(element);
    if (seen === undefined) out.set(element, [item]);
    else seen.push(item);
  }
  return out;
}

// ---- ToFieldSet ----------------------------------------------------------------------------

/** The fields `value` sets: leaves, list items, map keys (not struct fields), empty or null maps. */
export function toFieldSet(value: unknown, schema: JSONSchemaProps | undefined): FieldSet {
  const root = new FieldSet();
  // Each entry: a value, its schema, and the set of its parent with its element there (none for the root).
  const pending: Array<[unknown, JSONSchemaProps | undefined, FieldSet | undefined, string]> = [[value, schema, undefined, ""]];
  while (pending.length > 0) {
    const [current, currentSchema, parent, element] = pending.pop()!;
    const shape = shapeOf(currentSchema, current);
    if (shape.kind === "scalar" || (shape.kind === "list" && shape.type === "atomic") || (shape.kind === "map" && shape.atomic)) {
      parent?.members.add(element);
      continue;
    }
    const here = parent === undefined ? root : parent.child(element);
    if (shape.kind === "list") {
      if (!Array.isArray(current)) continue;
      const items = elementSchema(shape);
      for (const [itemElement, group] of indexItems(shape, current)) {
        // Duplicated items are owned as a whole.
        if (group.length === 1) pending.push([group[0], items, here, itemElement]);
        here.members.add(itemElement);
      }
      continue;
    }
    if (!isRecord(current)) continue;
    for (const key of Object.keys(current)) {
      const child = current[key];
      const childElement = fieldElement(key);
      pending.push([child, childSchema(shape, key), here, childElement]);
      if (child === null || (isRecord(child) && Object.keys(child).length === 0) || !declaresField(shape, key))
        here.members.add(childElement);
    }
  }
  return pruned(root);
}

// ---- Compare -------------------------------------------------------------------------------

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/**
 * A node of the compared values: its element under its parent, and (made when first needed) its
 * subset in each of the comparison's three sets, so a deep walk creates only the subsets it fills.
 */
class Place {
  readonly subsets: Array<FieldSet | undefined> = [undefined, undefined, undefined];
  /** How many elements the path has (the root's none). */
  readonly depth: number;
  constructor(
    readonly parent: Place | undefined,
    readonly element: string,
  ) {
    this.depth = parent === undefined ? 0 : parent.depth + 1;
  }

  /** Records this node's path in `sets[which]`. */
  add(sets: FieldSet[], which: number): void {
    if (this.parent !== undefined) subsetAt(this.parent, sets, which).members.add(this.element);
  }
}

/** The subset of `sets[which]` at `place`, made (with those of its ancestors) when first needed. */
function subsetAt(place: Place, sets: FieldSet[], which: number): FieldSet {
  // Climb to the nearest place that has its subset (the root's is the set itself), then make them on the way back down.
  const missing: Place[] = [];
  let at = place;
  while (at.subsets[which] === undefined && at.parent !== undefined) {
    missing.push(at);
    at = at.parent;
  }
  let set = at.subsets[which] ?? sets[which]!;
  at.subsets[which] = set;
  for (let i = missing.length - 1; i >= 0; i--) {
    const child = missing[i]!;
    set = set.child(child.element);
    child.subsets[which] = set;
  }
  return set;
}

/** The deepest place `compare` tests for an identical pair: the root, its fields, theirs and one more level (a list's items). */
const IDENTICAL_TEST_DEPTH = 3;

const ADDED = 0;
const MODIFIED = 1;
const REMOVED = 2;

function isEmpty(value: unknown): boolean {
  return (
    value === undefined ||
    value === null ||
    (Array.isArray(value) && value.length === 0) ||
    (isRecord(value) && Object.keys(value).length === 0)
  );
}

/**
 * Two values are the same plain JSON data (objects, arrays, strings, finite numbers, bigints,
 * booleans, null), nothing undefined in them: such a pair holds no change at any depth, so
 * `compare` need not walk it. Anything else (an undefined value, NaN, a Date) is not identical and
 * is walked as before.
 */
const IDENTICAL_DATA: JsonEqualRules = { undefinedValue: "unequal", notPlainData: "unequal" };

/**
 * What changed from `lhs` to `rhs`, after SMD's `Compare`: every node of an added or removed
 * subtree is listed. A pair of identical containers near the root is passed over (most of an
 * object is unchanged by a write: the spec under a status write); each such test reads its
 * subtree, so only the first levels are tested, which keeps the walk linear in any depth.
 * `walkIdentical` walks them too, as the reference the shortcut is tested against.
 */
export function compare(lhs: unknown, rhs: unknown, schema: JSONSchemaProps | undefined, walkIdentical = false): Comparison {
  const sets = [new FieldSet(), new FieldSet(), new FieldSet()];
  const pending: Array<[unknown, unknown, JSONSchemaProps | undefined, Place]> = [[lhs, rhs, schema, new Place(undefined, "")]];
  while (pending.length > 0) {
    const [left, right, nodeSchema, place] = pending.pop()!;
    if (
      !walkIdentical &&
      place.depth <= IDENTICAL_TEST_DEPTH &&
      typeof left === "object" &&
      left !== null &&
      jsonEqual(left, right, IDENTICAL_DATA)
    )
      continue;
    const isRoot = place.parent === undefined;
    const leftShape = left === undefined ? undefined : shapeOf(nodeSchema, left);
    const rightShape = right === undefined ? undefined : shapeOf(nodeSchema, right);
    const shape =
      rightShape === undefined ? leftShape! : leftShape === undefined || leftShape.kind === rightShape.kind ? rightShape : undefined;
    if (shape === undefined || !compareChildren(shape, left, right, place, pending, sets)) {
      // Compared as a leaf.
      if (isRoot) continue;
      if (left === undefined) place.add(sets, ADDED);
      else if (right === undefined) place.add(sets, REMOVED);
      else if (!sameJson(left, right)) place.add(sets, MODIFIED);
      continue;
    }
    if (!isRoot) {
      if (left === undefined) place.add(sets, ADDED);
      else if (right === undefined) place.add(sets, REMOVED);
    }
  }
  return { added: pruned(sets[ADDED]!), modified: pruned(sets[MODIFIED]!), removed: pruned(sets[REMOVED]!) };
}

/**
 * Queues the children of a list or granular map for comparison, recording what compares whole
 * (groups of duplicated items); false when the node compares as a leaf.
 */
function compareChildren(
  shape: Shape,
  lhs: unknown,
  rhs: unknown,
  place: Place,
  pending: Array<[unknown, unknown, JSONSchemaProps | undefined, Place]>,
  sets: FieldSet[],
): boolean {
  if (shape.kind === "scalar") return false;
  if (shape.kind === "list") {
    if (shape.type === "atomic" || (isEmpty(lhs) && isEmpty(rhs))) return false;
    const left = indexItems(shape, Array.isArray(lhs) ? lhs : []);
    const right = indexItems(shape, Array.isArray(rhs) ? rhs : []);
    const items = elementSchema(shape);
    const queueItem = (element: string): void => {
      const l = left.get(element) ?? [];
      const r = right.get(element) ?? [];
      const itemPlace = new Place(place, element);
      if (l.length <= 1 && r.length <= 1) pending.push([l[0], r[0], items, itemPlace]);
      else if (l.length >= 2 && r.length >= 2) {
        if (!sameJson(l, r)) itemPlace.add(sets, MODIFIED);
      } else if (l.length >= 2) {
        if (r.length !== 0) pending.push([undefined, r[0], items, itemPlace]);
        itemPlace.add(sets, REMOVED);
      } else {
        if (l.length !== 0) pending.push([l[0], undefined, items, itemPlace]);
        itemPlace.add(sets, ADDED);
      }
    };
    // The left's items, then those only the right has: the order of a set of both, without one.
    for (const element of left.keys()) queueItem(element);
    for (const element of right.keys()) if (!left.has(element)) queueItem(element);
    return true;
  }
  if (shape.atomic || (isEmpty(lhs) && isEmpty(rhs))) return false;
  const left = isRecord(lhs) ? lhs : {};
  const right = isRecord(rhs) ? rhs : {};
  const queue = (key: string) =>
    pending.push([ownValue(left, key), ownValue(right, key), childSchema(shape, key), new Place(place, fieldElement(key))]);
  for (const key of Object.keys(left)) queue(key);
  for (const key of Object.keys(right)) if (!Object.hasOwn(left, key)) queue(key);
  return true;
}

// ---- RemoveItems ---------------------------------------------------------------------------

/** A container of the result that may have lost every entry: its holder and where it sits there. */
interface Emptied {
  container: Record<string, unknown> | unknown[];
  holder: Record<string, unknown> | unknown[] | undefined;
  key: string | number;
}

/** `value` without the members of `remove` (each with everything under it); containers it empties go too. */
export function removeItems(value: unknown, remove: FieldSet, schema: JSONSchemaProps | undefined): unknown {
  if (remove.isEmpty()) return value;
  const root: { value: unknown } = { value };
  // Containers copied (in walk order: every container after the one holding it).
  const copied: Emptied[] = [];
  const pending: Array<[unknown, FieldSet, JSONSchemaProps | undefined, Record<string, unknown> | unknown[] | undefined, string | number]> =
    [[value, remove, schema, undefined, 0]];
  while (pending.length > 0) {
    const [current, set, nodeSchema, holder, key] = pending.pop()!;
    const shape = shapeOf(nodeSchema, current);
    let copy: Record<string, unknown> | unknown[];
    if (shape.kind === "list") {
      if (shape.type === "atomic" || !Array.isArray(current) || current.length === 0) continue;
      const items = elementSchema(shape);
      const kept: unknown[] = [];
      for (const item of current) {
        const element = itemElement(shape, item);
        if (set.members.has(element)) continue;
        const below = set.children.get(element);
        kept.push(item);
        if (below !== undefined) pending.push([item, below, items, kept, kept.length - 1]);
      }
      copy = kept;
    } else {
      if (shape.kind === "scalar" || shape.atomic || !isRecord(current) || Object.keys(current).length === 0) continue;
      const out: Record<string, unknown> = {};
      for (const name of Object.keys(current)) {
        const element = fieldElement(name);
        if (set.members.has(element)) continue;
        const child = current[name];
        setOwn(out, name, child);
        const below = set.children.get(element);
        if (below !== undefined) pending.push([child, below, childSchema(shape, name), out, name]);
      }
      copy = out;
    }
    if (holder === undefined) root.value = copy;
    else if (Array.isArray(holder)) holder[key as number] = copy;
    else setOwn(holder, key as string, copy);
    copied.push({ container: copy, holder, key });
  }
  // Children before the containers holding them: a container emptied by its children goes too.
  for (let i = copied.length - 1; i >= 0; i--) {
    const { container, holder, key } = copied[i]!;
    if ((Array.isArray(container) ? container.length : Object.keys(container).length) > 0) continue;
    // An emptied map key goes; an emptied list item stays, as nothing (SMD keeps a nil item).
    if (holder === undefined) root.value = undefined;
    else if (Array.isArray(holder)) holder[key as number] = undefined;
    else delete holder[key as string];
  }
  return root.value;
}

/**
 * Adds, as members, every ancestor of a member that is a declared field of a struct (SMD's
 * `EnsureNamedFieldsAreMembers`), so that pruning a struct's last owned field can prune the struct.
 */
export function ensureNamedFieldsAreMembers(set: FieldSet, schema: JSONSchemaProps | undefined): FieldSet {
  const out = new FieldSet();
  const pending: Array<[FieldSet, JSONSchemaProps | undefined, FieldSet]> = [[set, schema, out]];
  while (pending.length > 0) {
    const [node, nodeSchema, into] = pending.pop()!;
    for (const member of node.members) into.members.add(member);
    for (const [element, child] of node.children) {
      // `element` leads to members below it: it is their ancestor.
      const isField = element.startsWith("f:");
      const shape = shapeOf(nodeSchema, isField ? {} : []);
      if (isField && declaresField(shape, element.slice(2))) into.members.add(element);
      pending.push([child, isField ? childSchema(shape, element.slice(2)) : elementSchema(shape), into.child(element)]);
    }
  }
  return out;
}
