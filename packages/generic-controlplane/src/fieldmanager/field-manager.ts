import type { KubeObject, ManagedFieldsEntry } from "../api/types.js";
import { badRequest } from "../api/errors/index.js";
import { withObjectMeta } from "../patch/schema-walk.js";
import { canonicalJson, sameJson } from "../registry/rest/object-utils.js";
import type { JSONSchemaProps } from "../schema/types.js";
import { conflictError, type Conflict } from "./conflict.js";
import {
  compare,
  difference,
  ensureNamedFieldsAreMembers,
  FieldSet,
  intersection,
  removeItems,
  sameSet,
  toFieldSet,
  union,
  withoutTopLevel,
  type Comparison,
} from "./field-set.js";
import { fieldElement, makePath } from "./fields-v1.js";
import {
  capUpdateManagers,
  decodeManagedFields,
  encodeManagedFields,
  managerIdentifier,
  ManagedFieldsError,
  type Managed,
  type ManagerEntry,
} from "./managed-fields.js";
import { mergeValues } from "./merge.js";
import { isRecord } from "./type-shape.js";
import { cloneJson } from "../patch/json-value.js";

/**
 * Field ownership for every write, after k8s.io/apimachinery's `managedfields` FieldManager and
 * structured-merge-diff's `merge.Updater`. An Update (create, update, patch) takes ownership of
 * the fields it added or changed and takes them from other managers; an Apply merges the applied
 * configuration into the live object, owns exactly the fields it lists, removes fields it listed
 * before and no longer lists when no other manager owns them, and fails with a 409 when it would
 * change a field another manager owns, unless forced.
 */

/** Who writes: the manager, its subresource, and the time recorded for it. */
export interface FieldManagerWrite {
  manager: string;
  subresource: string;
  /** metav1.Time of the write. */
  time: string;
}

export interface ApplyWrite extends FieldManagerWrite {
  force: boolean;
}

export interface FieldManagerOptions {
  /** Group/version the resource is served at (managedFields entries record it). */
  apiVersion: string;
  kind: string;
  /** The whole object's schema; without one the object's shape is deduced from its values. */
  schema: JSONSchemaProps | undefined;
  /** Whether `status` is written through `/status` only (and so is not owned through the main resource). */
  statusSubresource: boolean;
}

/** upstream `stripMetaManager`: fields no manager owns. */
const STRIPPED: FieldSet = FieldSet.of(
  makePath("f:apiVersion"),
  makePath("f:kind"),
  makePath("f:metadata"),
  ...["name", "namespace", "creationTimestamp", "selfLink", "uid", "clusterName", "generation", "managedFields", "resourceVersion"].map(
    (f) => makePath("f:metadata", fieldElement(f)),
  ),
);

/** The manager that owns what an object held when it was first applied to without managedFields. */
export const BEFORE_FIRST_APPLY = "before-first-apply";

export class FieldManager {
  private readonly schema: JSONSchemaProps;

  constructor(private readonly options: FieldManagerOptions) {
    this.schema = withObjectMeta(options.schema ?? { type: "object", "x-kubernetes-preserve-unknown-fields": true });
  }

  /**
   * The managedFields after a non-apply write of `next` over `live` (undefined on create). The
   * request's own managedFields are taken when they decode (so clients can edit them); an empty
   * list resets them; bogus ones and those sent to a subresource are ignored in favour of the
   * stored ones. Objects that have no managedFields stay untracked until they are first applied to.
   */
  update(live: KubeObject | undefined, next: KubeObject, write: FieldManagerWrite): ManagedFieldsEntry[] | undefined {
    const managed = this.decodeLiveOrNew(live, next, write.subresource !== "");
    // upstream `skipNonAppliedManager`: an existing object without managedFields is not tracked.
    if (managed.size === 0 && live !== undefined) return undefined;
    const before = live === undefined ? this.emptyObject() : withoutManagedFields(live);
    this.recordUpdate(managed, before, withoutManagedFields(next), write);
    return encodeManagedFields(managed);
  }

  /** The object after applying `config` to `live` (undefined: the object is created), managedFields included. */
  apply(live: KubeObject | undefined, config: KubeObject, write: ApplyWrite): KubeObject {
    // upstream `versionCheckManager`: the configuration is of this very type and version.
    if (config.apiVersion !== this.options.apiVersion || config.kind !== this.options.kind) {
      throw badRequest(`invalid object type: ${gvkString(config)}`);
    }
    if (config.metadata?.managedFields !== undefined) throw badRequest("metadata.managedFields must be nil");
    let managed: Managed;
    try {
      managed = decodeManagedFields(live?.metadata?.managedFields);
    } catch {
      managed = new Map();
    }
    const before: KubeObject = live === undefined ? this.emptyObject() : withoutManagedFields(live);
    // upstream `skipNonAppliedManager`: what an untracked object holds belongs to "before-first-apply".
    if (managed.size === 0)
      this.recordUpdate(managed, this.emptyObject(), before, { ...write, manager: BEFORE_FIRST_APPLY, subresource: "" });

    const id = managerIdentifier({
      manager: write.manager,
      operation: "Apply",
      apiVersion: this.options.apiVersion,
      subresource: write.subresource,
    });
    const previous = managed.get(id);
    const applied = withoutTopLevel(toFieldSet(config, this.schema), (element) => this.ignored(element, write.subresource));
    managed.set(id, {
      manager: write.manager,
      operation: "Apply",
      apiVersion: this.options.apiVersion,
      subresource: write.subresource,
      time: previous?.time,
      fields: applied,
    });

    const merged = mergeValues(before, config, this.schema) as KubeObject;
    const result = this.prune(merged, managed, previous?.fields);
    this.takeOwnership(managed, before, result, id, write.force, write.subresource);

    const mine = managed.get(id) as ManagerEntry;
    mine.fields = difference(mine.fields, STRIPPED);
    const changed = !sameJson(before, result);
    if (mine.fields.isEmpty()) managed.delete(id);
    else if (changed || previous === undefined || !sameSet(previous.fields, mine.fields)) mine.time = write.time;
    const managedFields = encodeManagedFields(managed);
    const metadata = { ...(result.metadata ?? {}) };
    if (managedFields === undefined) delete metadata.managedFields;
    else metadata.managedFields = managedFields;
    // upstream `lastAppliedUpdater`: kubectl's server-side apply keeps a client-side apply annotation in step.
    const annotations = metadata.annotations;
    if (write.manager === "kubectl" && annotations?.[LAST_APPLIED] !== undefined) {
      metadata.annotations = { ...annotations, [LAST_APPLIED]: lastAppliedOf(config) };
    }
    const object: KubeObject = { ...result, metadata };
    // The empty structs of the new object only keep ownership right; a struct the configuration
    // leaves out is not created (an optional one, e.g. a ClusterRole's aggregationRule, means something when present).
    if (live === undefined) {
      for (const key of Object.keys(before)) {
        if (key !== "metadata" && !Object.hasOwn(config, key) && isEmptyRecord(object[key])) delete object[key];
      }
    }
    return object;
  }

  // ---- the structured-merge-diff updater -------------------------------------------------

  /** An Update by `write.manager`: what changed from `before` to `after` becomes its own (upstream `managedFieldsUpdater` over `Updater.Update`). */
  private recordUpdate(managed: Managed, before: KubeObject, after: KubeObject, write: FieldManagerWrite): void {
    const operation = "current-operation";
    const comparison = this.takeOwnership(managed, before, after, operation, true, write.subresource);
    const taken = difference(union(comparison.modified, comparison.added), STRIPPED);
    if (!taken.isEmpty()) {
      const id = managerIdentifier({
        manager: write.manager,
        operation: "Update",
        apiVersion: this.options.apiVersion,
        subresource: write.subresource,
      });
      const previous = managed.get(id);
      managed.set(id, {
        manager: write.manager,
        operation: "Update",
        apiVersion: this.options.apiVersion,
        subresource: write.subresource,
        time: write.time,
        fields: previous === undefined ? taken : union(previous.fields, taken),
      });
    }
    capUpdateManagers(managed);
  }

  /**
   * SMD `Updater.update`: fields `after` adds or changes leave every other manager (a conflict
   * unless `force`), and fields it removes leave everyone. Managers left with nothing are dropped.
   */
  private takeOwnership(
    managed: Managed,
    before: KubeObject,
    after: KubeObject,
    self: string,
    force: boolean,
    subresource: string,
  ): Comparison {
    const raw = compare(before, after, this.schema);
    const ignored = (element: string) => this.ignored(element, subresource);
    const comparison: Comparison = {
      added: withoutTopLevel(raw.added, ignored),
      modified: withoutTopLevel(raw.modified, ignored),
      removed: withoutTopLevel(raw.removed, ignored),
    };
    const changed = union(comparison.modified, comparison.added);
    const conflicts: Conflict[] = [];
    const taken = new Map<string, FieldSet>();
    for (const [id, entry] of managed) {
      if (id === self) continue;
      const contested = intersection(entry.fields, changed);
      if (!contested.isEmpty()) {
        taken.set(id, contested);
        for (const path of contested) conflicts.push({ id, manager: entry, path });
      }
    }
    if (!force && conflicts.length > 0) throw conflictError(conflicts);
    for (const [id, entry] of [...managed]) {
      if (id === self) continue;
      const fields = difference(difference(entry.fields, taken.get(id) ?? new FieldSet()), comparison.removed);
      if (fields.isEmpty()) managed.delete(id);
      else if (!sameSet(fields, entry.fields)) managed.set(id, { ...entry, fields });
    }
    return comparison;
  }

  /**
   * SMD `Updater.prune`: removes what the applier applied last time and no longer applies, unless
   * another manager (or its new configuration) owns it.
   */
  private prune(merged: KubeObject, managed: Managed, last: FieldSet | undefined): KubeObject {
    if (last === undefined || last.isEmpty()) return merged;
    const ensure = (set: FieldSet) => ensureNamedFieldsAreMembers(set, this.schema);
    const lastSet = ensure(last);
    const mergedSet = ensure(toFieldSet(merged, this.schema));
    let pruned = asObject(removeItems(merged, lastSet, this.schema));
    // Add back what any manager owns.
    const owned = ensure(union(...[...managed.values()].map((e) => e.fields)));
    pruned = asObject(removeItems(merged, difference(mergedSet, union(ensure(toFieldSet(pruned, this.schema)), owned)), this.schema));
    // Add back what the applier never owned (unowned or owned by updaters), keeping only its own removals.
    const prunedSet = ensure(toFieldSet(pruned, this.schema));
    return asObject(removeItems(merged, intersection(difference(mergedSet, prunedSet), lastSet), this.schema));
  }

  // ---- helpers ---------------------------------------------------------------------------

  /** Fields the write's strategy resets, which nobody owns through it (upstream `GetResetFields`), by their top-level element. */
  private ignored(first: string, subresource: string): boolean {
    if (subresource === "status") return first !== "f:metadata" && first !== "f:status";
    return this.options.statusSubresource && first === "f:status";
  }

  /**
   * The object a create starts from, like upstream's new empty typed object: type meta, empty
   * metadata, and empty top-level structs (so `spec` itself is not owned, only its fields).
   */
  private emptyObject(): KubeObject {
    const empty: KubeObject = { apiVersion: this.options.apiVersion, kind: this.options.kind, metadata: {} };
    for (const [key, property] of Object.entries(this.options.schema?.properties ?? {})) {
      if (key === "metadata" || key === "apiVersion" || key === "kind") continue;
      if (property.properties !== undefined && property.additionalProperties === undefined) empty[key] = {};
    }
    return empty;
  }

  private decodeLiveOrNew(live: KubeObject | undefined, next: KubeObject, ignoreRequest: boolean): Managed {
    const fromLive = (): Managed => {
      try {
        return decodeManagedFields(live?.metadata?.managedFields);
      } catch {
        return new Map();
      }
    };
    if (ignoreRequest) return fromLive();
    const sent = next.metadata?.managedFields;
    if (isResetManagedFields(sent)) return new Map();
    try {
      const managed = decodeManagedFields(sent);
      return managed.size === 0 ? fromLive() : managed;
    } catch (error) {
      if (error instanceof ManagedFieldsError) return fromLive();
      throw error;
    }
  }
}

/** The client-side apply annotation (`kubectl apply` without `--server-side`). */
const LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration";

/** The annotation's value for an applied configuration: its JSON without the annotation itself, as Go encodes it. */
function lastAppliedOf(config: KubeObject): string {
  const copy = cloneJson(config);
  if (copy.metadata?.annotations !== undefined) delete copy.metadata.annotations[LAST_APPLIED];
  const json = canonicalJson(copy).replace(/[<>&]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`);
  return `${json}\n`;
}

/** `managedFields: []` or `managedFields: [{}]` asks for a reset (upstream `isResetManagedFields`). */
function isResetManagedFields(sent: unknown): boolean {
  if (!Array.isArray(sent)) return false;
  if (sent.length === 0) return true;
  return sent.length === 1 && isRecord(sent[0]) && Object.keys(sent[0]).length === 0;
}

function withoutManagedFields(object: KubeObject): KubeObject {
  if (object.metadata?.managedFields === undefined) return object;
  const metadata = { ...object.metadata };
  delete metadata.managedFields;
  return { ...object, metadata };
}

function asObject(value: unknown): KubeObject {
  return isRecord(value) ? value : {};
}

/** Go's `GroupVersionKind.String()`: `apps/v1, Kind=Deployment`. */
function gvkString(object: KubeObject): string {
  const apiVersion = object.apiVersion ?? "";
  const slash = apiVersion.indexOf("/");
  const group = slash === -1 ? "" : apiVersion.slice(0, slash);
  const version = slash === -1 ? apiVersion : apiVersion.slice(slash + 1);
  return `${group}/${version}, Kind=${object.kind ?? ""}`;
}

function isEmptyRecord(value: unknown): boolean {
  return value !== null && typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0;
}
