/**
 * A map that keeps its `capacity` most recently used entries, dropping the least recently used
 * one when a new entry would exceed it. Reads count as use, but a read of an entry among the
 * newer half does not move it: one entry read by every watcher a change fans out to costs a
 * look-up per read, not a reinsertion.
 */
export class LruCache<K, V> {
  readonly #entries = new Map<K, { value: V; stamp: number }>();
  /** Stamps count insertions; an entry's stamp tells how many came after it. */
  #stamp = 0;

  constructor(readonly capacity: number) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) throw new RangeError(`invalid capacity ${capacity}: want a whole number above 0`);
  }

  get size(): number {
    return this.#entries.size;
  }

  get(key: K): V | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (this.#stamp - entry.stamp >= this.capacity >> 1) {
      this.#entries.delete(key);
      entry.stamp = ++this.#stamp;
      this.#entries.set(key, entry);
    }
    return entry.value;
  }

  has(key: K): boolean {
    return this.get(key) !== undefined;
  }

  set(key: K, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, { value, stamp: ++this.#stamp });
    if (this.#entries.size > this.capacity) this.#entries.delete(this.#entries.keys().next().value!);
  }
}
