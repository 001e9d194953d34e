import type { AddressRecord, Conflict, ResourceReference } from "./types.js";

/*
 * Builders that always emit fields in one order and drop undefined ones, so that snapshots
 * and command output are byte-for-byte deterministic.
 */

export function normalizeReference(reference: ResourceReference): ResourceReference {
  const result: ResourceReference = { group: reference.group, resource: reference.resource };
  if (reference.namespace !== undefined) result.namespace = reference.namespace;
  if (reference.name !== undefined) result.name = reference.name;
  if (reference.uid !== undefined) result.uid = reference.uid;
  return result;
}

export function normalizeConflict(conflict: Conflict): Conflict {
  const result: Conflict = { reason: conflict.reason, message: conflict.message };
  if (conflict.relation !== undefined) result.relation = conflict.relation;
  if (conflict.claim !== undefined) result.claim = conflict.claim;
  if (conflict.prefix !== undefined) result.prefix = conflict.prefix;
  if (conflict.reference !== undefined) result.reference = normalizeReference(conflict.reference);
  if (conflict.nearestFree !== undefined) result.nearestFree = conflict.nearestFree;
  return result;
}

/** A record whose optional fields may also be present as `undefined` (they are dropped). */
export type LooseRecord = { [K in keyof AddressRecord]?: AddressRecord[K] | undefined } & Pick<AddressRecord, "reference" | "prefix">;

/** A copy of `record` with canonical field order; `prefix` is replaced by its canonical text. */
export function normalizeRecord(record: LooseRecord, prefix: string = record.prefix): AddressRecord {
  const result: AddressRecord = { reference: normalizeReference(record.reference), prefix };
  if (record.description !== undefined) result.description = record.description;
  if (record.date !== undefined) result.date = record.date;
  if (record.status !== undefined) result.status = record.status;
  if (record.parent !== undefined) result.parent = { claim: record.parent.claim, prefix: record.parent.prefix };
  if (record.delegateTo !== undefined) result.delegateTo = [...record.delegateTo];
  if (record.conflict !== undefined) result.conflict = normalizeConflict(record.conflict);
  if (record.warnings !== undefined && record.warnings.length > 0) result.warnings = [...record.warnings];
  return result;
}

/** The spec part of a record (what a component asks for), without status-only fields. */
export function specOf(record: AddressRecord, prefix: string = record.prefix): AddressRecord {
  const { date: _date, conflict: _conflict, warnings: _warnings, ...spec } = record;
  if (spec.status === "allocated") delete spec.status;
  return normalizeRecord(spec, prefix);
}

export function describeReference(reference: ResourceReference): string {
  const resource = reference.group === "" ? reference.resource : `${reference.resource}.${reference.group}`;
  return reference.name === undefined ? resource : `${resource}/${reference.name}`;
}
