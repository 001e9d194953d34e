import type { KubeList, KubeObject, WatchEvent } from "../../api/types.js";
import type { DeleteResult, ResourceStore, ResourceWatch } from "../../registry/types.js";

/** How long a write through `StoreCache.writingThrough` waits for the cache to see it before the cache starts over. */
const CATCH_UP_TIMEOUT_MS = 10_000;

interface Waiter {
  revision: number;
  resolve: () => void;
}

/**
 * The objects of one store by namespace, kept current by a watch: the in-process lister an
 * admission plugin reads on every request instead of asking storage each time (upstream's plugins
 * read informer caches). Started on first use; a watch that ends clears it, and the next read
 * lists again. Reads lag writes by a watch delivery, so plugins that must not act on stale
 * objects write with compare-and-swap and read the store itself when that fails, or serve the
 * store's writes through `writingThrough`, which returns only once the cache holds them.
 */
export class StoreCache {
  private readonly byNamespace = new Map<string, Map<string, KubeObject>>();
  private starting: Promise<void> | undefined;
  private watch: ResourceWatch | undefined;
  /** The store's resourceVersion the cache holds: its list's, then each event's. */
  private revision = 0;
  private waiters: Waiter[] = [];
  /** The cache holds the store (listed and watching): the `peek` reads answer only then. */
  private held = false;

  constructor(private readonly store: ResourceStore) {}

  async list(namespace: string): Promise<KubeObject[]> {
    await this.ready();
    return [...(this.byNamespace.get(namespace)?.values() ?? [])];
  }

  /** Every object of every namespace. */
  async all(): Promise<KubeObject[]> {
    await this.ready();
    return [...this.byNamespace.values()].flatMap((objects) => [...objects.values()]);
  }

  /** One object (`""` is the namespace of cluster-scoped ones), or undefined when the cache has none. */
  async get(namespace: string, name: string): Promise<KubeObject | undefined> {
    await this.ready();
    return this.byNamespace.get(namespace)?.get(name);
  }

  /**
   * Reads that answer at once, for the common request that finds nothing to do: every object, or
   * those of one namespace, or one object; undefined while the cache does not hold the store (not
   * started, or starting over), when the caller reads through the waiting methods above instead.
   */
  peekAll(): KubeObject[] | undefined {
    return this.held ? [...this.byNamespace.values()].flatMap((objects) => [...objects.values()]) : undefined;
  }

  peekNamespace(namespace: string): KubeObject[] | undefined {
    return this.held ? [...(this.byNamespace.get(namespace)?.values() ?? [])] : undefined;
  }

  /** One object the cache holds; undefined when it does not (or does not hold the store). */
  peek(namespace: string, name: string): KubeObject | undefined {
    return this.held ? this.byNamespace.get(namespace)?.get(name) : undefined;
  }

  /**
   * The store, except that each write returns only once this cache holds the store at the
   * written resourceVersion: a read of the cache after a write returned sees it (upstream's
   * informers promise less; a configuration here applies from the next request on).
   */
  writingThrough(): ResourceStore {
    const caughtUp = async <T>(written: Promise<T>, version: (result: T) => string | undefined): Promise<T> => {
      const result = await written;
      await this.caughtUp(version(result));
      return result;
    };
    const objectVersion = (object: KubeObject) => object.metadata?.resourceVersion;
    const writes: Partial<Record<keyof ResourceStore, (...args: never[]) => Promise<unknown>>> = {
      create: (...args: Parameters<ResourceStore["create"]>) => caughtUp(this.store.create(...args), objectVersion),
      update: (...args: Parameters<ResourceStore["update"]>) => caughtUp(this.store.update(...args), objectVersion),
      guaranteedUpdate: (...args: Parameters<ResourceStore["guaranteedUpdate"]>) =>
        caughtUp(this.store.guaranteedUpdate(...args), objectVersion),
      delete: (...args: Parameters<ResourceStore["delete"]>) =>
        caughtUp(this.store.delete(...args), (result: DeleteResult) => objectVersion(result.object)),
    };
    const deleteCollection = this.store.deleteCollection?.bind(this.store);
    if (deleteCollection !== undefined) {
      writes.deleteCollection = (...args: Parameters<NonNullable<ResourceStore["deleteCollection"]>>) =>
        caughtUp(deleteCollection(...args), (list: KubeList) =>
          String(Math.max(0, ...list.items.map((item) => Number(objectVersion(item) ?? 0)))),
        );
    }
    return new Proxy(this.store, {
      get: (target, property, receiver) => {
        const write = writes[property as keyof ResourceStore];
        if (write !== undefined) return write;
        const value: unknown = Reflect.get(target, property, receiver);
        return typeof value === "function" ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  }

  /**
   * Resolves once the cache holds the store at `resourceVersion` or later. A cache that has not
   * started holds nothing stale (its first read lists); one that does not catch up in time starts
   * over, so its next read lists.
   */
  caughtUp(resourceVersion: string | undefined): Promise<void> {
    const revision = Number(resourceVersion ?? 0);
    if (this.starting === undefined || !Number.isSafeInteger(revision) || revision <= this.revision) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.stop();
        resolve();
      }, CATCH_UP_TIMEOUT_MS);
      timer.unref();
      this.waiters.push({
        revision,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  stop(): void {
    this.watch?.stop();
    this.reset();
  }

  private ready(): Promise<void> {
    if (this.starting === undefined) {
      const starting = this.start();
      this.starting = starting;
      starting.then(
        () => {
          if (this.starting === starting) this.held = true;
        },
        () => {
          if (this.starting === starting) this.reset();
        },
      );
    }
    return this.starting;
  }

  private async start(): Promise<void> {
    const list = await this.store.list(undefined);
    for (const object of list.items) this.put(object);
    this.advance(list.metadata.resourceVersion);
    this.watch = await this.store.watch(
      undefined,
      { resourceVersion: list.metadata.resourceVersion ?? "" },
      (event) => this.apply(event),
      () => this.reset(),
    );
  }

  private reset(): void {
    this.watch = undefined;
    this.starting = undefined;
    this.held = false;
    this.revision = 0;
    this.byNamespace.clear();
    // Nothing stale is held any more: the next read lists.
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) waiter.resolve();
  }

  private apply(event: WatchEvent): void {
    if (event.type === "ADDED" || event.type === "MODIFIED") this.put(event.object);
    else if (event.type === "DELETED")
      this.byNamespace.get(event.object.metadata?.namespace ?? "")?.delete(event.object.metadata?.name ?? "");
    this.advance(event.object.metadata?.resourceVersion);
  }

  private advance(resourceVersion: string | undefined): void {
    const revision = Number(resourceVersion ?? 0);
    if (!Number.isSafeInteger(revision) || revision <= this.revision) return;
    this.revision = revision;
    if (this.waiters.length === 0) return;
    const waiting: Waiter[] = [];
    for (const waiter of this.waiters) {
      if (waiter.revision <= revision) waiter.resolve();
      else waiting.push(waiter);
    }
    this.waiters = waiting;
  }

  private put(object: KubeObject): void {
    const namespace = object.metadata?.namespace ?? "";
    let objects = this.byNamespace.get(namespace);
    if (objects === undefined) {
      objects = new Map();
      this.byNamespace.set(namespace, objects);
    }
    objects.set(object.metadata?.name ?? "", object);
  }
}
