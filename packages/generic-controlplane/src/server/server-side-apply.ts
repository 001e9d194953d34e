import type { KubeObject, ManagedFieldsEntry, StatusCause } from "../api/types.js";
import { ControlPlaneError } from "../errors.js";
import { fromFieldsV1, toFieldsV1 } from "../registry/managed-fields.js";
import { canonicalJson } from "../registry/object-utils.js";

/**
 * A simple server-side apply (`application/apply-patch+yaml`) over field ownership in
 * `metadata.managedFields`: the applied configuration's leaf fields are set, fields the manager
 * applied before and no longer lists are removed, and changing a field another manager owns is a
 * 409 `FieldManagerConflict` unless `force`. Maps merge key by key; lists are atomic (owned and
 * replaced whole) — associative lists (`x-kubernetes-list-type: map`) are not merged by key.
 */

const SEP = "\u0000";
/** Metadata a manager can own (the rest is system-managed or identity). */
const OWNED_METADATA = new Set(["labels", "annotations", "finalizers", "ownerReferences"]);

type Leaves = Map<string, unknown>;

function collect(value: unknown, path: string[], out: Leaves): void {
  if (value !== null && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length > 0) {
    for (const [key, child] of Object.entries(value as Record<string, unknown>)) collect(child, [...path, key], out);
    return;
  }
  out.set(path.join(SEP), value);
}

/** Leaf fields a manager can own, keyed by path (segments joined by NUL, as managed-fields.ts does). */
export function ownedLeaves(object: KubeObject, subresource: string): Leaves {
  const out: Leaves = new Map();
  for (const [key, value] of Object.entries(object)) {
    if (key === "apiVersion" || key === "kind") continue;
    if (subresource === "status" && key !== "status") continue;
    if (key === "metadata") {
      for (const [metaKey, metaValue] of Object.entries((value ?? {}) as Record<string, unknown>)) {
        if (OWNED_METADATA.has(metaKey)) collect(metaValue, ["metadata", metaKey], out);
      }
      continue;
    }
    collect(value, [key], out);
  }
  return out;
}

function related(a: string, b: string): boolean {
  return a === b || a.startsWith(b + SEP) || b.startsWith(a + SEP);
}

function setPath(object: Record<string, unknown>, path: string, value: unknown): void {
  const segments = path.split(SEP);
  let node = object;
  for (const segment of segments.slice(0, -1)) {
    const next = node[segment];
    if (next === null || typeof next !== "object" || Array.isArray(next)) node[segment] = {};
    node = node[segment] as Record<string, unknown>;
  }
  node[segments[segments.length - 1] as string] = structuredClone(value);
}

function deletePath(object: Record<string, unknown>, path: string): void {
  const segments = path.split(SEP);
  const parents: Array<[Record<string, unknown>, string]> = [];
  let node: unknown = object;
  for (const segment of segments.slice(0, -1)) {
    if (node === null || typeof node !== "object") return;
    parents.push([node as Record<string, unknown>, segment]);
    node = (node as Record<string, unknown>)[segment];
  }
  if (node === null || typeof node !== "object") return;
  delete (node as Record<string, unknown>)[segments[segments.length - 1] as string];
  // Maps emptied by the removal go too, as with a structured-merge-diff removal.
  for (let i = parents.length - 1; i >= 0; i--) {
    const [parent, key] = parents[i] as [Record<string, unknown>, string];
    const child = parent[key];
    if (child !== null && typeof child === "object" && !Array.isArray(child) && Object.keys(child).length === 0 && !(i === 0 && key === "metadata")) delete parent[key];
    else break;
  }
}

/** `.data.key` — how conflicts name fields. */
function dotted(path: string): string {
  return "." + path.split(SEP).join(".");
}

export interface ApplyRequest {
  manager: string;
  force: boolean;
  apiVersion: string;
  subresource: string;
  now: string;
}

/** Merges `applied` into `current` (undefined: the object is created) and returns the object to store, managedFields included. */
export function applyConfiguration(current: KubeObject | undefined, applied: KubeObject, request: ApplyRequest): KubeObject {
  const result = structuredClone(current ?? { apiVersion: applied.apiVersion, kind: applied.kind, metadata: { ...applied.metadata } }) as Record<string, unknown> & KubeObject;
  const metadata = (result.metadata ??= {});
  const entries: ManagedFieldsEntry[] = (metadata.managedFields ?? []).map((e) => ({ ...e }));
  const isMine = (e: ManagedFieldsEntry) => e.manager === request.manager && e.operation === "Apply" && (e.subresource ?? "") === request.subresource;
  const previouslyApplied = fromFieldsV1(entries.find(isMine)?.fieldsV1);
  const wanted = ownedLeaves(applied, request.subresource);
  const existing = ownedLeaves(result, request.subresource);

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
  for (const path of previouslyApplied) {
    if (!wanted.has(path) && ![...wanted.keys()].some((w) => related(w, path)) && !ownedByOthers(path)) deletePath(result, path);
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
