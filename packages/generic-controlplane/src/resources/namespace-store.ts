import type { DeleteOptions } from "../api/types.js";
import { formatTime, metadataOf } from "../registry/rest/object-utils.js";
import type { ResourceDefinition } from "../registry/rest/resource-definition.js";
import { createGenericStore, type GenericStore, type ResourceStoreOptions } from "../registry/store.js";
import { TerminatingStore } from "../registry/terminating-store.js";
import type { DeleteResult, RequestOptions, ResourceStore } from "../registry/types.js";
import type { Storage } from "../storage/types.js";
import { FINALIZER_DELETE_DEPENDENTS, FINALIZER_ORPHAN_DEPENDENTS } from "../validation/index.js";
import { NAMESPACE_PHASE_TERMINATING, namespaceFinalizeStrategy, namespacesResource, type Namespace } from "./namespaces.js";

/** The REST storage of namespaces: the main resource (with `/status`) and `/finalize`, which takes PUT only. */
export interface NamespaceStorage {
  store: ResourceStore;
  subresources: { finalize: ResourceStore };
}

/**
 * Namespaces' REST storage, after upstream's `pkg/registry/core/namespace/storage`: the generic
 * store, whose Delete starts termination instead of removing the namespace, and a copy of it
 * whose updates follow the finalize strategy (`spec.finalizers` is written only there). Both
 * share the storage and the admission plugins of `options`.
 */
export function createNamespaceStorage(
  storage: Storage,
  options: ResourceStoreOptions = {},
  definition: ResourceDefinition = namespacesResource,
): NamespaceStorage {
  const main = createGenericStore(definition, storage, options);
  const finalize = createGenericStore(
    { ...definition, strategy: { ...definition.strategy, ...namespaceFinalizeStrategy } },
    storage,
    options,
  );
  return { store: new NamespaceStore(main, options.clock ?? (() => new Date())), subresources: { finalize } };
}

/**
 * The main namespace resource. It serves no DELETE on the collection (upstream's REST is no
 * CollectionDeleter): every namespace goes through termination.
 */
class NamespaceStore extends TerminatingStore {
  constructor(
    main: GenericStore,
    private readonly clock: () => Date,
  ) {
    super(main);
  }

  /**
   * upstream namespace REST `Delete`. The first DELETE never removes the namespace: it sets
   * `deletionTimestamp`, phase Terminating and the garbage-collection finalizers the propagation
   * policy asks for, and answers the namespace (the namespace controller empties it, then
   * finalizes). Later DELETEs answer it as it stands while `spec.finalizers` remain, and then
   * remove it like any object (metadata finalizers still hold it). The answer is always the
   * namespace, removed or not (upstream's `ReturnDeletedObject`).
   */
  async delete(
    _namespace: string | undefined,
    name: string,
    deleteOptions: DeleteOptions = {},
    options: RequestOptions = {},
  ): Promise<DeleteResult> {
    const start = await this.startDeletion(name, deleteOptions);
    const current = start.current as Namespace;
    if (current.metadata?.deletionTimestamp === undefined) {
      const object = await this.terminate(name, start, options, (existing) => beginTermination(existing, deleteOptions, this.clock()));
      return { object, deleted: false, returnDeletedObject: true };
    }
    if ((current.spec?.finalizers ?? []).length > 0) return { object: current, deleted: false, returnDeletedObject: true };
    const result = await this.main.delete(undefined, name, { ...deleteOptions, preconditions: start.preconditions }, options);
    return { ...result, returnDeletedObject: true };
  }
}

/** The namespace as its first DELETE leaves it. */
function beginTermination(namespace: Namespace, options: DeleteOptions, now: Date): Namespace {
  const meta = metadataOf(namespace);
  meta.deletionTimestamp ??= formatTime(now);
  namespace.status = { ...namespace.status, phase: NAMESPACE_PHASE_TERMINATING };
  const existing = meta.finalizers ?? [];
  const wanted = new Map([
    [FINALIZER_ORPHAN_DEPENDENTS, shouldOrphanDependents(options, existing.includes(FINALIZER_ORPHAN_DEPENDENTS))],
    [FINALIZER_DELETE_DEPENDENTS, shouldDeleteDependents(options, existing.includes(FINALIZER_DELETE_DEPENDENTS))],
  ]);
  if ([...wanted].some(([finalizer, keep]) => existing.includes(finalizer) !== keep)) {
    const finalizers = existing.filter((f) => !wanted.has(f));
    for (const [finalizer, keep] of wanted) if (keep) finalizers.push(finalizer);
    meta.finalizers = finalizers;
  }
  return namespace;
}

/**
 * upstream `shouldHaveOrphanFinalizer` and `shouldHaveDeleteDependentsFinalizer`: unlike the
 * generic store, `orphanDependents: false` asks for foreground deletion of a namespace.
 */
function shouldOrphanDependents(options: DeleteOptions, has: boolean): boolean {
  if (options.orphanDependents !== undefined) return options.orphanDependents;
  if (options.propagationPolicy !== undefined) return options.propagationPolicy === "Orphan";
  return has;
}

function shouldDeleteDependents(options: DeleteOptions, has: boolean): boolean {
  if (options.orphanDependents !== undefined) return !options.orphanDependents;
  if (options.propagationPolicy !== undefined) return options.propagationPolicy === "Foreground";
  return has;
}
