import type { KubeObject, ManagedFieldsEntry } from "../api/types.js";
import { FIELD_PATH_SEPARATOR as SEP, fromFieldsV1, toFieldsV1 } from "./fields-v1.js";
import { canonicalJson } from "./object-utils.js";

/**
 * `metadata.managedFields` bookkeeping for non-apply writes: every write records an `Update`
 * entry for its field manager owning the fields it set or changed (as FieldsV1), and those
 * fields leave other managers' entries. Lists are owned as a whole.
 */

/** Metadata fields a manager can own; the rest are system-managed. */
const OWNED_METADATA = new Set(["labels", "annotations", "finalizers", "ownerReferences", "generateName"]);

type Leaves = Map<string, string>;

function collectLeaves(value: unknown, path: string[], out: Leaves): void {
  if (value !== null && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length > 0) {
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) collectLeaves(child, [...path, key], out);
    return;
  }
  out.set(path.join(SEP), canonicalJson(value));
}

/** Leaf paths of the fields a manager may own, with their values. */
function leavesOf(object: KubeObject, subresource: string): Leaves {
  const out: Leaves = new Map();
  for (const [key, value] of Object.entries(object)) {
    if (key === "apiVersion" || key === "kind") continue;
    if (subresource === "status" ? key !== "status" : false) continue;
    if (key === "metadata") {
      for (const [metaKey, metaValue] of Object.entries((value ?? {}) as Record<string, unknown>)) {
        if (OWNED_METADATA.has(metaKey)) collectLeaves(metaValue, ["metadata", metaKey], out);
      }
      continue;
    }
    collectLeaves(value, [key], out);
  }
  return out;
}

function isUnder(path: string, changed: Set<string>): boolean {
  if (changed.has(path)) return true;
  for (const c of changed) if (path.startsWith(c + SEP) || c.startsWith(path + SEP)) return true;
  return false;
}

export interface ManagedFieldsUpdate {
  manager: string;
  apiVersion: string;
  time: string;
  subresource: string;
}

/**
 * The managedFields after a write of `next` (over `previous`, undefined on create) by `update.manager`.
 * Returns the previous entries unchanged when the write changed no owned field.
 */
export function updateManagedFields(previous: KubeObject | undefined, next: KubeObject, update: ManagedFieldsUpdate): ManagedFieldsEntry[] | undefined {
  const existing = (previous?.metadata?.managedFields ?? []).map((e) => ({ ...e }));
  const before = previous === undefined ? new Map<string, string>() : leavesOf(previous, update.subresource);
  const after = leavesOf(next, update.subresource);
  const changed = new Set<string>();
  for (const [path, value] of after) if (before.get(path) !== value) changed.add(path);
  const removed = new Set<string>();
  for (const path of before.keys()) if (!after.has(path)) removed.add(path);
  if (changed.size === 0 && removed.size === 0) return previous?.metadata?.managedFields;

  const entries: ManagedFieldsEntry[] = [];
  let mine: Set<string> | undefined;
  for (const entry of existing) {
    const owned = fromFieldsV1(entry.fieldsV1);
    const isMine = entry.manager === update.manager && entry.operation === "Update" && (entry.subresource ?? "") === update.subresource;
    for (const path of [...owned]) {
      if (isUnder(path, removed) || (!isMine && isUnder(path, changed))) owned.delete(path);
    }
    if (isMine) {
      mine = owned;
      continue;
    }
    if (owned.size > 0) entries.push({ ...entry, fieldsV1: toFieldsV1(owned) });
  }
  mine ??= new Set();
  for (const path of [...mine]) if (isUnder(path, changed)) mine.delete(path);
  for (const path of changed) mine.add(path);
  const entry: ManagedFieldsEntry = {
    manager: update.manager,
    operation: "Update",
    apiVersion: update.apiVersion,
    time: update.time,
    fieldsType: "FieldsV1",
    fieldsV1: toFieldsV1(mine),
  };
  if (update.subresource !== "") entry.subresource = update.subresource;
  if (mine.size > 0) entries.push(entry);
  return entries;
}
