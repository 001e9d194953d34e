/**
 * Remembers how many keys remain after a page of a list pinned at a revision. History at a
 * revision never changes, so when the next page starts right after this page's last key, its
 * `remaining` is the remembered count minus the page's length: a paged list counts the rest of
 * the range once, on its first page, instead of once per page.
 */
export class RemainingCache {
  private readonly entries = new Map<string, number>();
  private readonly capacity: number;

  constructor(capacity = 256) {
    this.capacity = capacity;
  }

  /** Remaining keys after `startAfter` in the list of `prefix` at `revision`, if a previous page recorded it. */
  after(prefix: string, revision: number, startAfter: string): number | undefined {
    const key = cacheKey(prefix, revision, startAfter);
    const remaining = this.entries.get(key);
    if (remaining !== undefined) this.entries.delete(key);
    return remaining;
  }

  record(prefix: string, revision: number, lastKey: string, remaining: number): void {
    this.entries.set(cacheKey(prefix, revision, lastKey), remaining);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
  }

  clear(): void {
    this.entries.clear();
  }
}

function cacheKey(prefix: string, revision: number, key: string): string {
  return `${revision}\u0000${prefix}\u0000${key}`;
}
