import type { KubeObject } from "../api/types.js";

/** Values an object is filed under in one index (client-go's `IndexFunc`). */
export type IndexFunc = (object: KubeObject) => string[];

/** `namespace/name`, or `name` for cluster-scoped objects (client-go's `MetaNamespaceKeyFunc`). */
export function objectKey(object: KubeObject): string {
  const meta = object.metadata ?? {};
  return meta.namespace ? `${meta.namespace}/${meta.name ?? ""}` : (meta.name ?? "");
}

/** Splits an `objectKey` back into namespace and name. */
export function splitKey(key: string): { namespace: string | undefined; name: string } {
  const slash = key.indexOf("/");
  return slash < 0 ? { namespace: undefined, name: key } : { namespace: key.slice(0, slash), name: key.slice(slash + 1) };
}

/** Indexes by namespace (client-go's `cache.NamespaceIndex`). */
export const NAMESPACE_INDEX = "namespace";
export const namespaceIndexFunc: IndexFunc = (object) => [object.metadata?.namespace ?? ""];

/**
 * A thread-safe-store equivalent: objects by key plus secondary indexes kept in step on every
 * write. Objects handed out are the cache's own: treat them as read-only.
 */
export class Indexer {
  readonly #items = new Map<string, KubeObject>();
  readonly #indexers = new Map<string, IndexFunc>();
  readonly #indices = new Map<string, Map<string, Set<string>>>();

  constructor(indexers: Record<string, IndexFunc> = {}) {
    for (const [name, fn] of Object.entries(indexers)) this.addIndexer(name, fn);
  }

  addIndexer(name: string, fn: IndexFunc): void {
    this.#indexers.set(name, fn);
    const index = new Map<string, Set<string>>();
    this.#indices.set(name, index);
    for (const [key, object] of this.#items) this.#file(index, fn, key, object);
  }

  get(key: string): KubeObject | undefined {
    return this.#items.get(key);
  }

  list(): KubeObject[] {
    return [...this.#items.values()];
  }

  keys(): string[] {
    return [...this.#items.keys()];
  }

  get size(): number {
    return this.#items.size;
  }

  /** Objects filed under `value` in index `name`. */
  byIndex(name: string, value: string): KubeObject[] {
    const index = this.#indices.get(name);
    if (index === undefined) throw new Error(`index ${JSON.stringify(name)} does not exist`);
    return [...(index.get(value) ?? [])].map((key) => this.#items.get(key)!);
  }

  set(key: string, object: KubeObject): void {
    this.#unfile(key);
    this.#items.set(key, object);
    for (const [name, fn] of this.#indexers) this.#file(this.#indices.get(name)!, fn, key, object);
  }

  delete(key: string): void {
    this.#unfile(key);
    this.#items.delete(key);
  }

  #file(index: Map<string, Set<string>>, fn: IndexFunc, key: string, object: KubeObject): void {
    for (const value of fn(object)) {
      let keys = index.get(value);
      if (keys === undefined) index.set(value, (keys = new Set()));
      keys.add(key);
    }
  }

  #unfile(key: string): void {
    const old = this.#items.get(key);
    if (old === undefined) return;
    for (const [name, fn] of this.#indexers) {
      const index = this.#indices.get(name)!;
      for (const value of fn(old)) {
        const keys = index.get(value);
        keys?.delete(key);
        if (keys?.size === 0) index.delete(value);
      }
    }
  }
}
