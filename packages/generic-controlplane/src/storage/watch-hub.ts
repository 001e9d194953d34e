import type { StorageEvent, StorageWatch, WatchOptions } from "./types.js";
import { parentDirectories } from "./prefix.js";

interface Watcher {
  readonly prefix: string;
  readonly options: WatchOptions;
  /** Events with a revision at or below this were already queued (replay or live). */
  queuedThrough: number;
  pending: StorageEvent[];
  active: boolean;
}

/**
 * Fans committed events out to watchers. Watchers are indexed by their directory prefix, so a
 * write costs one map lookup per path segment of its key, not one check per watcher. Delivery is
 * batched per macrotask: a burst of writes reaches each watcher as one `onEvents` call.
 */
export class WatchHub {
  private readonly byPrefix = new Map<string, Set<Watcher>>();
  private readonly dirty = new Set<Watcher>();
  private flushScheduled = false;

  /** Registers a watcher whose history up to `replayedThrough` is `replay` (already filtered and ordered). */
  add(prefix: string, options: WatchOptions, replay: StorageEvent[], replayedThrough: number): StorageWatch {
    const watcher: Watcher = { prefix, options, queuedThrough: replayedThrough, pending: replay, active: true };
    let set = this.byPrefix.get(prefix);
    if (set === undefined) {
      set = new Set();
      this.byPrefix.set(prefix, set);
    }
    set.add(watcher);
    if (replay.length > 0) this.markDirty(watcher);
    return { stop: () => this.remove(watcher) };
  }

  /** Queues committed events (in revision order) for every watcher whose prefix contains their key. */
  publish(events: readonly StorageEvent[]): void {
    if (this.byPrefix.size === 0) return;
    for (const event of events) {
      for (const directory of parentDirectories(event.kv.key)) {
        const set = this.byPrefix.get(directory);
        if (set === undefined) continue;
        for (const watcher of set) {
          if (event.kv.modRevision <= watcher.queuedThrough) continue;
          watcher.queuedThrough = event.kv.modRevision;
          watcher.pending.push(event);
          this.markDirty(watcher);
        }
      }
    }
  }

  get size(): number {
    let size = 0;
    for (const set of this.byPrefix.values()) size += set.size;
    return size;
  }

  /** Ends every watch with `error` (e.g. the backend closed). */
  closeAll(error: Error): void {
    const watchers = [...this.byPrefix.values()].flatMap((set) => [...set]);
    this.byPrefix.clear();
    this.dirty.clear();
    for (const watcher of watchers) {
      watcher.active = false;
      watcher.pending = [];
      watcher.options.onError?.(error);
    }
  }

  private remove(watcher: Watcher): void {
    if (!watcher.active) return;
    watcher.active = false;
    watcher.pending = [];
    this.dirty.delete(watcher);
    const set = this.byPrefix.get(watcher.prefix);
    set?.delete(watcher);
    if (set?.size === 0) this.byPrefix.delete(watcher.prefix);
  }

  private markDirty(watcher: Watcher): void {
    this.dirty.add(watcher);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushScheduled = false;
    const watchers = [...this.dirty];
    this.dirty.clear();
    for (const watcher of watchers) {
      if (!watcher.active || watcher.pending.length === 0) continue;
      const batch = watcher.pending;
      watcher.pending = [];
      try {
        watcher.options.onEvents(batch);
      } catch (error) {
        // A throwing consumer would otherwise miss events silently; end its watch instead.
        this.remove(watcher);
        watcher.options.onError?.(error instanceof Error ? error : new Error(String(error)));
      }
    }
  }
}
