import type { JSONSchemaProps } from "../schema/types.js";
import { ownValue, setOwn } from "../patch/json-value.js";
import { canonicalJson } from "../registry/object-utils.js";
import { childPath, fieldElement, keyElement, PATH_SEPARATOR, pathElements, valueElement, type FieldPath } from "./fields-v1.js";
import { childSchema, declaresField, elementSchema, isRecord, shapeOf, type Shape } from "./type-shape.js";

/**
 * Field sets of objects, after structured-merge-diff's `typed` package: the set of fields a value
 * sets (`ToFieldSet`), the difference between two values (`Compare`), removing fields from a value
 * (`RemoveItems`) and the set algebra on them. Sets hold member paths (see fields-v1.ts).
 */

export type FieldSet = Set<FieldPath>;

function equal(a: unknown, b: unknown): boolean {
  return a === b || canonicalJson(a) === canonicalJson(b);
}

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
  const out: FieldSet = new Set();
  collect(value, schema, "", out);
  return out;
}

function collect(value: unknown, schema: JSONSchemaProps | undefined, path: FieldPath, out: FieldSet): void {
  const shape = shapeOf(schema, value);
  if (shape.kind === "scalar") {
    if (path !== "") out.add(path);
    return;
  }
  if (shape.kind === "list") {
    if (shape.type === "atomic") {
      out.add(path);
      return;
    }
    if (!Array.isArray(value)) return;
    const items = elementSchema(shape);
    for (const [element, group] of indexItems(shape, value)) {
      const itemPath = childPath(path, element);
      // Duplicated items are owned as a whole.
      if (group.length === 1) collect(group[0], items, itemPath, out);
      out.add(itemPath);
    }
    return;
  }
  if (shape.atomic) {
    if (path !== "") out.add(path);
    return;
  }
  if (!isRecord(value)) return;
  for (const [key, child] of Object.entries(value)) {
    const path2 = childPath(path, fieldElement(key));
    collect(child, childSchema(shape, key), path2, out);
    if (child === null || (isRecord(child) && Object.keys(child).length === 0) || !declaresField(shape, key)) out.add(path2);
  }
}

// ---- Compare -------------------------------------------------------------------------------

export interface Comparison {
  added: FieldSet;
  modified: FieldSet;
  removed: FieldSet;
}

/** What changed from `lhs` to `rhs`, after SMD's `Compare`: every node of an added or removed subtree is listed. */
export function compare(lhs: unknown, rhs: unknown, schema: JSONSchemaProps | undefined): Comparison {
  const out: Comparison = { added: new Set(), modified: new Set(), removed: new Set() };
  compareNode(lhs, rhs, schema, "", out);
  return out;
}

function isEmpty(value: unknown): boolean {
  return value === undefined || value === null || (Array.isArray(value) && value.length === 0) || (isRecord(value) && Object.keys(value).length === 0);
}

function compareNode(lhs: unknown, rhs: unknown, schema: JSONSchemaProps | undefined, path: FieldPath, out: Comparison): void {
  const leftShape = lhs === undefined ? undefined : shapeOf(schema, lhs);
  const rightShape = rhs === undefined ? undefined : shapeOf(schema, rhs);
  let leaf: boolean;
  if (rightShape === undefined) leaf = compareAs(leftShape!, lhs, undefined, path, out);
  else if (leftShape === undefined || leftShape.kind === rightShape.kind) leaf = compareAs(rightShape, lhs, rhs, path, out);
  else leaf = compareLeaf(lhs, rhs, path, out);
  if (!leaf && path !== "") {
    if (lhs === undefined) out.added.add(path);
    else if (rhs === undefined) out.removed.add(path);
  }
}

/** Returns whether the node was compared as a leaf (which records itself). */
function compareAs(shape: Shape, lhs: unknown, rhs: unknown, path: FieldPath, out: Comparison): boolean {
  if (shape.kind === "scalar") return compareLeaf(lhs, rhs, path, out);
  if (shape.kind === "list") {
    if (shape.type === "atomic" || (isEmpty(lhs) && isEmpty(rhs))) return compareLeaf(lhs, rhs, path, out);
    const left = indexItems(shape, Array.isArray(lhs) ? lhs : []);
    const right = indexItems(shape, Array.isArray(rhs) ? rhs : []);
    const items = elementSchema(shape);
    for (const element of new Set([...left.keys(), ...right.keys()])) {
      const l = left.get(element) ?? [];
      const r = right.get(element) ?? [];
      const itemPath = childPath(path, element);
      if (l.length <= 1 && r.length <= 1) compareNode(l[0], r[0], items, itemPath, out);
      else if (l.length >= 2 && r.length >= 2) {
        if (!equal(l, r)) out.modified.add(itemPath);
      } else if (l.length >= 2) {
        if (r.length !== 0) compareNode(undefined, r[0], items, itemPath, out);
        out.removed.add(itemPath);
      } else {
        if (l.length !== 0) compareNode(l[0], undefined, items, itemPath, out);
        out.added.add(itemPath);
      }
    }
    return false;
  }
  if (shape.atomic || (isEmpty(lhs) && isEmpty(rhs))) return compareLeaf(lhs, rhs, path, out);
  const left = isRecord(lhs) ? lhs : {};
  const right = isRecord(rhs) ? rhs : {};
  for (const key of new Set([...Object.keys(left), ...Object.keys(right)])) {
    compareNode(ownValue(left, key), ownValue(right, key), childSchema(shape, key), childPath(path, fieldElement(key)), out);
  }
  return false;
}

function compareLeaf(lhs: unknown, rhs: unknown, path: FieldPath, out: Comparison): boolean {
  if (path === "") return true;
  if (lhs === undefined) out.added.add(path);
  else if (rhs === undefined) out.removed.add(path);
  else if (!equal(lhs, rhs)) out.modified.add(path);
  return true;
}

// ---- RemoveItems ---------------------------------------------------------------------------

/** `value` without the members of `remove` (each with everything under it); containers it empties go too. */
export function removeItems(value: unknown, remove: FieldSet, schema: JSONSchemaProps | undefined): unknown {
  if (remove.size === 0) return value;
  // Every proper ancestor of a member: the nodes the walk has to descend into.
  const ancestors = new Set<FieldPath>();
  for (const member of remove) {
    const elements = pathElements(member);
    for (let i = 1; i < elements.length; i++) ancestors.add(elements.slice(0, i).join(PATH_SEPARATOR));
  }
  return removeUnder(value, { members: remove, ancestors }, schema, "");
}

interface Removal {
  members: FieldSet;
  ancestors: Set<FieldPath>;
}

function removeUnder(value: unknown, removal: Removal, schema: JSONSchemaProps | undefined, path: FieldPath): unknown {
  const remove = removal.members;
  const shape = shapeOf(schema, value);
  if (shape.kind === "list") {
    if (shape.type === "atomic" || !Array.isArray(value) || value.length === 0) return value;
    const items = elementSchema(shape);
    const kept: unknown[] = [];
    for (const item of value) {
      const itemPath = childPath(path, itemElement(shape, item));
      if (remove.has(itemPath)) continue;
      kept.push(removal.ancestors.has(itemPath) ? removeUnder(item, removal, items, itemPath) : item);
    }
    return kept.length === 0 ? undefined : kept;
  }
  if (shape.kind === "scalar" || shape.atomic || !isRecord(value) || Object.keys(value).length === 0) return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    const path2 = childPath(path, fieldElement(key));
    if (remove.has(path2)) continue;
    const next = removal.ancestors.has(path2) ? removeUnder(child, removal, childSchema(shape, key), path2) : child;
    if (next !== undefined) setOwn(out, key, next);
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

// ---- Set algebra ---------------------------------------------------------------------------

export function union(...sets: ReadonlySet<FieldPath>[]): FieldSet {
  const out: FieldSet = new Set();
  for (const set of sets) for (const path of set) out.add(path);
  return out;
}

export function difference(set: ReadonlySet<FieldPath>, other: ReadonlySet<FieldPath>): FieldSet {
  return new Set([...set].filter((path) => !other.has(path)));
}

export function intersection(set: ReadonlySet<FieldPath>, other: ReadonlySet<FieldPath>): FieldSet {
  return new Set([...set].filter((path) => other.has(path)));
}

/** `set` without the members of `other` and everything under them. */
export function recursiveDifference(set: FieldSet, other: (path: FieldPath) => boolean): FieldSet {
  return new Set([...set].filter((path) => !other(path)));
}

/**
 * Adds, as members, every ancestor of a member that is a declared field of a struct (SMD's
 * `EnsureNamedFieldsAreMembers`), so that pruning a struct's last owned field can prune the struct.
 */
export function ensureNamedFieldsAreMembers(set: FieldSet, schema: JSONSchemaProps | undefined): FieldSet {
  const out = new Set(set);
  for (const path of set) {
    let current: JSONSchemaProps | undefined = schema;
    let prefix = "";
    const elements = pathElements(path);
    for (let i = 0; i < elements.length - 1; i++) {
      const element = elements[i] as string;
      const shape = shapeOf(current, element.startsWith("f:") ? {} : []);
      prefix = childPath(prefix, element);
      if (element.startsWith("f:")) {
        const name = element.slice(2);
        if (declaresField(shape, name)) out.add(prefix);
        current = childSchema(shape, name);
      } else current = elementSchema(shape);
    }
  }
  return out;
}
