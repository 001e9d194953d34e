import type { KubeObject, Status, WatchEvent } from "../api/types.js";
import type { Logger } from "../server/logger.js";
import { Indexer, NAMESPACE_INDEX, namespaceIndexFunc, objectKey, type IndexFunc } from "./cache.js";
import {
  ACCEPT_METADATA,
  ACCEPT_METADATA_LIST,
  ApiError,
  isApiError,
  isGone,
  resourcePath,
  type KubeClient,
  type Query,
  type ResourceRef,
  type WatchHandle,
} from "./client.js";

export interface EventHandlers {
  /** A new object; `initialList` when it came with a (re)list rather than a watch event. */
  add?(object: KubeObject, initialList: boolean): void;
  update?(oldObject: KubeObject, newObject: KubeObject): void;
  /**
   * An object went away. `finalStateUnknown` when a relist found it gone: `object` is then the
   * last state seen (client-go's `DeletedFinalStateUnknown`).
   */
  delete?(object: KubeObject, finalStateUnknown: boolean): void;
}

export interface InformerOptions {
  /** Only this namespace (default: all). */
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /**
   * Cache only metadata (PartialObjectMetadata, as client-go's metadata informers): objects carry
   * `apiVersion` and `kind` of the resource and its `metadata`, nothing else.
   */
  metadataOnly?: boolean;
  /** Extra indexes; `namespace` is always there. */
  indexers?: Record<string, IndexFunc>;
  /**
   * Applied to every listed or watched object before it is cached or handed to handlers
   * (client-go's `SetTransform`); it may change the object it is given, which nothing else holds.
   * `dropManagedFields` is kube-controller-manager's and kube-scheduler's.
   */
  transform?: (object: KubeObject) => KubeObject;
  /** Page size of lists (default 500, like client-go's reflector). */
  pageSize?: number;
  /** Re-delivers every cached object as an update this often (default: never). */
  resyncMs?: number;
  /** Backoff after a failed list or dropped connection: starts here, doubles, caps at `maxBackoffMs` (800 ms / 30 s). */
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** Watch requests ask the server to end them after a random 5 to 10 minutes (client-go's reflector). */
  minWatchTimeoutSeconds?: number;
  logger?: Logger;
}

/**
 * Drops `metadata.managedFields`, which kube-controller-manager and kube-scheduler drop from every
 * object their informers cache ("for memory efficiency"): controllers never read them, and a
 * status written by several managers can carry more field ownership than fields.
 */
export function dropManagedFields(object: KubeObject): KubeObject {
  if (object.metadata?.managedFields !== undefined) delete object.metadata.managedFields;
  return object;
}

/**
 * A shared informer after client-go's: a reflector lists then watches (with bookmarks) one
 * resource into a local indexed cache and tells handlers what changed. Whenever the watch cannot
 * resume (410 Gone after a compaction, an error event, a server that lost its history), it
 * relists and reconciles the cache against the fresh list, reporting the differences.
 */
export class Informer {
  readonly cache: Indexer;
  readonly #handlers: EventHandlers[] = [];
  readonly #options: InformerOptions;
  readonly #path: string;
  #resourceVersion: string | undefined;
  #synced = false;
  #syncWaiters: Array<() => void> = [];
  #stopped = true;
  #watch: WatchHandle | undefined;
  #loop: Promise<void> | undefined;
  #wake: (() => void) | undefined;
  #resyncTimer: NodeJS.Timeout | undefined;
  #lists = 0;

  readonly #kind: string | undefined;

  constructor(
    private readonly client: KubeClient,
    readonly resource: ResourceRef & { kind?: string },
    options: InformerOptions = {},
  ) {
    this.#options = options;
    this.#kind = resource.kind;
    this.cache = new Indexer({ [NAMESPACE_INDEX]: namespaceIndexFunc, ...options.indexers });
    this.#path = resourcePath(resource, options.namespace);
  }

  addEventHandler(handlers: EventHandlers): void {
    this.#handlers.push(handlers);
    // Late handlers see the current cache as adds, as with client-go's shared informers.
    if (this.#synced) for (const object of this.cache.list()) this.#call("add", () => handlers.add?.(object, true));
  }

  /** The resourceVersion the cache reflects (the last list, event or bookmark). */
  get lastSyncResourceVersion(): string | undefined {
    return this.#resourceVersion;
  }

  /** Lists performed so far (the first, then one per relist). */
  get listCount(): number {
    return this.#lists;
  }

  hasSynced(): boolean {
    return this.#synced;
  }

  /** Resolves once the first list is in the cache. */
  waitForSync(): Promise<void> {
    if (this.#synced) return Promise.resolve();
    return new Promise((resolve) => this.#syncWaiters.push(resolve));
  }

  start(): void {
    if (!this.#stopped) return;
    this.#stopped = false;
    this.#loop = this.#run();
    if (this.#options.resyncMs !== undefined && this.#options.resyncMs > 0) {
      this.#resyncTimer = setInterval(() => {
        for (const object of this.cache.list()) this.#notify("update", (h) => h.update?.(object, object));
      }, this.#options.resyncMs);
      this.#resyncTimer.unref();
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#resyncTimer !== undefined) clearInterval(this.#resyncTimer);
    this.#watch?.stop();
    this.#wake?.();
    await this.#loop;
  }

  async #run(): Promise<void> {
    const initial = this.#options.initialBackoffMs ?? 800;
    const max = this.#options.maxBackoffMs ?? 30_000;
    let backoff = initial;
    while (!this.#stopped) {
      try {
        if (this.#resourceVersion === undefined) await this.#listAndReplace();
        const healthy = await this.#watchOnce();
        if (healthy) backoff = initial;
        else {
          await this.#sleep(backoff);
          backoff = Math.min(backoff * 2, max);
        }
      } catch (error) {
        if (this.#stopped) break;
        if (isGone(error)) {
          // The history we would resume from was compacted: start over from a fresh list.
          this.#log("info", "watch history expired, relisting", { resourceVersion: this.#resourceVersion, error: String(error) });
          this.#resourceVersion = undefined;
          continue;
        }
        if (isApiError(error)) this.#resourceVersion = undefined;
        this.#log("warn", "list/watch failed, retrying", { error: String(error), backoffMs: backoff });
        await this.#sleep(backoff);
        backoff = Math.min(backoff * 2, max);
      }
    }
  }

  #sleep(ms: number): Promise<void> {
    if (this.#stopped) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = done;
    });
  }

  #baseQuery(): Query {
    return { labelSelector: this.#options.labelSelector, fieldSelector: this.#options.fieldSelector };
  }

  /** Lists every page, then makes the cache equal to the list, telling handlers the differences. */
  async #listAndReplace(): Promise<void> {
    const items: KubeObject[] = [];
    let resourceVersion = "";
    let continueToken: string | undefined;
    do {
      const list = await this.client.request("GET", this.#path, {
        query: { ...this.#baseQuery(), limit: this.#options.pageSize ?? 500, continue: continueToken },
        ...(this.#options.metadataOnly ? { accept: ACCEPT_METADATA_LIST } : {}),
      });
      const page = list as { items?: KubeObject[]; metadata?: { resourceVersion?: string; continue?: string } };
      items.push(...(page.items ?? []).map((item) => this.#typed(item)));
      resourceVersion = page.metadata?.resourceVersion ?? resourceVersion;
      continueToken = page.metadata?.continue || undefined;
      if (this.#stopped) return;
    } while (continueToken !== undefined);
    this.#lists++;
    const seen = new Set<string>();
    for (const object of items) {
      const key = objectKey(object);
      seen.add(key);
      const old = this.cache.get(key);
      this.cache.set(key, object);
      if (old === undefined) this.#notify("add", (h) => h.add?.(object, true));
      else if (old.metadata?.resourceVersion !== object.metadata?.resourceVersion || old.metadata?.uid !== object.metadata?.uid) {
        this.#notify("update", (h) => h.update?.(old, object));
      }
    }
    for (const key of this.cache.keys()) {
      if (seen.has(key)) continue;
      const old = this.cache.get(key)!;
      this.cache.delete(key);
      this.#notify("delete", (h) => h.delete?.(old, true));
    }
    this.#resourceVersion = resourceVersion;
    this.#log("info", "listed", { count: items.length, resourceVersion });
    if (!this.#synced) {
      this.#synced = true;
      for (const resolve of this.#syncWaiters.splice(0)) resolve();
    }
  }

  /** One watch from the cache's resourceVersion. Resolves whether it delivered anything; throws what ended it badly. */
  async #watchOnce(): Promise<boolean> {
    const min = this.#options.minWatchTimeoutSeconds ?? 300;
    const timeoutSeconds = Math.floor(min * (1 + Math.random()));
    let failure: Error | undefined;
    let delivered = false;
    const watch = await this.client.watch(
      this.#path,
      { ...this.#baseQuery(), resourceVersion: this.#resourceVersion, allowWatchBookmarks: true, timeoutSeconds },
      (event) => {
        if (failure !== undefined) return;
        delivered = true;
        failure = this.#apply(event.type === "ERROR" ? event : { type: event.type, object: this.#typed(event.object) });
        if (failure !== undefined) watch.stop();
      },
      this.#options.metadataOnly ? ACCEPT_METADATA : undefined,
    );
    this.#watch = watch;
    if (this.#stopped) watch.stop();
    await watch.done;
    this.#watch = undefined;
    if (failure !== undefined) throw failure;
    return delivered;
  }

  #apply(event: WatchEvent): Error | undefined {
    const object = event.object;
    switch (event.type) {
      case "ADDED":
      case "MODIFIED": {
        const key = objectKey(object);
        const old = this.cache.get(key);
        this.cache.set(key, object);
        if (old === undefined) this.#notify("add", (h) => h.add?.(object, false));
        else this.#notify("update", (h) => h.update?.(old, object));
        break;
      }
      case "DELETED": {
        const key = objectKey(object);
        const old = this.cache.get(key);
        this.cache.delete(key);
        if (old !== undefined) this.#notify("delete", (h) => h.delete?.(object, false));
        break;
      }
      case "BOOKMARK":
        break;
      case "ERROR": {
        const status = object as unknown as Status;
        return new ApiError(status.code ?? 500, status.reason ?? "", status.message ?? "watch error", status);
      }
      default:
        return new Error(`unexpected watch event type ${JSON.stringify(event.type)}`);
    }
    const rv = object.metadata?.resourceVersion;
    if (rv !== undefined && rv !== "") this.#resourceVersion = rv;
    return undefined;
  }

  /** Objects as the resource's type: list items come without type meta, metadata-only ones as PartialObjectMetadata. */
  #typed(object: KubeObject): KubeObject {
    const transformed = this.#options.transform?.(object) ?? object;
    return this.#withTypeMeta(transformed);
  }

  #withTypeMeta(object: KubeObject): KubeObject {
    if (object.kind && object.kind !== "PartialObjectMetadata" && object.apiVersion) return object;
    const apiVersion = this.resource.group === "" ? this.resource.version : `${this.resource.group}/${this.resource.version}`;
    const kind = this.#kind ?? (object.kind === "PartialObjectMetadata" ? undefined : object.kind);
    return { ...object, apiVersion, ...(kind !== undefined ? { kind } : {}) };
  }

  #notify(kind: string, call: (handlers: EventHandlers) => void): void {
    for (const handlers of this.#handlers) this.#call(kind, () => call(handlers));
  }

  /** A failing handler is logged and does not stop the others or the reflector (client-go's HandleCrash). */
  #call(kind: string, call: () => void): void {
    try {
      call();
    } catch (error) {
      this.#log("warn", "event handler failed", { event: kind, error: error instanceof Error ? error.message : String(error) });
    }
  }

  #log(level: "info" | "warn", msg: string, fields: Record<string, unknown>): void {
    this.#options.logger?.({
      level,
      msg,
      informer: `${this.resource.resource}${this.resource.group ? "." + this.resource.group : ""}`,
      ...fields,
    });
  }
}
