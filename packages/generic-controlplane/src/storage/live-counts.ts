import { parentDirectories } from "./prefix.js";
import type { StorageEvent } from "./types.js";

/**
 * The number of live keys under a directory at the current revision, kept up to date from the
 * committed events once a directory was counted, so `remaining` of a list's first page and
 * `count()` cost a map lookup instead of a scan of the whole range. A directory is counted by
 * the backend the first time it is asked for; at most `capacity` directories are kept (the oldest
 * is forgotten and counted again when next asked).
 */
export class LiveCounts {
  private readonly counts = new Map<string, number>();
  private readonly capacity: number;

  constructor(capacity = 1024) {
    this.capacity = capacity;
  }

  /** Live keys under `directory` now; `count` scans the range when the directory is not tracked yet. */
  get(directory: string, count: () => number): number {
    const known = this.counts.get(directory);
    if (known !== undefined) return known;
    const counted = count();
    this.counts.set(directory, counted);
    if (this.counts.size > this.capacity) {
      const oldest = this.counts.keys().next();
      if (oldest.done !== true) this.counts.delete(oldest.value);
    }
    return counted;
  }

  /** Applies committed events: a put without a previous value adds a key, a delete removes one. */
  apply(events: readonly StorageEvent[]): void {
    if (this.counts.size === 0) return;
    for (const event of events) {
      const change = event.type === "delete" ? -1 : event.prev === undefined ? 1 : 0;
      if (change === 0) continue;
      for (const directory of parentDirectories(event.kv.key)) {
        const known = this.counts.get(directory);
        if (known !== undefined) this.counts.set(directory, known + change);
      }
    }
  }

  clear(): void {
    this.counts.clear();
  }
}
