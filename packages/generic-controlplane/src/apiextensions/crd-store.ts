import type { DeleteOptions, KubeList, KubeObject } from "../api/types.js";
import { isControlPlaneError } from "../api/errors/control-plane-error.js";
import { formatTime, nextGeneration } from "../registry/rest/object-utils.js";
import type { ResourceDefinition } from "../registry/rest/resource-definition.js";
import { createGenericStore, type GenericStore, type ResourceStoreOptions } from "../registry/store.js";
import { TerminatingStore } from "../registry/terminating-store.js";
import type { DeleteResult, ListRequest, RequestOptions, ResourceStore } from "../registry/types.js";
import type { Storage } from "../storage/types.js";
import { CUSTOM_RESOURCE_CLEANUP_FINALIZER, setCondition, type CustomResourceDefinition } from "./types.js";

/** The CRD as its first DELETE leaves it: terminating, held by the cleanup finalizer until its custom resources are gone. */
function beginTermination(crd: CustomResourceDefinition, now: Date): CustomResourceDefinition {
  const meta = (crd.metadata ??= {});
  meta.deletionTimestamp = formatTime(now);
  meta.deletionGracePeriodSeconds = 0;
  if ((meta.generation ?? 0) > 0) meta.generation = nextGeneration(meta.generation);
  const finalizers = meta.finalizers ?? [];
  if (!finalizers.includes(CUSTOM_RESOURCE_CLEANUP_FINALIZER)) meta.finalizers = [...finalizers, CUSTOM_RESOURCE_CLEANUP_FINALIZER];
  setCondition(
    crd,
    {
      type: "Terminating",
      status: "True",
      reason: "InstanceDeletionPending",
      message: "CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon",
    },
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

class CrdStore extends TerminatingStore {
  constructor(
    main: GenericStore,
    private readonly clock: () => Date,
  ) {
    super(main);
  }

  /** upstream customresourcedefinition `REST.Delete`. */
  async delete(
    _namespace: string | undefined,
    name: string,
    deleteOptions: DeleteOptions = {},
    options: RequestOptions = {},
  ): Promise<DeleteResult> {
    const start = await this.startDeletion(name, deleteOptions);
    if (start.current.metadata?.deletionTimestamp === undefined) {
      const object = await this.terminate(name, start, options, (existing) => beginTermination(existing, this.clock()));
      return { object, deleted: false };
    }
    return this.main.delete(undefined, name, { ...deleteOptions, preconditions: start.preconditions }, options);
  }

  /** Each CRD of the collection goes through `delete`, so each keeps its custom resources' cleanup. */
  async deleteCollection(
    namespace: string | undefined,
    request: ListRequest,
    deleteOptions?: DeleteOptions,
    options?: RequestOptions,
  ): Promise<KubeList> {
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
