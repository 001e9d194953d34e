import { randomInt, randomUUID } from "node:crypto";
import type { DeleteOptions, KubeList, KubeObject, ObjectMeta, WatchEvent } from "../api/types.js";
import { FieldManager, type FieldManagerWrite } from "../fieldmanager/field-manager.js";
import {
  alreadyExists,
  conflict,
  namespaceMismatch,
  nameMismatch,
  notFound,
  preconditionFailed,
  resourceVersionSetOnCreate,
} from "../api/errors/index.js";
import { isControlPlaneError } from "../api/errors/control-plane-error.js";
import type { KeyValue, Storage } from "../storage/types.js";
import { invalidError } from "../validation/field-errors.js";
import { carryFieldTypesCheck, checkFieldTypes, passedFieldTypes } from "../validation/field-types.js";
import {
  FINALIZER_DELETE_DEPENDENTS,
  FINALIZER_ORPHAN_DEPENDENTS,
  validateObjectMeta,
  validateObjectMetaUpdate,
} from "../validation/object-meta.js";
import { resourceKeys, type ResourceKeys } from "./keys.js";
import { listObjects, listPages, type ListContext } from "./list.js";
import { DecodedPages } from "./decoded-pages.js";
import { apiVersionOf, formatTime, generateName, nextGeneration, metadataOf, sameJson, specOf } from "./rest/object-utils.js";
import { cloneJson } from "../patch/json-value.js";
import type { ResourceDefinition } from "./rest/resource-definition.js";
import type { FieldError } from "../validation/field-errors.js";
import { runMutatingAdmission, runValidatingAdmission } from "../admission/runner.js";
import { operationOptions, type AdmissionAttributes, type AdmissionPlugin } from "../admission/types.js";
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
import { startWatch } from "./watch.js";
import { LruCache } from "./lru-cache.js";
import { parseExactJson, stringifyExactJson } from "../api/exact-json.js";

export interface ResourceStoreOptions {
  /** Admission plugins, run in order: every `admit` (mutating), then, after validation, every `validate`. */
  admission?: AdmissionPlugin[];
  /** Source of `creationTimestamp`, `deletionTimestamp` and managedFields times. */
  clock?: () => Date;
  /** New object UIDs. */
  uid?: () => string;
  /** Random integer in [0, max) for generated names. */
  random?: (max: number) => number;
  /** Key root, `/registry` by default. */
  keyRoot?: string;
  /** Progress BOOKMARK interval for watches that allow bookmarks, unless the request sets one (default 60 s). */
  bookmarkIntervalMs?: number;
  /**
   * Whether DELETE honours `propagationPolicy` by adding the `orphan`/`foregroundDeletion`
   * finalizers a garbage collector acts on (default true, like kube-apiserver).
   */
  garbageCollection?: boolean;
}

/** Attempts at a name from `generateName` before giving up (KEP-4420 retries on collision). */
const GENERATE_NAME_ATTEMPTS = 8;
/** Optimistic-concurrency retries of an unconditional write before reporting the conflict. */
const MAX_UPDATE_RETRIES = 16;
/**
 * Stored values (and storage events) whose decoded objects (and watch events) a store keeps: the
 * writes of the last moments, which every watcher converts as they fan out and a watcher's
 * selector compares with the version before.
 */
const RECENT_VALUES = 1024;

const INTERNAL_CAS_CONFLICT = Symbol("casConflict");

export function createResourceStore<T extends KubeObject = KubeObject>(
  definition: ResourceDefinition<T>,
  storage: Storage,
  options: ResourceStoreOptions = {},
): ResourceStore {
  return createGenericStore(definition, storage, options);
}

/** DeleteOptions' preconditions: the uid and resourceVersion the stored object must still have. */
export type Preconditions = NonNullable<DeleteOptions["preconditions"]>;

/**
 * The generic store with the parts a resource-specific REST storage builds on (upstream's REST
 * types reach into their `genericregistry.Store` the same way, e.g. namespaces' Delete).
 */
export interface GenericStore extends ResourceStore {
  deleteCollection: NonNullable<ResourceStore["deleteCollection"]>;
  /**
   * Storage's own read-modify-write (upstream `Store.Storage.GuaranteedUpdate`): no strategy,
   * validation, admission or managedFields, for transitions only the server makes. `mutate` gets
   * the stored object on every attempt and may throw to abort; `preconditions` are checked
   * against it first. A result equal to the stored object is not written.
   */
  updateStored(
    namespace: string | undefined,
    name: string,
    mutate: (current: KubeObject) => KubeObject | Promise<KubeObject>,
    options?: { dryRun?: boolean; preconditions?: Preconditions },
  ): Promise<KubeObject>;
  /**
   * Admission of deleting `old` (upstream `AdmissionToValidateObjectDeleteFunc`): every mutating
   * then every validating plugin sees a DELETE with the stored object as the old object.
   */
  validateDeletion(namespace: string | undefined, name: string, old: KubeObject, options?: RequestOptions): Promise<void>;
}

export function createGenericStore<T extends KubeObject = KubeObject>(
  definition: ResourceDefinition<T>,
  storage: Storage,
  options: ResourceStoreOptions = {},
): GenericStore {
  return new GenericResourceStore(definition as unknown as ResourceDefinition, storage, options);
}

/** upstream `storage.Preconditions.Check`: a Conflict naming which precondition failed. */
export function checkPreconditions(
  groupResource: { group: string; resource: string },
  name: string,
  preconditions: Preconditions | undefined,
  meta: ObjectMeta | undefined,
): void {
  if (preconditions?.uid !== undefined && preconditions.uid !== meta?.uid) {
    throw preconditionFailed(groupResource, name, "UID", preconditions.uid, meta?.uid ?? "");
  }
  if (preconditions?.resourceVersion !== undefined && preconditions.resourceVersion !== meta?.resourceVersion) {
    throw preconditionFailed(groupResource, name, "ResourceVersion", preconditions.resourceVersion, meta?.resourceVersion ?? "");
  }
}

class GenericResourceStore implements GenericStore {
  readonly definition: ResourceDefinition;
  private readonly keys: ResourceKeys;
  private readonly apiVersion: string;
  private readonly namespaced: boolean;
  private readonly groupResource: { group: string; resource: string };
  private readonly clock: () => Date;
  private readonly uid: () => string;
  private readonly random: (max: number) => number;
  private readonly admission: AdmissionPlugin[];
  private readonly gc: boolean;
  private readonly fieldManager: FieldManager;
  /**
   * Decoded objects of the stored values written or read most recently, shared by every watcher a
   * change fans out to. Not kept for as long as storage keeps the value: storage keeps every
   * version until compaction, and a decoded object per version is several times its JSON.
   */
  private readonly decoded = new LruCache<KeyValue, KubeObject>(RECENT_VALUES);
  /** Decoded list pages, so an unchanged page is written out again without a look-up per object. */
  private readonly decodedPages = new DecodedPages((kv) => this.decode(kv));
  /** Watch events of the most recent storage events, shared by every watcher (so each is serialised once). */
  private readonly eventCache = new LruCache<object, Map<string, WatchEvent>>(RECENT_VALUES);

  constructor(
    definition: ResourceDefinition,
    private readonly storage: Storage,
    private readonly options: ResourceStoreOptions,
  ) {
    this.definition = definition;
    // A type stored as another (events.k8s.io/v1 events as core events) shares that type's keys.
    this.keys = resourceKeys(
      definition.storedAs ? { ...definition, group: definition.storedAs.group, plural: definition.storedAs.plural } : definition,
      options.keyRoot,
    );
    this.apiVersion = apiVersionOf(definition);
    this.namespaced = definition.scope === "Namespaced";
    this.groupResource = { group: definition.group, resource: definition.plural };
    this.clock = options.clock ?? (() => new Date());
    this.uid = options.uid ?? randomUUID;
    this.random = options.random ?? randomInt;
    this.admission = options.admission ?? [];
    this.gc = options.garbageCollection ?? true;
    // Field ownership is kept here because every write passes the store (upstream calls its field
    // manager from each REST handler instead): create, update, every patch type and apply alike.
    this.fieldManager = new FieldManager({
      apiVersion: this.apiVersion,
      kind: definition.kind,
      schema: definition.schema,
      statusSubresource: definition.statusSubresource === true,
    });
  }

  // ---- reads -------------------------------------------------------------------------------

  async get(namespace: string | undefined, name: string): Promise<KubeObject> {
    const kv = await this.storage.get(this.keys.key(this.scopeNamespace(namespace), name));
    if (kv === undefined) throw notFound(this.groupResource, name);
    return this.decodeFresh(kv);
  }

  list(namespace: string | undefined, request: ListRequest = {}): Promise<KubeList> {
    return listObjects(this.listContext(namespace), this.keys.prefix(this.scopeNamespace(namespace)), request);
  }

  listPages(namespace: string | undefined, request: ListRequest = {}): Promise<ListPages | undefined> {
    // Pages are written out, never handed to callers to change: each stored value is decoded once.
    return listPages(
      { ...this.listContext(namespace), decode: (kv) => this.decode(kv), decodePage: (values) => this.decodedPages.objectsOf(values) },
      this.keys.prefix(this.scopeNamespace(namespace)),
      request,
    );
  }

  private listContext(namespace: string | undefined): ListContext {
    return {
      definition: this.definition,
      storage: this.storage,
      apiVersion: this.apiVersion,
      decode: (kv) => this.decodeFresh(kv),
      exactKey: (name, selectedNamespace) => {
        if (!this.namespaced) return this.keys.key(undefined, name);
        const ns = namespace || selectedNamespace;
        return ns ? this.keys.key(ns, name) : undefined;
      },
    };
  }

  watch(
    namespace: string | undefined,
    request: WatchRequest,
    onEvent: (event: WatchEvent) => void,
    onClose?: (error?: Error) => void,
    flow?: WatchFlowControl,
  ): Promise<ResourceWatch> {
    return startWatch(
      {
        definition: this.definition,
        storage: this.storage,
        apiVersion: this.apiVersion,
        decode: (kv) => this.decode(kv),
        eventCache: this.eventCache,
        bookmarkIntervalMs: this.options.bookmarkIntervalMs ?? 60_000,
      },
      this.keys.prefix(this.scopeNamespace(namespace)),
      request,
      onEvent,
      onClose,
      flow,
    );
  }

  // ---- create ------------------------------------------------------------------------------

  async create(namespace: string | undefined, input: KubeObject, options: RequestOptions = {}): Promise<KubeObject> {
    const dryRun = options.dryRun === true;
    // The wire decoder has type-checked a body; its copy needs no second walk (and no mark of its own).
    const typesChecked = passedFieldTypes(input, this.definition);
    let object = cloneJson(input);
    // Server-side apply creates what the configuration merged into an empty object gives.
    const apply = this.applyWrite(options);
    if (apply !== undefined) object = this.fieldManager.apply(undefined, object, apply);
    if (apply !== undefined || !typesChecked) checkFieldTypes(object, this.definition);
    this.setTypeMeta(object);
    this.adoptNamespace(metadataOf(object), namespace);
    if (metadataOf(object).resourceVersion) {
      throw resourceVersionSetOnCreate();
    }
    object = await this.admit("CREATE", object, undefined, namespace, metadataOf(object).name ?? "", options);
    this.setTypeMeta(object);

    // BeforeCreate: system fields are the server's.
    const meta = metadataOf(object);
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.resourceVersion;
    delete meta.selfLink;
    if (this.definition.statusSubresource) delete object.status;
    if (this.definition.tracksGeneration) meta.generation = 1;
    this.definition.strategy?.prepareForCreate?.(object);
    const now = this.clock();
    meta.uid = this.uid();
    meta.creationTimestamp = formatTime(now);
    const generated = !meta.name && !!meta.generateName;
    if (generated) meta.name = generateName(meta.generateName ?? "", this.random);
    // Without a manager nothing is tracked; managedFields a client sent are never stored unchecked.
    if (apply === undefined) {
      this.setManagedFields(
        meta,
        options.fieldManager === undefined ? undefined : this.fieldManager.update(undefined, object, this.fieldManagerWrite(options, now)),
      );
    }

    const errors: FieldError[] = [
      ...validateObjectMeta(meta, { namespaced: this.namespaced, nameRule: this.definition.nameRule ?? "DNS1123Subdomain" }),
      ...(this.definition.strategy?.validate?.(object) ?? []),
    ];
    if (errors.length > 0) throw invalidError(this.definition, meta.name ?? "", errors);
    await this.validateAdmission("CREATE", object, undefined, namespace, meta.name ?? "", options);

    for (let attempt = 1; ; attempt++) {
      const key = this.keys.key(meta.namespace, meta.name ?? "");
      try {
        if (dryRun) {
          if ((await this.storage.get(key)) !== undefined) throw alreadyExists(this.groupResource, meta.name ?? "");
          return object;
        }
        const value = this.encode(object);
        return this.written(object, value, await this.storage.create(key, value));
      } catch (error) {
        if (!isControlPlaneError(error) || error.code !== "AlreadyExists") throw error;
        if (generated && attempt < GENERATE_NAME_ATTEMPTS) {
          meta.name = generateName(meta.generateName ?? "", this.random);
          continue;
        }
        throw alreadyExists(this.groupResource, meta.name ?? "");
      }
    }
  }

  // ---- update ------------------------------------------------------------------------------

  update(namespace: string | undefined, name: string, object: KubeObject, options: RequestOptions = {}): Promise<KubeObject> {
    return this.updateLoop(namespace, name, () => object, options);
  }

  guaranteedUpdate(
    namespace: string | undefined,
    name: string,
    mutate: (current: KubeObject) => KubeObject | Promise<KubeObject>,
    options: RequestOptions = {},
  ): Promise<KubeObject> {
    return this.updateLoop(namespace, name, mutate, options);
  }

  private async updateLoop(
    namespace: string | undefined,
    name: string,
    produce: (current: KubeObject) => KubeObject | Promise<KubeObject>,
    options: RequestOptions,
  ): Promise<KubeObject> {
    const key = this.keys.key(this.scopeNamespace(namespace), name);
    // On a lost race the next attempt reads fresh state, where a resourceVersion precondition fails.
    return this.retryOnConflict(key, name, async (kv, current) => {
      const produced = await produce(cloneJson(current));
      const desired = cloneJson(produced);
      carryFieldTypesCheck(produced, desired);
      const requested = desired.metadata?.resourceVersion;
      if (requested && requested !== current.metadata?.resourceVersion) throw conflict(this.groupResource, name);
      return this.applyUpdate(namespace, name, key, kv, current, desired, options);
    });
  }

  /**
   * Runs `attempt` on the stored object, and again on fresh state each time its compare-and-swap
   * loses (it throws INTERNAL_CAS_CONFLICT): upstream's GuaranteedUpdate loop. NotFound when the
   * object is gone; Conflict when the races go on.
   */
  private async retryOnConflict<R>(key: string, name: string, attempt: (kv: KeyValue, current: KubeObject) => Promise<R>): Promise<R> {
    for (let n = 1; ; n++) {
      const kv = await this.storage.get(key);
      if (kv === undefined) throw notFound(this.groupResource, name);
      try {
        return await attempt(kv, this.decodeFresh(kv));
      } catch (error) {
        if (error !== INTERNAL_CAS_CONFLICT) throw error;
        if (n >= MAX_UPDATE_RETRIES) throw conflict(this.groupResource, name);
      }
    }
  }

  private async applyUpdate(
    namespace: string | undefined,
    name: string,
    key: string,
    kv: KeyValue,
    current: KubeObject,
    input: KubeObject,
    options: RequestOptions,
  ): Promise<KubeObject> {
    const subresource = options.subresource ?? "";
    // Server-side apply merges the configuration (whose type it checks) into the live object.
    const apply = this.applyWrite(options);
    let desired = apply === undefined ? input : this.fieldManager.apply(current, input, apply);
    checkFieldTypes(desired, this.definition);
    this.setTypeMeta(desired);
    const requestMeta = metadataOf(desired);
    if (!requestMeta.name) requestMeta.name = name;
    else if (requestMeta.name !== name) {
      throw nameMismatch(requestMeta.name, name);
    }
    this.adoptNamespace(requestMeta, namespace);
    desired = await this.admit("UPDATE", desired, current, namespace, name, options);
    this.setTypeMeta(desired);

    const oldMeta = current.metadata ?? {};
    if (this.definition.statusSubresource) {
      if (subresource === "status") desired = this.statusOnly(current, desired);
      else if (current.status === undefined) delete desired.status;
      else desired.status = cloneJson(current.status);
    }
    const meta = metadataOf(desired);
    // BeforeUpdate: requests cannot change generation, uid, creation or deletion times.
    if (oldMeta.generation === undefined) delete meta.generation;
    else meta.generation = oldMeta.generation;
    this.definition.strategy?.prepareForUpdate?.(desired, current);
    if (!meta.uid && oldMeta.uid) meta.uid = oldMeta.uid;
    if (oldMeta.creationTimestamp) meta.creationTimestamp = oldMeta.creationTimestamp;
    if (oldMeta.deletionTimestamp) meta.deletionTimestamp = oldMeta.deletionTimestamp;
    if (oldMeta.deletionGracePeriodSeconds !== undefined && meta.deletionGracePeriodSeconds === undefined) {
      meta.deletionGracePeriodSeconds = oldMeta.deletionGracePeriodSeconds;
    }
    meta.resourceVersion = oldMeta.resourceVersion ?? "";
    if (this.definition.tracksGeneration && !sameJson(specOf(desired), specOf(current))) {
      meta.generation = nextGeneration(oldMeta.generation);
    }
    delete meta.selfLink;

    let errors = [...validateObjectMetaUpdate(meta, oldMeta), ...(this.definition.strategy?.validateUpdate?.(desired, current) ?? [])];
    if (options.allowSettingDeletionTimestamp) {
      errors = errors.filter((e) => e.field !== "metadata.deletionTimestamp" && e.field !== "metadata.deletionGracePeriodSeconds");
    }
    if (errors.length > 0) throw invalidError(this.definition, name, errors);
    await this.validateAdmission("UPDATE", desired, current, namespace, name, options);

    if (apply === undefined) {
      const managed =
        options.fieldManager === undefined
          ? oldMeta.managedFields
          : this.fieldManager.update(current, desired, this.fieldManagerWrite(options, this.clock()));
      this.setManagedFields(meta, managed);
    }
    // A write that changes nothing, ownership included, is not written (no new resourceVersion, no watch event).
    if (this.sameContent(desired, current)) return current;

    if (this.shouldDeleteDuringUpdate(desired)) {
      if (options.dryRun) return desired;
      const deleted = await this.casDelete(key, kv.modRevision);
      meta.resourceVersion = String(deleted.modRevision);
      return desired;
    }
    if (options.dryRun) return desired;
    const value = this.encode(desired);
    let written: KeyValue;
    try {
      written = await this.storage.update(key, value, kv.modRevision);
    } catch (error) {
      throw this.casError(error, name);
    }
    return this.written(desired, value, written);
  }

  /**
   * `/status` writes keep the stored spec (everything but metadata and status), like upstream status
   * strategies; metadata stays writable under the usual update rules.
   */
  private statusOnly(current: KubeObject, desired: KubeObject): KubeObject {
    const next: KubeObject = {
      apiVersion: this.apiVersion,
      kind: this.definition.kind,
      metadata: desired.metadata ?? {},
      ...cloneJson(specOf(current)),
    };
    if (desired.status !== undefined) next.status = desired.status;
    return next;
  }

  private shouldDeleteDuringUpdate(object: KubeObject): boolean {
    const strategy = this.definition.strategy;
    if (strategy?.shouldDeleteDuringUpdate !== undefined) return strategy.shouldDeleteDuringUpdate(object);
    const meta = object.metadata ?? {};
    // An object within a grace period stays until the DELETE that ends it (upstream's default).
    return !!meta.deletionTimestamp && (meta.finalizers ?? []).length === 0 && !((meta.deletionGracePeriodSeconds ?? 0) > 0);
  }

  // ---- delete ------------------------------------------------------------------------------

  async delete(
    namespace: string | undefined,
    name: string,
    deleteOptions: DeleteOptions = {},
    options: RequestOptions = {},
  ): Promise<DeleteResult> {
    const key = this.keys.key(this.scopeNamespace(namespace), name);
    return this.retryOnConflict(key, name, (kv, current) => this.deleteOnce(namespace, name, key, kv, current, deleteOptions, options));
  }

  private async deleteOnce(
    namespace: string | undefined,
    name: string,
    key: string,
    kv: KeyValue,
    current: KubeObject,
    deleteOptions: DeleteOptions,
    options: RequestOptions,
  ): Promise<DeleteResult> {
    const meta = current.metadata ?? {};
    checkPreconditions(this.groupResource, name, deleteOptions.preconditions, meta);
    await this.validateDeletion(namespace, name, current, options);

    const finalizers = this.gc ? finalizersForDeletion(meta.finalizers ?? [], deleteOptions) : (meta.finalizers ?? []);
    const graceful = this.gracefulDeletion(current, deleteOptions);
    if (graceful === "pending") return { object: current, deleted: false };
    if (graceful !== undefined && (graceful.period > 0 || finalizers.length > 0)) {
      // A grace period (or finalizers) holds the object: mark it deleted for the agent that cleans up.
      const next = cloneJson(current);
      const nextMeta = metadataOf(next);
      nextMeta.finalizers = finalizers;
      if (nextMeta.finalizers.length === 0) delete nextMeta.finalizers;
      if (!nextMeta.deletionTimestamp && (nextMeta.generation ?? 0) > 0) nextMeta.generation = nextGeneration(nextMeta.generation);
      nextMeta.deletionTimestamp = graceful.deletionTimestamp;
      nextMeta.deletionGracePeriodSeconds = graceful.period;
      if (sameJson(next, current)) return { object: current, deleted: false };
      if (options.dryRun) return { object: next, deleted: false };
      try {
        return { object: this.decodeFresh(await this.storage.update(key, this.encode(next), kv.modRevision)), deleted: false };
      } catch (error) {
        throw this.casError(error, name);
      }
    }
    if (finalizers.length > 0) {
      // Finalizers hold the object: mark it deleted and let their controllers remove it.
      const next = cloneJson(current);
      const nextMeta = metadataOf(next);
      nextMeta.finalizers = finalizers;
      if (!nextMeta.deletionTimestamp) {
        // upstream `markAsDeleting`: the start of deletion is a generation change for types that have one.
        if ((nextMeta.generation ?? 0) > 0) nextMeta.generation = nextGeneration(nextMeta.generation);
        nextMeta.deletionTimestamp = formatTime(this.clock());
        nextMeta.deletionGracePeriodSeconds = 0;
      }
      if (sameJson(next, current)) return { object: current, deleted: false };
      if (options.dryRun) return { object: next, deleted: false };
      try {
        return { object: this.decodeFresh(await this.storage.update(key, this.encode(next), kv.modRevision)), deleted: false };
      } catch (error) {
        throw this.casError(error, name);
      }
    }
    if (options.dryRun) return { object: current, deleted: true };
    const deleted = await this.casDelete(key, kv.modRevision);
    return { object: this.decodeFresh(deleted), deleted: true };
  }

  /**
   * upstream `rest.BeforeDelete` for a type with a graceful-delete strategy: the deletion
   * timestamp and grace period a DELETE sets; "pending" when a deletion with a period no longer
   * than the one asked for is already under way (the object is answered as it stands); undefined
   * when the object goes at once.
   */
  private gracefulDeletion(
    current: KubeObject,
    deleteOptions: DeleteOptions,
  ): { period: number; deletionTimestamp: string } | "pending" | undefined {
    const strategy = this.definition.strategy;
    if (strategy?.gracefulDeletePeriod === undefined) return undefined;
    const meta = current.metadata ?? {};
    // Negative values mean 1 s on the delete path.
    const asked = deleteOptions.gracePeriodSeconds;
    const requested = asked === undefined ? undefined : asked < 0 ? 1 : asked;
    if (meta.deletionTimestamp) {
      const period = meta.deletionGracePeriodSeconds;
      // Already at 0 (or never graceful): the object goes now, as upstream recovers a half-done deletion.
      if (period === undefined || period === 0) return undefined;
      // Only a shorter grace period may be asked for; it moves the deadline earlier.
      if (requested === undefined || requested >= period) return "pending";
      const deadline = Date.parse(meta.deletionTimestamp) - period * 1000 + requested * 1000;
      return { period: requested, deletionTimestamp: formatTime(new Date(deadline)) };
    }
    const period = strategy.gracefulDeletePeriod(cloneJson(current), requested);
    if (period === undefined) return undefined;
    return { period, deletionTimestamp: formatTime(new Date(this.clock().getTime() + period * 1000)) };
  }

  async validateDeletion(namespace: string | undefined, name: string, old: KubeObject, options: RequestOptions = {}): Promise<void> {
    await this.admit("DELETE", undefined, old, namespace, name, options);
    await this.validateAdmission("DELETE", undefined, old, namespace, name, options);
  }

  async updateStored(
    namespace: string | undefined,
    name: string,
    mutate: (current: KubeObject) => KubeObject | Promise<KubeObject>,
    options: { dryRun?: boolean; preconditions?: Preconditions } = {},
  ): Promise<KubeObject> {
    const key = this.keys.key(this.scopeNamespace(namespace), name);
    return this.retryOnConflict(key, name, async (kv, current) => {
      checkPreconditions(this.groupResource, name, options.preconditions, current.metadata);
      const next = cloneJson(await mutate(cloneJson(current)));
      if (this.sameContent(next, current)) return current;
      if (options.dryRun) return next;
      try {
        return this.decodeFresh(await this.storage.update(key, this.encode(next), kv.modRevision));
      } catch (error) {
        throw this.casError(error, name);
      }
    });
  }

  async deleteCollection(
    namespace: string | undefined,
    request: ListRequest,
    deleteOptions: DeleteOptions = {},
    options: RequestOptions = {},
  ): Promise<KubeList> {
    const { limit: _limit, continue: _continue, ...all } = request;
    const list = await this.list(namespace, all);
    const items: KubeObject[] = [];
    for (const item of list.items) {
      const itemMeta = item.metadata ?? {};
      try {
        const result = await this.delete(this.namespaced ? itemMeta.namespace : undefined, itemMeta.name ?? "", deleteOptions, options);
        items.push(result.object);
      } catch (error) {
        // Deleted meanwhile by someone else: that is what was asked for.
        if (isControlPlaneError(error) && error.code === "NotFound") continue;
        throw error;
      }
    }
    return {
      apiVersion: this.apiVersion,
      kind: this.definition.listKind ?? `${this.definition.kind}List`,
      metadata: { resourceVersion: list.metadata.resourceVersion ?? "" },
      items,
    };
  }

  // ---- helpers -----------------------------------------------------------------------------

  private async casDelete(key: string, revision: number): Promise<KeyValue> {
    try {
      return await this.storage.delete(key, revision);
    } catch (error) {
      throw this.casError(error, key);
    }
  }

  /** Storage conflicts become a retry signal; NotFound (deleted meanwhile) becomes the resource's 404. */
  private casError(error: unknown, name: string): unknown {
    if (isControlPlaneError(error)) {
      if (error.code === "Conflict") return INTERNAL_CAS_CONFLICT;
      if (error.code === "NotFound") return notFound(this.groupResource, name.slice(name.lastIndexOf("/") + 1));
    }
    return error;
  }

  private sameContent(a: KubeObject, b: KubeObject): boolean {
    const strip = (o: KubeObject) => {
      const meta: ObjectMeta = { ...(o.metadata ?? {}) };
      delete meta.resourceVersion;
      return { ...o, metadata: meta };
    };
    return sameJson(strip(a), strip(b));
  }

  private fieldManagerWrite(options: RequestOptions, now: Date): FieldManagerWrite {
    return { manager: options.fieldManager ?? "", time: formatTime(now), subresource: options.subresource ?? "" };
  }

  private applyWrite(options: RequestOptions) {
    if (options.apply === undefined) return undefined;
    return { ...this.fieldManagerWrite(options, this.clock()), force: options.apply.force };
  }

  private setManagedFields(meta: ObjectMeta, managed: ObjectMeta["managedFields"]): void {
    if (managed === undefined || managed.length === 0) delete meta.managedFields;
    else meta.managedFields = managed;
  }

  private setTypeMeta(object: KubeObject): void {
    object.apiVersion = this.apiVersion;
    object.kind = this.definition.kind;
  }

  private scopeNamespace(namespace: string | undefined): string | undefined {
    return this.namespaced ? namespace : undefined;
  }

  /** upstream `EnsureObjectNamespaceMatchesRequestNamespace`. */
  private adoptNamespace(meta: ObjectMeta, requestNamespace: string | undefined): void {
    if (!this.namespaced) {
      delete meta.namespace;
      return;
    }
    if (requestNamespace === undefined || requestNamespace === "") return;
    if (!meta.namespace) meta.namespace = requestNamespace;
    else if (meta.namespace !== requestNamespace) {
      throw namespaceMismatch();
    }
  }

  private encode(object: KubeObject): string {
    const stored = this.definition.storedAs ? this.definition.storedAs.toStorage(cloneJson(object)) : object;
    // The stored value never carries a resourceVersion (the revision is one): copied without it only when it has one.
    if (stored.metadata != null && stored.metadata.resourceVersion === undefined) return stringifyExactJson(stored);
    const meta: ObjectMeta = { ...(stored.metadata ?? {}) };
    delete meta.resourceVersion;
    return stringifyExactJson({ ...stored, metadata: meta });
  }

  /** The stored object with its resourceVersion, as a new object the caller owns. */
  private decodeFresh(kv: KeyValue): KubeObject {
    let object = parseExactJson(kv.value) as KubeObject;
    if (this.definition.storedAs) object = this.definition.storedAs.fromStorage(object);
    metadataOf(object).resourceVersion = String(kv.modRevision);
    this.definition.strategy?.decorate?.(object);
    return object;
  }

  /**
   * What `decodeFresh(kv)` gives for the value a create or update just encoded from `object`,
   * without parsing back the JSON made from it a moment ago: the object itself (the write's own
   * copy of its input) with its resourceVersion. A resource stored in another form, or storage that
   * answers with a value of its own (a converting one), is decoded as any read is.
   */
  private written(object: KubeObject, value: string, kv: KeyValue): KubeObject {
    if (this.definition.storedAs || kv.value !== value) return this.decodeFresh(kv);
    metadataOf(object).resourceVersion = String(kv.modRevision);
    this.definition.strategy?.decorate?.(object);
    return object;
  }

  /** Like `decodeFresh`, but cached per stored value for watch fan-out; the result is shared and never mutated. */
  private decode(kv: KeyValue): KubeObject {
    let object = this.decoded.get(kv);
    if (object === undefined) {
      object = this.decodeFresh(kv);
      this.decoded.set(kv, object);
    }
    return object;
  }

  async connect(namespace: string | undefined, name: string, subresource: string, options: KubeObject): Promise<void> {
    if (this.admission.length === 0) return;
    const attributes = this.attributes("CONNECT", options, undefined, namespace, name, { subresource });
    await runMutatingAdmission(this.admission, attributes);
    await runValidatingAdmission(this.admission, attributes);
  }

  private attributes(
    operation: AdmissionAttributes["operation"],
    object: KubeObject | undefined,
    oldObject: KubeObject | undefined,
    namespace: string | undefined,
    name: string,
    options: RequestOptions,
  ): AdmissionAttributes {
    return {
      operation,
      definition: this.definition,
      namespace: this.scopeNamespace(namespace),
      name,
      subresource: options.subresource ?? "",
      object,
      oldObject,
      dryRun: options.dryRun === true,
      options: operationOptions(operation, options),
    };
  }

  private async admit<O extends KubeObject | undefined>(
    operation: AdmissionAttributes["operation"],
    object: O,
    oldObject: KubeObject | undefined,
    namespace: string | undefined,
    name: string,
    options: RequestOptions,
  ): Promise<O> {
    if (this.admission.length === 0) return object;
    const attributes = this.attributes(operation, object, oldObject, namespace, name, options);
    await runMutatingAdmission(this.admission, attributes);
    return attributes.object as O;
  }

  private async validateAdmission(
    operation: AdmissionAttributes["operation"],
    object: KubeObject | undefined,
    oldObject: KubeObject | undefined,
    namespace: string | undefined,
    name: string,
    options: RequestOptions,
  ): Promise<void> {
    if (this.admission.length === 0) return;
    const attributes = this.attributes(operation, object, oldObject, namespace, name, options);
    await runValidatingAdmission(this.admission, attributes);
  }
}

/**
 * The garbage-collection finalizers after a DELETE (upstream `deletionFinalizersForGarbageCollection`):
 * `Orphan` adds `orphan`, `Foreground` adds `foregroundDeletion`, `Background` removes both; with no
 * policy the legacy `orphanDependents` decides, else the object's existing choice stays.
 */
export function finalizersForDeletion(existing: string[], options: DeleteOptions): string[] {
  const has = (f: string) => existing.includes(f);
  let orphan: boolean;
  let foreground: boolean;
  if (options.orphanDependents !== undefined) {
    orphan = options.orphanDependents;
    foreground = false;
  } else if (options.propagationPolicy !== undefined) {
    orphan = options.propagationPolicy === "Orphan";
    foreground = options.propagationPolicy === "Foreground";
  } else {
    orphan = has(FINALIZER_ORPHAN_DEPENDENTS);
    foreground = has(FINALIZER_DELETE_DEPENDENTS);
  }
  const next = existing.filter((f) => f !== FINALIZER_ORPHAN_DEPENDENTS && f !== FINALIZER_DELETE_DEPENDENTS);
  if (orphan) next.push(FINALIZER_ORPHAN_DEPENDENTS);
  if (foreground) next.push(FINALIZER_DELETE_DEPENDENTS);
  const same = next.length === existing.length && next.every((f) => existing.includes(f));
  return same ? existing : next;
}
