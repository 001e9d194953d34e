import type { KubeObject, ManagedFieldsEntry, StatusCause } from "../api/types.js";
import { ControlPlaneError } from "../errors.js";
import { canonicalJson } from "../registry/object-utils.js";
import { FIELD_PATH_SEPARATOR, fromFieldsV1, toFieldsV1 } from "../registry/fields-v1.js";
import { fieldSchema, itemSchema, resolveSchema, withObjectMeta } from "../patch/schema-walk.js";
import type { JSONSchemaProps } from "../schema/types.js";

/**
 * A simple server-side apply (`application/apply-patch+yaml`) over field ownership in
 * `metadata.managedFields`: the applied configuration's leaf fields are set, fields the manager
 * applied before and no longer lists are removed, and changing a field another manager owns is a
 * 409 `FieldManagerConflict` unless `force`. Maps merge key by key. Lists follow the schema:
 * associative lists (`x-kubernetes-list-type: map` with `x-kubernetes-list-map-keys`, or a
 * strategic `merge` strategy with a merge key) merge item by item (`k:{"name":"x"}` in FieldsV1),
 * sets of scalars (`x-kubernetes-list-type: set`) value by value (`v:"x"`), other lists are
 * atomic (owned and replaced whole).
 */

const SEP = FIELD_PATH_SEPARATOR;
/** Metadata a manager can own (the rest is system-managed or identity). */
const OWNED_METADATA = new Set(["labels", "annotations", "finalizers", "ownerReferences"]);

type Leaves = Map<string, unknown>;

type ListKind = { type: "map"; keys: string[] } | { type: "set" } | undefined;

/** How a list merges, from its schema. */
function listKind(schema: JSONSchemaProps | undefined): ListKind {
  const resolved = resolveSchema(schema);
  if (resolved === undefined) return undefined;
  const listType = resolved["x-kubernetes-list-type"];
  const mapKeys = resolved["x-kubernetes-list-map-keys"];
  if (listType === "map" && mapKeys !== undefined && mapKeys.length > 0) return { type: "map", keys: mapKeys };
  if (listType === "set") return { type: "set" };
  if (listType === "atomic") return undefined;
  const strategy = resolved["x-kubernetes-patch-strategy"] ?? "";
  if (strategy.split(",").includes("merge")) {
    const mergeKey = resolved["x-kubernetes-patch-merge-key"];
    if (mergeKey !== undefined && mergeKey !== "") return { type: "map", keys: [mergeKey] };
    const items = resolveSchema(resolved.items);
    if (items !== undefined && items.type !== "object") return { type: "set" };
  }
  return undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** `k:{"name":"x"}`: the FieldsV1 segment of an associative list item. */
function itemKey(item: Record<string, unknown>, keys: string[]): string {
  const picked: Record<string, unknown> = {};
  for (const key of [...keys].sort()) if (item[key] !== undefined) picked[key] = item[key];
  return `k:${JSON.stringify(picked)}`;
}

function collect(value: unknown, path: string[], schema: JSONSchemaProps | undefined, out: Leaves): void {
  if (isRecord(value) && Object.keys(value).length > 0) {
    for (const [key, child] of Object.entries(value)) collect(child, [...path, key], fieldSchema(schema, key), out);
    return;
  }
  if (Array.isArray(value) && value.length > 0) {
    const kind = listKind(schema);
    if (kind?.type === "map" && value.every(isRecord)) {
      const items = itemSchema(schema);
      for (const item of value) {
        const segment = itemKey(item, kind.keys);
        for (const [key, child] of Object.entries(item)) collect(child, [...path, segment, key], fieldSchema(items, key), out);
      }
      return;
    }
    if (kind?.type === "set" && value.every((v) => v === null || typeof v !== "object")) {
      for (const item of value) out.set([...path, `v:${JSON.stringify(item)}`].join(SEP), item);
      return;
    }
  }
  out.set(path.join(SEP), value);
}

/** Leaf fields a manager can own, keyed by path (segments joined by NUL). */
export function ownedLeaves(object: KubeObject, subresource: string, schema?: JSONSchemaProps): Leaves {
  const root = schema === undefined ? undefined : withObjectMeta(schema);
  const out: Leaves = new Map();
  for (const [key, value] of Object.entries(object)) {
    if (key === "apiVersion" || key === "kind") continue;
    if (subresource === "status" && key !== "status") continue;
    if (key === "metadata") {
      const metaSchema = fieldSchema(root, "metadata");
      for (const [metaKey, metaValue] of Object.entries((value ?? {}) as Record<string, unknown>)) {
        if (OWNED_METADATA.has(metaKey)) collect(metaValue, ["metadata", metaKey], fieldSchema(metaSchema, metaKey), out);
      }
      continue;
    }
    collect(value, [key], fieldSchema(root, key), out);
  }
  return out;
}

function related(a: string, b: string): boolean {
  return a === b || a.startsWith(b + SEP) || b.startsWith(a + SEP);
}

function keyObject(segment: string): Record<string, unknown> {
  return JSON.parse(segment.slice(2)) as Record<string, unknown>;
}

function matchesKey(item: unknown, key: Record<string, unknown>): boolean {
  return isRecord(item) && Object.entries(key).every(([k, v]) => canonicalJson(item[k]) === canonicalJson(v));
}

/** Sets a leaf, creating maps and associative list items on the way. */
function setPath(object: Record<string, unknown>, path: string, value: unknown): void {
  const segments = path.split(SEP);
  let node: unknown = object;
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i] as string;
    const last = i === segments.length - 1;
    const next = segments[i + 1];
    const wantsList = next !== undefined && (next.startsWith("k:") || next.startsWith("v:"));
    if (segment.startsWith("v:")) {
      const list = node as unknown[];
      if (!list.some((v) => canonicalJson(v) === canonicalJson(value))) list.push(structuredClone(value));
      return;
    }
    if (segment.startsWith("k:")) {
      const list = node as unknown[];
      const key = keyObject(segment);
      let item = list.find((candidate) => matchesKey(candidate, key));
      if (item === undefined) {
        item = { ...key };
        list.push(item);
      }
      node = item;
      continue;
    }
    const record = node as Record<string, unknown>;
    if (last) {
      record[segment] = structuredClone(value);
      return;
    }
    const child = record[segment];
    if (wantsList ? !Array.isArray(child) : !isRecord(child)) record[segment] = wantsList ? [] : {};
    node = record[segment];
  }
}

/** Removes a leaf (or a whole list item when `path` ends at its key); maps and lists it empties go too. */
function deletePath(object: Record<string, unknown>, path: string): void {
  const segments = path.split(SEP);
  const trail: Array<{ container: unknown; segment: string }> = [];
  let node: unknown = object;
  for (const segment of segments) {
    trail.push({ container: node, segment });
    if (segment.startsWith("k:")) node = Array.isArray(node) ? node.find((item) => matchesKey(item, keyObject(segment))) : undefined;
    else if (segment.startsWith("v:")) node = undefined;
    else node = isRecord(node) ? node[segment] : undefined;
    if (node === undefined && segment !== segments[segments.length - 1]) return;
  }
  for (let i = trail.length - 1; i >= 0; i--) {
    const { container, segment } = trail[i] as { container: unknown; segment: string };
    if (i === trail.length - 1) removeFrom(container, segment);
    else {
      const child = childOf(container, segment);
      const empty = (isRecord(child) && Object.keys(child).length === 0) || (Array.isArray(child) && child.length === 0);
      if (!empty || (i === 0 && segment === "metadata")) break;
      removeFrom(container, segment);
    }
  }
}

function childOf(container: unknown, segment: string): unknown {
  if (segment.startsWith("k:")) return Array.isArray(container) ? container.find((item) => matchesKey(item, keyObject(segment))) : undefined;
  return isRecord(container) ? container[segment] : undefined;
}

function removeFrom(container: unknown, segment: string): void {
  if (Array.isArray(container)) {
    const index = segment.startsWith("k:")
      ? container.findIndex((item) => matchesKey(item, keyObject(segment)))
      : container.findIndex((v) => canonicalJson(v) === segment.slice(2) || JSON.stringify(v) === segment.slice(2));
    if (index >= 0) container.splice(index, 1);
  } else if (isRecord(container)) delete container[segment];
}

/** The path of the list item a leaf belongs to (up to its deepest `k:` segment), or undefined. */
function itemPathOf(path: string): string | undefined {
  const segments = path.split(SEP);
  for (let i = segments.length - 1; i >= 0; i--) if ((segments[i] as string).startsWith("k:")) return segments.slice(0, i + 1).join(SEP);
  return undefined;
}

/** `.data.key`, `.spec.ports[name="a"].port` — how conflicts name fields. */
function dotted(path: string): string {
  return path
    .split(SEP)
    .map((segment) => {
      // structured-merge-diff's path form: `[name="a"]` for list items, `[="x"]` for set values.
      if (segment.startsWith("k:")) return `[${Object.entries(keyObject(segment)).map(([k, v]) => `${k}=${JSON.stringify(v)}`).join(",")}]`;
      if (segment.startsWith("v:")) return `[=${segment.slice(2)}]`;
      return `.${segment}`;
    })
    .join("");
}

export interface ApplyRequest {
  manager: string;
  force: boolean;
  apiVersion: string;
  subresource: string;
  now: string;
  /** The resource's schema: decides how lists merge. */
  schema?: JSONSchemaProps;
}

/** Merges `applied` into `current` (undefined: the object is created) and returns the object to store, managedFields included. */
export function applyConfiguration(current: KubeObject | undefined, applied: KubeObject, request: ApplyRequest): KubeObject {
  const result = structuredClone(current ?? { apiVersion: applied.apiVersion, kind: applied.kind, metadata: { ...applied.metadata } }) as Record<string, unknown> & KubeObject;
  const metadata = (result.metadata ??= {});
  const entries: ManagedFieldsEntry[] = (metadata.managedFields ?? []).map((e) => ({ ...e }));
  const isMine = (e: ManagedFieldsEntry) => e.manager === request.manager && e.operation === "Apply" && (e.subresource ?? "") === request.subresource;
  const previouslyApplied = fromFieldsV1(entries.find(isMine)?.fieldsV1);
  const wanted = ownedLeaves(applied, request.subresource, request.schema);
  const existing = ownedLeaves(result, request.subresource, request.schema);

  const changed = new Set<string>();
  for (const [path, value] of wanted) if (!existing.has(path) || canonicalJson(existing.get(path)) !== canonicalJson(value)) changed.add(path);

  const conflicts: StatusCause[] = [];
  const others = entries.filter((e) => !isMine(e)).map((entry) => ({ entry, owned: fromFieldsV1(entry.fieldsV1) }));
  if (current !== undefined) {
    for (const { entry, owned } of others) {
      for (const path of changed) {
        for (const ownedPath of owned) {
          if (related(path, ownedPath)) conflicts.push({ reason: "FieldManagerConflict", message: `conflict with ${JSON.stringify(entry.manager ?? "")}${entry.operation === "Update" ? ` using ${entry.apiVersion ?? request.apiVersion}` : ""}`, field: dotted(ownedPath) });
        }
      }
    }
  }
  if (conflicts.length > 0 && !request.force) {
    const unique = [...new Map(conflicts.map((c) => [`${c.message}${c.field}`, c])).values()];
    const summary =
      unique.length === 1
        ? `Apply failed with 1 conflict: ${unique[0]!.message ?? ""}: ${unique[0]!.field ?? ""}`
        : `Apply failed with ${unique.length} conflicts: ${unique.map((c) => `${c.message ?? ""}: ${c.field ?? ""}`).join(", ")}`;
    throw new ControlPlaneError("Conflict", summary, { details: { causes: unique } });
  }

  const ownedByOthers = (path: string) => others.some(({ owned }) => [...owned].some((o) => related(o, path)));
  const wantedItems = new Set([...wanted.keys()].map(itemPathOf).filter((p): p is string => p !== undefined));
  for (const path of previouslyApplied) {
    if (wanted.has(path) || [...wanted.keys()].some((w) => related(w, path)) || ownedByOthers(path)) continue;
    // An item the manager no longer lists goes whole; a field it drops from a listed item goes alone.
    const item = itemPathOf(path);
    deletePath(result, item !== undefined && !wantedItems.has(item) && !ownedByOthers(item) ? item : path);
  }
  for (const [path, value] of wanted) setPath(result, path, value);

  // Forced or uncontested changes move ownership to this manager.
  const managed: ManagedFieldsEntry[] = [];
  for (const { entry, owned } of others) {
    for (const path of [...owned]) if ([...changed].some((c) => related(c, path))) owned.delete(path);
    if (owned.size > 0) managed.push({ ...entry, fieldsV1: toFieldsV1(owned) });
  }
  const mine: ManagedFieldsEntry = { manager: request.manager, operation: "Apply", apiVersion: request.apiVersion, time: request.now, fieldsType: "FieldsV1", fieldsV1: toFieldsV1(wanted.keys()) };
  if (request.subresource !== "") mine.subresource = request.subresource;
  managed.push(mine);
  (result.metadata ??= {}).managedFields = managed;
  return result;
}
