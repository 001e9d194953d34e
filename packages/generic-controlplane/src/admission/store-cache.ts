import type { KubeObject, WatchEvent } from "../api/types.js";
import type { ResourceStore, ResourceWatch } from "../registry/types.js";

/**
 * The objects of one store by namespace, kept current by a watch: the in-process lister an
 * admission plugin reads on every request instead of asking storage each time (upstream's plugins
 * read informer caches). Started on first use; a watch that ends clears it, and the next read
 * lists again. Reads lag writes by a watch delivery, so plugins that must not act on stale
 * objects write with compare-and-swap and read the store itself when that fails.
 */
export class StoreCache {
  private readonly byNamespace = new Map<string, Map<string, KubeObject>>();
  private starting: Promise<void> | undefined;
  private watch: ResourceWatch | undefined;

  constructor(private readonly store: ResourceStore) {}

  async list(namespace: string): Promise<KubeObject[]> {
    await this.ready();
    return [...(this.byNamespace.get(namespace)?.values() ?? [])];
  }

  /** One object (`""` is the namespace of cluster-scoped ones), or undefined when the cache has none. */
  async get(namespace: string, name: string): Promise<KubeObject | undefined> {
    await this.ready();
    return this.byNamespace.get(namespace)?.get(name);
  }

  stop(): void {
    this.watch?.stop();
    this.reset();
  }

  private ready(): Promise<void> {
    if (this.starting === undefined) {
      const starting = this.start();
      this.starting = starting;
      starting.catch(() => {
        if (this.starting === starting) this.starting = undefined;
      });
    }
    return this.starting;
  }

  private async start(): Promise<void> {
    const list = await this.store.list(undefined);
    for (const object of list.items) this.put(object);
    this.watch = await this.store.watch(undefined, { resourceVersion: list.metadata.resourceVersion ?? "" }, (event) => this.apply(event), () => this.reset());
  }

  private reset(): void {
    this.watch = undefined;
    this.starting = undefined;
    this.byNamespace.clear();
  }

  private apply(event: WatchEvent): void {
    if (event.type === "ADDED" || event.type === "MODIFIED") this.put(event.object);
    else if (event.type === "DELETED") this.byNamespace.get(event.object.metadata?.namespace ?? "")?.delete(event.object.metadata?.name ?? "");
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
