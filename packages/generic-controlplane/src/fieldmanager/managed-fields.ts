import type { ManagedFieldsEntry } from "../api/types.js";
import { fromFieldsV1, toFieldsV1 } from "./fields-v1.js";
import { union, type FieldSet } from "./field-set.js";

/**
 * `metadata.managedFields` decoded into one field set per manager, after apimachinery's
 * `managedfields/internal/managedfields.go`. A manager is identified by its name, operation,
 * subresource and, for `Update` only, apiVersion (an applier keeps one entry whatever version it
 * applies with).
 */

export interface ManagerEntry {
  manager: string;
  operation: "Apply" | "Update";
  apiVersion: string;
  subresource: string;
  time: string | undefined;
  fields: FieldSet;
}

/** The manager's identity as upstream spells it (`BuildManagerIdentifier`): JSON of the entry without time and fields. */
export function managerIdentifier(entry: Pick<ManagerEntry, "manager" | "operation" | "apiVersion" | "subresource">): string {
  const id: Record<string, string> = {};
  if (entry.manager !== "") id["manager"] = entry.manager;
  id["operation"] = entry.operation;
  if (entry.operation === "Update" && entry.apiVersion !== "") id["apiVersion"] = entry.apiVersion;
  if (entry.subresource !== "") id["subresource"] = entry.subresource;
  return JSON.stringify(id);
}

export type Managed = Map<string, ManagerEntry>;

/** Thrown for managedFields that do not decode (upstream then falls back to the stored entries). */
export class ManagedFieldsError extends Error {}

/** Decodes entries; anything upstream's `DecodeManagedFields` refuses is a ManagedFieldsError. */
export function decodeManagedFields(entries: readonly ManagedFieldsEntry[] | undefined): Managed {
  const managed: Managed = new Map();
  (entries ?? []).forEach((entry, i) => {
    if (entry === null || typeof entry !== "object") throw new ManagedFieldsError(`managed fields entry ${i} is not an object`);
    const operation = entry.operation as string | undefined;
    if (operation !== "Apply" && operation !== "Update") throw new ManagedFieldsError("operation must be `Apply` or `Update`");
    if (typeof entry.apiVersion !== "string" || entry.apiVersion === "") throw new ManagedFieldsError("apiVersion must not be empty");
    const fieldsType = entry.fieldsType as string | undefined;
    if (fieldsType === undefined || fieldsType === "") throw new ManagedFieldsError(`missing fieldsType in managed fields entry ${i}`);
    if (fieldsType !== "FieldsV1")
      throw new ManagedFieldsError(`invalid fieldsType ${JSON.stringify(fieldsType)} in managed fields entry ${i}`);
    let fields: FieldSet;
    try {
      fields = fromFieldsV1(entry.fieldsV1 ?? {});
    } catch (error) {
      throw new ManagedFieldsError(`error decoding versioned set: ${(error as Error).message}`);
    }
    const decoded: ManagerEntry = {
      manager: typeof entry.manager === "string" ? entry.manager : "",
      operation,
      apiVersion: entry.apiVersion,
      subresource: typeof entry.subresource === "string" ? entry.subresource : "",
      time: typeof entry.time === "string" ? entry.time : undefined,
      fields,
    };
    managed.set(managerIdentifier(decoded), decoded);
  });
  return managed;
}

function seconds(time: string | undefined): number {
  if (time === undefined) return 0;
  const ms = Date.parse(time);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

/** Encodes managers in upstream's order: appliers first, then by time, manager, apiVersion, subresource. */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] | undefined {
  if (managed.size === 0) return undefined;
  const entries = [...managed.values()].sort(
    (p, q) =>
      compareStrings(p.operation, q.operation) ||
      seconds(p.time) - seconds(q.time) ||
      compareStrings(p.manager, q.manager) ||
      compareStrings(p.apiVersion, q.apiVersion) ||
      compareStrings(p.subresource, q.subresource),
  );
  return entries.map((e) => {
    const out: ManagedFieldsEntry = { manager: e.manager, operation: e.operation, apiVersion: e.apiVersion };
    if (e.time !== undefined) out.time = e.time;
    out.fieldsType = "FieldsV1";
    out.fieldsV1 = toFieldsV1(e.fields);
    if (e.subresource !== "") out.subresource = e.subresource;
    return out;
  });
}

function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The manager name that collects the oldest update entries past the cap. */
export const ANCIENT_CHANGES = "ancient-changes";
/** upstream `DefaultMaxUpdateManagers`. */
export const MAX_UPDATE_MANAGERS = 10;

/**
 * Keeps at most `max` Update entries by merging the oldest ones into one `ancient-changes` entry
 * per apiVersion (upstream `capManagersManager`).
 */
export function capUpdateManagers(managed: Managed, max = MAX_UPDATE_MANAGERS): void {
  const updaters = [...managed.entries()].filter(([, e]) => e.operation === "Update").map(([id]) => id);
  if (updaters.length <= max) return;
  updaters.sort((a, b) => seconds(managed.get(a)?.time) - seconds(managed.get(b)?.time) || compareStrings(a, b));
  const firstOfVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > max; i++) {
    const id = updaters[i] as string;
    const entry = managed.get(id) as ManagerEntry;
    const version = entry.apiVersion;
    const bucket = managerIdentifier({ manager: ANCIENT_CHANGES, operation: "Update", apiVersion: version, subresource: "" });
    const first = firstOfVersion.get(version);
    if (first === undefined) {
      firstOfVersion.set(version, id);
      continue;
    }
    if (!managed.has(bucket)) {
      const firstEntry = managed.get(first) as ManagerEntry;
      managed.delete(first);
      managed.set(bucket, { ...firstEntry, manager: ANCIENT_CHANGES, subresource: "" });
    }
    const bucketEntry = managed.get(bucket) as ManagerEntry;
    // The bucket takes the time of the newer update merged into it.
    managed.set(bucket, { ...bucketEntry, fields: union(bucketEntry.fields, entry.fields), time: entry.time });
    managed.delete(id);
    length--;
  }
}
