import type { StorageEvent, StorageWatch, WatchOptions } from "./types.js";
import { parentDirectories } from "./prefix.js";

/** Events a watch replays per page of history. */
export const REPLAY_PAGE_SIZE = 500;

/**
 * One page of history after a revision, read synchronously by the backend. `complete` says the
 * page reaches the current revision (`through`); otherwise `through` is its last event's revision.
 */
export interface ReplayPage {
  events: StorageEvent[];
  through: number;
  complete: boolean;
}

interface Watcher {
  readonly prefix: string;
  readonly options: WatchOptions;
  /** Events with a revision at or below this were already queued (replay or live). */
  queuedThrough: number;
  pending: StorageEvent[];
  active: boolean;
  /** Listed in the hub's `dirty` for the next flush. */
  dirty: boolean;
}

/**
 * Fans committed events out to watchers. Watchers are indexed by their directory prefix, so a
 * write costs one map lookup per path segment of its key, not one check per watcher. Delivery is
 * batched per macrotask: a burst of writes reaches each watcher as one `onEvents` call.
 */
export class WatchHub {
  private readonly byPrefix = new Map<string, Set<Watcher>>();
  /**
   * Watchers with events to deliver at the next flush, each once (its `dirty` flag). An array, not
   * a Set: one change reaching thousands of watchers is queued without hashing or growing a table.
   */
  private dirty: Watcher[] = [];
  /** Watchers still replaying history (not yet in `byPrefix`). */
  private readonly replaying = new Set<Watcher>();
  private flushScheduled = false;

  /** Registers a watcher whose history up to `replayedThrough` is `replay` (already filtered and ordered). */
  add(prefix: string, options: WatchOptions, replay: StorageEvent[], replayedThrough: number): StorageWatch {
    const watcher: Watcher = { prefix, options, queuedThrough: replayedThrough, pending: replay, active: true, dirty: false };
    this.register(watcher);
    if (replay.length > 0) this.markDirty(watcher);
    return { stop: () => this.remove(watcher) };
  }

  private register(watcher: Watcher): void {
    let set = this.byPrefix.get(watcher.prefix);
    if (set === undefined) {
      set = new Set();
      this.byPrefix.set(watcher.prefix, set);
    }
    set.add(watcher);
  }

  /**
   * Registers a watcher that first replays the history after `afterRevision` page by page:
   * `readPage(after, REPLAY_PAGE_SIZE)` reads the next page (it throws when the history is gone or
   * the backend closed). Each full page is handed to `onEvents`, and the next one is read on a
   * later macrotask once the promise `whenReady` returned (if any) settled. The page that reaches
   * the current revision joins the live stream in the same synchronous step as its read, so no
   * commit falls between replay and live events.
   */
  addReplaying(
    prefix: string,
    options: WatchOptions,
    readPage: (after: number, limit: number) => ReplayPage,
    afterRevision: number,
  ): StorageWatch {
    const watcher: Watcher = { prefix, options, queuedThrough: afterRevision, pending: [], active: true, dirty: false };
    this.replaying.add(watcher);
    const fail = (error: unknown): void => {
      if (!watcher.active) return;
      this.remove(watcher);
      options.onError?.(error instanceof Error ? error : new Error(String(error)));
    };
    const step = (): void => {
      if (!watcher.active) return;
      let page: ReplayPage;
      try {
        page = readPage(watcher.queuedThrough, REPLAY_PAGE_SIZE);
      } catch (error) {
        fail(error);
        return;
      }
      watcher.queuedThrough = page.through;
      if (page.complete) {
        this.replaying.delete(watcher);
        this.register(watcher);
        watcher.pending = page.events;
        if (page.events.length > 0) this.markDirty(watcher);
        return;
      }
      let ready: Promise<void> | undefined;
      try {
        options.onEvents(page.events);
        ready = options.whenReady?.();
      } catch (error) {
        fail(error);
        return;
      }
      if (ready === undefined) setImmediate(step);
      else ready.then(() => setImmediate(step), fail);
    };
    setImmediate(step);
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
          // Most flushes carry one event: an exact one-element array, where a push onto an empty
          // one would allocate room for seventeen (per watcher, per change).
          if (watcher.pending.length === 0) watcher.pending = [event];
          else watcher.pending.push(event);
          this.markDirty(watcher);
        }
      }
    }
  }

  get size(): number {
    let size = this.replaying.size;
    for (const set of this.byPrefix.values()) size += set.size;
    return size;
  }

  /** Ends every watch with `error` (e.g. the backend closed). */
  closeAll(error: Error): void {
    const watchers = [...this.byPrefix.values()].flatMap((set) => [...set]).concat([...this.replaying]);
    this.byPrefix.clear();
    this.replaying.clear();
    this.dirty = [];
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
    this.replaying.delete(watcher);
    const set = this.byPrefix.get(watcher.prefix);
    set?.delete(watcher);
    if (set?.size === 0) this.byPrefix.delete(watcher.prefix);
  }

  private markDirty(watcher: Watcher): void {
    if (!watcher.dirty) {
      watcher.dirty = true;
      this.dirty.push(watcher);
    }
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => this.flush());
  }

  private flush(): void {
    this.flushScheduled = false;
    const watchers = this.dirty;
    this.dirty = [];
    for (const watcher of watchers) {
      watcher.dirty = false;
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
