import type { DeleteOptions, KubeList, KubeObject } from "../api/types.js";
import type { ResourceDefinition } from "./rest/resource-definition.js";
import { checkPreconditions, type GenericStore, type Preconditions } from "./store.js";
import type {
  DeleteResult,
  ListPages,
  ListRequest,
  RequestOptions,
  ResourceStore,
  ResourceWatch,
  WatchFlowControl,
  WatchRequest,
} from "./types.js";

/** What a terminating store's DELETE found: the object, and the preconditions every later step keeps. */
export interface DeletionStart {
  current: KubeObject;
  preconditions: Preconditions;
}

/**
 * The REST storage of a kind whose first DELETE does not remove the object but marks it
 * terminating, so a controller can clean up behind it first (upstream's namespace and
 * customresourcedefinition `REST`). Everything but DELETE is the generic store's.
 */
export abstract class TerminatingStore implements ResourceStore {
  readonly definition: ResourceDefinition;

  constructor(protected readonly main: GenericStore) {
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

  guaranteedUpdate(
    namespace: string | undefined,
    name: string,
    mutate: (current: KubeObject) => KubeObject | Promise<KubeObject>,
    options?: RequestOptions,
  ): Promise<KubeObject> {
    return this.main.guaranteedUpdate(namespace, name, mutate, options);
  }

  abstract delete(
    namespace: string | undefined,
    name: string,
    deleteOptions?: DeleteOptions,
    options?: RequestOptions,
  ): Promise<DeleteResult>;

  /**
   * Reads the object and checks the request's preconditions. The uid read here becomes a
   * precondition of what follows, so an object re-created meanwhile is left alone.
   */
  protected async startDeletion(name: string, deleteOptions: DeleteOptions): Promise<DeletionStart> {
    const current = await this.main.get(undefined, name);
    const preconditions: Preconditions = { ...deleteOptions.preconditions };
    if (preconditions.uid === undefined && current.metadata?.uid !== undefined) preconditions.uid = current.metadata.uid;
    checkPreconditions({ group: this.definition.group, resource: this.definition.plural }, name, preconditions, current.metadata);
    return { current, preconditions };
  }

  /** The first DELETE: admission's delete checks, then `beginTermination` written in place of removing the object. */
  protected terminate(
    name: string,
    start: DeletionStart,
    options: RequestOptions,
    beginTermination: (existing: KubeObject) => KubeObject,
  ): Promise<KubeObject> {
    return this.main.updateStored(
      undefined,
      name,
      async (existing) => {
        await this.main.validateDeletion(undefined, name, existing, options);
        return beginTermination(existing);
      },
      { dryRun: options.dryRun === true, preconditions: start.preconditions },
    );
  }
}
