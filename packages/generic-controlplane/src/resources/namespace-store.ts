import type { DeleteOptions, KubeObject } from "../api/types.js";
import { formatTime, metadataOf } from "../registry/object-utils.js";
import type { ResourceDefinition } from "../registry/resource-definition.js";
import { checkPreconditions, createGenericStore, type GenericStore, type Preconditions, type ResourceStoreOptions } from "../registry/store.js";
import type { DeleteResult, ListPages, ListRequest, RequestOptions, ResourceStore, ResourceWatch, WatchFlowControl, WatchRequest } from "../registry/types.js";
import type { Storage } from "../storage/types.js";
import { FINALIZER_DELETE_DEPENDENTS, FINALIZER_ORPHAN_DEPENDENTS } from "../validation/index.js";
import { NAMESPACE_PHASE_TERMINATING, namespaceFinalizeStrategy, namespacesResource, type Namespace } from "./namespaces.js";

const NAMESPACES = { group: "", resource: "namespaces" };

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
export function createNamespaceStorage(storage: Storage, options: ResourceStoreOptions = {}, definition: ResourceDefinition = namespacesResource): NamespaceStorage {
  const main = createGenericStore(definition, storage, options);
  const finalize = createGenericStore({ ...definition, strategy: { ...definition.strategy, ...namespaceFinalizeStrategy } }, storage, options);
  return { store: new NamespaceStore(main, options.clock ?? (() => new Date())), subresources: { finalize } };
}

/**
 * The main namespace resource. It serves no DELETE on the collection (upstream's REST is no
 * CollectionDeleter): every namespace goes through termination.
 */
class NamespaceStore implements ResourceStore {
  readonly definition: ResourceDefinition;

  constructor(
    private readonly main: GenericStore,
    private readonly clock: () => Date,
  ) {
    this.definition = main.definition;
  }

  get(namespace: string | undefined, name: string): Promise<KubeObject> {
    return this.main.get(namespace, name);
  }

  list(namespace: string | undefined, request?: ListRequest) {
    return this.main.list(namespace, request);
  }

  listPages(namespace: string | undefined, request?: ListRequest): Promise<ListPages | undefined> {
    return this.main.listPages?.(namespace, request) ?? Promise.resolve(undefined);
  }

  watch(
    namespace: string | undefined,
    request: WatchRequest,
    onEvent: Parameters<ResourceStore["watch"]>[2],
    onClose?: (error?: Error) => void,
    flow?: WatchFlowControl,
  ): Promise<ResourceWatch> {
    return this.main.watch(namespace, request, onEvent, onClose, flow);
  }

  create(namespace: string | undefined, object: KubeObject, options?: RequestOptions): Promise<KubeObject> {
    return this.main.create(namespace, object, options);
  }

  update(namespace: string | undefined, name: string, object: KubeObject, options?: RequestOptions): Promise<KubeObject> {
    return this.main.update(namespace, name, object, options);
  }

  guaranteedUpdate(namespace: string | undefined, name: string, mutate: (current: KubeObject) => KubeObject | Promise<KubeObject>, options?: RequestOptions): Promise<KubeObject> {
    return this.main.guaranteedUpdate(namespace, name, mutate, options);
  }

  /**
   * upstream namespace REST `Delete`. The first DELETE never removes the namespace: it sets
   * `deletionTimestamp`, phase Terminating and the garbage-collection finalizers the propagation
   * policy asks for, and answers the namespace (the namespace controller empties it, then
   * finalizes). Later DELETEs answer it as it stands while `spec.finalizers` remain, and then
   * remove it like any object (metadata finalizers still hold it). The answer is always the
   * namespace, removed or not (upstream's `ReturnDeletedObject`).
   */
  async delete(_namespace: string | undefined, name: string, deleteOptions: DeleteOptions = {}, options: RequestOptions = {}): Promise<DeleteResult> {
    const current = (await this.main.get(undefined, name)) as Namespace;
    // The uid read here is a precondition of what follows, so a namespace re-created meanwhile is left alone.
    const preconditions: Preconditions = { ...deleteOptions.preconditions };
    if (preconditions.uid === undefined && current.metadata?.uid !== undefined) preconditions.uid = current.metadata.uid;
    checkPreconditions(NAMESPACES, name, preconditions, current.metadata);

    if (current.metadata?.deletionTimestamp === undefined) {
      const object = await this.main.updateStored(
        undefined,
        name,
        async (existing) => {
          await this.main.validateDeletion(undefined, name, existing, options);
          return beginTermination(existing, deleteOptions, this.clock());
        },
        { dryRun: options.dryRun === true, preconditions },
      );
      return { object, deleted: false, returnDeletedObject: true };
    }
    if ((current.spec?.finalizers ?? []).length > 0) return { object: current, deleted: false, returnDeletedObject: true };
    const result = await this.main.delete(undefined, name, { ...deleteOptions, preconditions }, options);
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
