import { storageClosed } from "../api/errors/index.js";
import { directoryPrefix, parentDirectories } from "./prefix.js";
import { firstAtOrAbove, partitionPoint } from "./sorted.js";
import type { KeyValue, ListOptions, ListResult, Storage, StorageEvent, StorageWatch, WatchOptions } from "./types.js";

export interface ListCacheOptions {
  /** The directory whose keys the cache holds (default `/`, every key); lists elsewhere go to the backend. */
  root?: string;
  /**
   * Whether lists without a revision are served from the cache (default true). A backend whose
   * revision can move without an event under `root` reaching the cache (an etcd shared with other
   * prefixes) cannot tell when the cache is current, so it reads those itself, as kube-apiserver
   * does on an etcd without ordered progress notifications.
   */
  consistentReads?: boolean;
  /**
   * For a backend without consistent reads from the cache: proves that the backend's keys under
   * `directory` are, now, the `count` keys the cache held at `revision` (nothing under it was
   * written or deleted since, whatever happened elsewhere), answering the backend's current
   * revision, or undefined when it cannot. A list of the latest state is then served from the
   * cache at that current revision after one check, and read from the backend when it fails.
   */
  unchangedSince?: (directory: string, revision: number, count: number) => Promise<number | undefined>;
  /**
   * Whether gets of the latest state under `root` are served from the cache (default false), as
   * kube-apiserver serves consistent reads from its watch cache: a get waits for a read of the
   * backend's current revision that began after it (gets arriving while one is in flight share the
   * next, so one backend request answers many gets, as etcd's ReadIndex batches reads), then for
   * the cache to hold that revision. A backend whose revision moves without events under `root`
   * proves the root unchanged with `unchangedSince` instead; meanwhile the backend answers.
   */
  servesGets?: boolean;
  /** How long a get waits for the cache to reach the backend's revision before the backend answers it (default 100 ms). */
  getWaitMs?: number;
  /** How long a consistent list waits for the cache to reach the backend's revision before reading the backend (default 3000 ms, upstream's). */
  consistentReadTimeoutMs?: number;
  /** Keys read per page when the cache loads the backend's state (default 1000). */
  loadPageSize?: number;
  /**
   * After a consistent list timed out waiting for the cache, consistent lists read the backend for
   * this long (default 30000 ms): a backend whose revision moves without events under the root (an
   * etcd shared with writers elsewhere) is then read directly instead of waited on at every list.
   */
  bypassAfterTimeoutMs?: number;
}

/**
 * Keys added (or deleted) since the sorted key list was last rebuilt, before it is rebuilt: a
 * write then costs a set insertion instead of moving half the sorted list, and a list merges the
 * few pending keys of its directory in.
 */
const MERGE_AFTER = 1024;
/** Past snapshots kept for continuations of lists whose directory changed since (upstream keeps its cache's snapshots too). */
const RETIRED_SNAPSHOTS = 16;
const RETIRED_SNAPSHOT_TTL_MS = 60_000;

/**
 * The keys of one directory in key order, as they stood at every revision from `from` (the
 * directory's last change) to `until` (the revision before its next change; open while current).
 */
interface Snapshot {
  directory: string;
  items: KeyValue[];
  from: number;
  until: number;
  retiredAt: number;
}

interface Waiter {
  revision: number;
  resolve: (caughtUp: boolean) => void;
  timer: NodeJS.Timeout;
}

/**
 * Serves lists from memory, as kube-apiserver's watch cache serves LISTs (KEP-2340, consistent
 * reads from cache): one watch keeps a copy of every key under `root` at the backend's latest
 * revision, loaded from the backend on first use.
 * - A list without a revision is consistent: the backend's current revision is read (one cheap
 *   read), the cache waits until its watch has delivered it (bounded; on timeout the backend
 *   answers), then serves its state, which is at least that new.
 * - A list with `minRevision` (resourceVersion "0" or NotOlderThan) waits only for that revision.
 * - A continuation at a revision is served from the snapshot its first page was cut from (or the
 *   directory's current state, when nothing under it changed since); otherwise the backend reads
 *   at that revision.
 * Everything else (writes, gets, counts, watches) goes to the backend.
 */
export function withListCache(storage: Storage, options: ListCacheOptions = {}): Storage {
  return new ListCache(storage, options);
}

class ListCache implements Storage {
  private readonly root: string;
  private readonly timeoutMs: number;
  private readonly loadPageSize: number;
  /**
   * The keys under `root`, sorted, as of the last rebuild; the live keys are these minus `removed`
   * plus `added`. `entries` holds every live key's current entry.
   */
  private keys: string[] = [];
  private readonly added = new Set<string>();
  private readonly removed = new Set<string>();
  private readonly entries = new Map<string, KeyValue>();
  /** Every event up to this revision is applied (0 while not loaded). */
  private revision = 0;
  /** The revision of the last change under each directory that was listed from the cache. */
  private readonly lastChange = new Map<string, number>();
  private readonly current = new Map<string, Snapshot>();
  private retired: Snapshot[] = [];
  private waiters: Waiter[] = [];
  private loading: Promise<void> | undefined;
  private feed: StorageWatch | undefined;
  /** Compaction made through this storage: snapshots below it are gone, as the backend's history is. */
  private compacted = 0;
  private closed = false;
  private readonly bypassMs: number;
  private readonly consistentReads: boolean;
  private readonly unchangedSince: ListCacheOptions["unchangedSince"];
  /** Until when consistent lists read the backend (`bypassAfterTimeoutMs`). */
  private bypassUntil = 0;
  private readonly servesGets: boolean;
  private readonly getWaitMs: number;
  /** The read of the backend's current revision in flight, and the one that follows it (shared by the gets that arrived meanwhile). */
  private revisionRead: Promise<number> | undefined;
  private nextRevisionRead: Promise<number> | undefined;
  /** A revision the backend's keys under `root` were proved to equal the cache's at (`unchangedSince`; 0 while not proved). */
  private provedThrough = 0;
  private proving: Promise<void> | undefined;

  private readonly inner: Storage;

  constructor(inner: Storage, options: ListCacheOptions) {
    this.inner = inner;
    this.root = directoryPrefix(options.root ?? "/");
    this.timeoutMs = options.consistentReadTimeoutMs ?? 3000;
    this.loadPageSize = options.loadPageSize ?? 1000;
    this.bypassMs = options.bypassAfterTimeoutMs ?? 30_000;
    this.consistentReads = options.consistentReads ?? true;
    this.unchangedSince = options.unchangedSince;
    this.servesGets = options.servesGets ?? false;
    this.getWaitMs = options.getWaitMs ?? 100;
  }

  async get(key: string, options?: { revision?: number }): Promise<KeyValue | undefined> {
    if (this.closed) throw storageClosed();
    if (!this.servesGets || !key.startsWith(this.root) || (options?.revision ?? 0) !== 0) return this.inner.get(key, options);
    const latest = await this.latestHeld();
    // Checked again after the last await: the cache may have been dropped since (its watch failed).
    if (latest !== undefined && this.revision > 0 && latest <= this.heldThrough()) return this.entries.get(key);
    return this.inner.get(key, options);
  }

  /**
   * The backend's revision as read after the caller asked, once the cache holds that state;
   * undefined when the cache cannot say (not loaded, lagging past `getWaitMs`, backend unreadable).
   */
  private async latestHeld(): Promise<number | undefined> {
    if (!(await this.caughtUp(0)) || this.proving !== undefined) return undefined;
    const loading = this.loading;
    const latest = await this.latestRevision().catch(() => undefined);
    if (latest === undefined || latest <= this.heldThrough()) return latest;
    const before = this.revision;
    if (await this.caughtUp(latest, this.getWaitMs)) return latest;
    // No event came while waiting: the backend's revision moved elsewhere (a shared etcd), and one
    // proof over the root lets the cache answer again. A cache that is only behind catches up itself.
    if (this.loading === loading && this.revision === before) this.proveUnchanged();
    return undefined;
  }

  /** The latest backend revision whose state under `root` the cache holds. */
  private heldThrough(): number {
    return Math.max(this.revision, this.provedThrough);
  }

  /** The backend's current revision, read after this call; concurrent callers share one read. */
  private latestRevision(): Promise<number> {
    if (this.nextRevisionRead !== undefined) return this.nextRevisionRead;
    const inFlight = this.revisionRead;
    if (inFlight === undefined) return this.readRevision();
    // The read in flight may have been answered before this caller arrived; the next one was not.
    const next = inFlight
      .then(
        () => undefined,
        () => undefined,
      )
      .then(() => {
        if (this.nextRevisionRead === next) this.nextRevisionRead = undefined;
        return this.readRevision();
      });
    this.nextRevisionRead = next;
    return next;
  }

  private readRevision(): Promise<number> {
    const read = this.inner.currentRevision();
    this.revisionRead = read;
    const done = (): void => {
      if (this.revisionRead === read) this.revisionRead = undefined;
    };
    read.then(done, done);
    return read;
  }

  /**
   * Proves (one backend request at a time) that the keys under `root` are still the cache's at its
   * revision, so that writes elsewhere no longer hold gets back. Any later event under the root
   * has a later revision than the one proved, so the proof holds until the cache is dropped.
   */
  private proveUnchanged(): void {
    const unchangedSince = this.unchangedSince;
    if (unchangedSince === undefined || this.proving !== undefined) return;
    const loading = this.loading;
    const proving = unchangedSince(this.root, this.revision, this.entries.size)
      .then(
        (current) => {
          if (current !== undefined && this.loading === loading) this.provedThrough = Math.max(this.provedThrough, current);
        },
        () => undefined,
      )
      .finally(() => {
        if (this.proving === proving) this.proving = undefined;
      });
    this.proving = proving;
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    const directory = directoryPrefix(prefix);
    if (this.closed) throw storageClosed();
    if (!directory.startsWith(this.root) || !validLimit(options.limit)) return this.inner.list(prefix, options);
    const revision = options.revision ?? 0;
    if (revision > 0) {
      const snapshot = revision >= this.compacted ? this.snapshotAt(directory, revision) : undefined;
      if (snapshot !== undefined) return page(snapshot, revision, options);
      return this.inner.list(prefix, options);
    }
    if (options.minRevision === undefined && !this.consistentReads && this.unchangedSince !== undefined)
      return this.listVerified(prefix, directory, options, this.unchangedSince);
    if (options.minRevision === undefined && (!this.consistentReads || Date.now() < this.bypassUntil))
      return this.inner.list(prefix, options);
    const target = options.minRevision ?? (await this.inner.currentRevision());
    if (!(await this.caughtUp(target))) {
      if (this.loading !== undefined) this.bypassUntil = Date.now() + this.bypassMs;
      return this.inner.list(prefix, options);
    }
    const snapshot = this.currentSnapshot(directory);
    return page(snapshot, this.revision, options);
  }

  /** A list of the latest state on a backend that can prove a directory unchanged since the cache's revision. */
  private async listVerified(
    prefix: string,
    directory: string,
    options: ListOptions,
    unchangedSince: NonNullable<ListCacheOptions["unchangedSince"]>,
  ): Promise<ListResult> {
    if (!(await this.caughtUp(0))) return this.inner.list(prefix, options);
    const snapshot = this.currentSnapshot(directory);
    const revision = this.revision;
    const current = await unchangedSince(directory, revision, snapshot.items.length).catch(() => undefined);
    // The directory is the same at the backend's revision as at the cache's: the list reports the
    // newer one, so it is never older than a write acknowledged anywhere before it.
    return current === undefined ? this.inner.list(prefix, options) : page(snapshot, current, options);
  }

  count(prefix: string): Promise<number> {
    return this.inner.count(prefix);
  }

  create(key: string, value: string): Promise<KeyValue> {
    return this.inner.create(key, value);
  }

  update(key: string, value: string, expectedModRevision: number): Promise<KeyValue> {
    return this.inner.update(key, value, expectedModRevision);
  }

  delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    return this.inner.delete(key, expectedModRevision);
  }

  watch(prefix: string, options: WatchOptions): Promise<StorageWatch> {
    return this.inner.watch(prefix, options);
  }

  currentRevision(): Promise<number> {
    return this.inner.currentRevision();
  }

  compactedRevision(): Promise<number> {
    return this.inner.compactedRevision();
  }

  async compact(revision: number): Promise<void> {
    await this.inner.compact(revision);
    this.compacted = Math.max(this.compacted, Math.min(revision, await this.inner.currentRevision()));
    this.retired = this.retired.filter((snapshot) => snapshot.until >= this.compacted);
  }

  checkHealth(): Promise<void> {
    return this.inner.checkHealth?.() ?? this.inner.currentRevision().then(() => undefined);
  }

  async close(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      this.unload();
    }
    await this.inner.close();
  }

  /**
   * Resolves true once every event up to `revision` is applied (loading the cache first, when
   * needed); false when that takes longer than the timeout or the cache cannot load.
   */
  private async caughtUp(revision: number, timeoutMs = this.timeoutMs): Promise<boolean> {
    try {
      await this.load();
    } catch {
      return false;
    }
    if (revision <= this.revision) return true;
    return new Promise<boolean>((resolve) => {
      const waiter: Waiter = {
        revision,
        resolve,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          resolve(false);
        }, timeoutMs),
      };
      waiter.timer.unref();
      this.waiters.push(waiter);
    });
  }

  private load(): Promise<void> {
    if (this.loading === undefined) {
      const loading = this.start();
      this.loading = loading;
      loading.catch(() => {
        if (this.loading === loading) this.unload();
      });
    }
    return this.loading;
  }

  /** Reads every key under `root` at one revision, a page at a time, then watches from that revision. */
  private async start(): Promise<void> {
    const entries: KeyValue[] = [];
    let page = await this.inner.list(this.root, { limit: this.loadPageSize, countRemaining: false });
    const at = page.revision;
    for (;;) {
      entries.push(...page.items);
      if (page.remaining === 0 || page.items.length === 0) break;
      page = await this.inner.list(this.root, {
        limit: this.loadPageSize,
        countRemaining: false,
        revision: at,
        startAfter: page.items[page.items.length - 1]!.key,
      });
    }
    if (this.closed) throw storageClosed();
    for (const kv of entries) this.entries.set(kv.key, kv);
    this.keys = entries.map((kv) => kv.key);
    this.revision = at;
    const loading = this.loading;
    this.feed = await this.inner.watch(this.root, {
      afterRevision: at,
      onEvents: (events) => this.apply(events),
      onError: () => {
        // The next list loads again; until then lists read the backend.
        if (this.loading === loading) this.unload();
      },
    });
  }

  private unload(): void {
    this.feed?.stop();
    this.feed = undefined;
    this.loading = undefined;
    this.keys = [];
    this.added.clear();
    this.removed.clear();
    this.entries.clear();
    this.revision = 0;
    this.provedThrough = 0;
    this.lastChange.clear();
    this.current.clear();
    this.retired = [];
    const waiters = this.waiters;
    this.waiters = [];
    for (const waiter of waiters) {
      clearTimeout(waiter.timer);
      waiter.resolve(false);
    }
  }

  private apply(events: readonly StorageEvent[]): void {
    const now = Date.now();
    for (const event of events) {
      const { key, modRevision } = event.kv;
      // A revision may hold several keys (one transaction), so only older events are skipped.
      if (modRevision < this.revision) continue;
      const known = this.entries.has(key);
      if (event.type === "put") {
        this.entries.set(key, event.kv);
        if (!known && !this.removed.delete(key)) this.added.add(key);
      } else if (known) {
        this.entries.delete(key);
        if (!this.added.delete(key)) this.removed.add(key);
      }
      for (const directory of parentDirectories(key)) {
        if (!this.lastChange.has(directory)) continue;
        this.lastChange.set(directory, modRevision);
        const snapshot = this.current.get(directory);
        if (snapshot === undefined) continue;
        this.current.delete(directory);
        snapshot.until = modRevision - 1;
        snapshot.retiredAt = now;
        this.retired.push(snapshot);
      }
      this.revision = modRevision;
    }
    if (this.retired.length > RETIRED_SNAPSHOTS) this.retired = this.retired.slice(-RETIRED_SNAPSHOTS);
    if (this.added.size + this.removed.size >= MERGE_AFTER) this.rebuildKeys();
    this.release();
  }

  /** Folds the pending additions and deletions into the sorted key list. */
  private rebuildKeys(): void {
    const kept = this.removed.size === 0 ? this.keys : this.keys.filter((key) => !this.removed.has(key));
    this.keys = mergeSorted(kept, [...this.added].sort());
    this.added.clear();
    this.removed.clear();
  }

  private release(): void {
    if (this.waiters.length === 0) return;
    const waiting: Waiter[] = [];
    for (const waiter of this.waiters) {
      if (waiter.revision > this.revision) {
        waiting.push(waiter);
        continue;
      }
      clearTimeout(waiter.timer);
      waiter.resolve(true);
    }
    this.waiters = waiting;
  }

  /** The directory's keys now; reused until something under the directory changes. */
  private currentSnapshot(directory: string): Snapshot {
    const existing = this.current.get(directory);
    if (existing !== undefined) return existing;
    // A directory listed for the first time changed last at or before the cache's revision; the
    // cache's revision is as precise a start as any.
    const from = this.lastChange.get(directory) ?? this.revision;
    if (!this.lastChange.has(directory)) this.lastChange.set(directory, from);
    const listed: string[] = [];
    for (let i = firstAtOrAbove(this.keys, directory); i < this.keys.length; i++) {
      const key = this.keys[i]!;
      if (!key.startsWith(directory)) break;
      if (!this.removed.has(key)) listed.push(key);
    }
    const pending: string[] = [];
    for (const key of this.added) if (key.startsWith(directory)) pending.push(key);
    const items = mergeSorted(listed, pending.sort()).map((key) => this.entries.get(key)!);
    const snapshot: Snapshot = { directory, items, from, until: Number.POSITIVE_INFINITY, retiredAt: 0 };
    this.current.set(directory, snapshot);
    return snapshot;
  }

  /** The directory's keys as they stood at `revision`, if the cache still has them. */
  private snapshotAt(directory: string, revision: number): Snapshot | undefined {
    if (this.loading === undefined || this.revision === 0) return undefined;
    const now = Date.now();
    this.retired = this.retired.filter((snapshot) => now - snapshot.retiredAt < RETIRED_SNAPSHOT_TTL_MS);
    for (const snapshot of this.retired) {
      if (snapshot.directory === directory && snapshot.from <= revision && revision <= snapshot.until) return snapshot;
    }
    const changed = this.lastChange.get(directory);
    if (changed === undefined || revision < changed || revision > this.revision) return undefined;
    return this.currentSnapshot(directory);
  }
}

function validLimit(limit: number | undefined): boolean {
  return limit === undefined || (Number.isInteger(limit) && limit >= 0);
}

/** One page of a snapshot after `startAfter`, as the backends page (remaining is exact). */
function page(snapshot: Snapshot, revision: number, options: ListOptions): ListResult {
  const { items } = snapshot;
  const after = options.startAfter;
  const start = after !== undefined && after >= snapshot.directory ? partitionPoint(items, (kv) => kv.key > after) : 0;
  const limit = options.limit ?? 0;
  const end = limit > 0 ? Math.min(items.length, start + limit) : items.length;
  return { items: items.slice(start, end), revision, remaining: items.length - end };
}

/** The union of two sorted, disjoint key lists, sorted. */
function mergeSorted(a: readonly string[], b: readonly string[]): string[] {
  if (b.length === 0) return a as string[];
  const merged: string[] = new Array<string>(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) merged[k++] = a[i]! < b[j]! ? a[i++]! : b[j++]!;
  while (i < a.length) merged[k++] = a[i++]!;
  while (j < b.length) merged[k++] = b[j++]!;
  return merged;
}
