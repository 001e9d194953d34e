import type { DeleteOptions, KubeList, KubeObject } from "../api/types.js";
import { isControlPlaneError } from "../errors.js";
import { formatTime } from "../registry/object-utils.js";
import type { ResourceDefinition } from "../registry/resource-definition.js";
import { checkPreconditions, createGenericStore, type GenericStore, type Preconditions, type ResourceStoreOptions } from "../registry/store.js";
import type { DeleteResult, ListPages, ListRequest, RequestOptions, ResourceStore, ResourceWatch, WatchFlowControl, WatchRequest } from "../registry/types.js";
import type { Storage } from "../storage/types.js";
import { CRD_GROUP, CRD_PLURAL, CUSTOM_RESOURCE_CLEANUP_FINALIZER, setCondition, type CustomResourceDefinition } from "./types.js";

const CRDS = { group: CRD_GROUP, resource: CRD_PLURAL };

/** The CRD as its first DELETE leaves it: terminating, held by the cleanup finalizer until its custom resources are gone. */
function beginTermination(crd: CustomResourceDefinition, now: Date): CustomResourceDefinition {
  const meta = (crd.metadata ??= {});
  meta.deletionTimestamp = formatTime(now);
  meta.deletionGracePeriodSeconds = 0;
  if ((meta.generation ?? 0) > 0) meta.generation = (meta.generation ?? 0) + 1;
  const finalizers = meta.finalizers ?? [];
  if (!finalizers.includes(CUSTOM_RESOURCE_CLEANUP_FINALIZER)) meta.finalizers = [...finalizers, CUSTOM_RESOURCE_CLEANUP_FINALIZER];
  setCondition(
    crd,
    { type: "Terminating", status: "True", reason: "InstanceDeletionPending", message: "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon" },
    formatTime(now),
  );
  return crd;
}

/**
 * The REST storage of CustomResourceDefinitions (upstream's customresourcedefinition `REST`):
 * the generic store, except that DELETE first marks the CRD terminating with the
 * `customresourcecleanup.apiextensions.k8s.io` finalizer, so its custom resources are deleted
 * before it goes.
 */
export function createCrdStorage(definition: ResourceDefinition, storage: Storage, options: ResourceStoreOptions = {}): ResourceStore {
  return new CrdStore(createGenericStore(definition, storage, options), options.clock ?? (() => new Date()));
}

class CrdStore implements ResourceStore {
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

  list(namespace: string | undefined, request?: ListRequest): Promise<KubeList> {
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

  /** upstream customresourcedefinition `REST.Delete`. */
  async delete(_namespace: string | undefined, name: string, deleteOptions: DeleteOptions = {}, options: RequestOptions = {}): Promise<DeleteResult> {
    const current = await this.main.get(undefined, name);
    // The uid read here is a precondition of what follows, so a CRD re-created meanwhile is left alone.
    const preconditions: Preconditions = { ...deleteOptions.preconditions };
    if (preconditions.uid === undefined && current.metadata?.uid !== undefined) preconditions.uid = current.metadata.uid;
    checkPreconditions(CRDS, name, preconditions, current.metadata);
    if (current.metadata?.deletionTimestamp === undefined) {
      const object = await this.main.updateStored(
        undefined,
        name,
        async (existing) => {
          await this.main.validateDeletion(undefined, name, existing, options);
          return beginTermination(existing, this.clock());
        },
        { dryRun: options.dryRun === true, preconditions },
      );
      return { object, deleted: false };
    }
    return this.main.delete(undefined, name, { ...deleteOptions, preconditions }, options);
  }

  /** Each CRD of the collection goes through `delete`, so each keeps its custom resources' cleanup. */
  async deleteCollection(namespace: string | undefined, request: ListRequest, deleteOptions?: DeleteOptions, options?: RequestOptions): Promise<KubeList> {
    const list = await this.main.list(namespace, request);
    const items: KubeObject[] = [];
    for (const item of list.items) {
      try {
        items.push((await this.delete(undefined, item.metadata?.name ?? "", deleteOptions, options)).object);
      } catch (error) {
        // Deleted meanwhile: that is what was asked.
        if (!(isControlPlaneError(error) && error.code === "NotFound")) throw error;
      }
    }
    return { ...list, items };
  }
}
