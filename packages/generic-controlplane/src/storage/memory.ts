import type { KeyValue, ListOptions, ListResult, Storage, StorageEvent, StorageWatch, WatchOptions } from "./types.js";
import { withCompactor, type CompactionOptions } from "./compactor.js";
import {
  badRequest,
  keyExists,
  keyNotFound,
  revisionConflict,
  storageClosed,
  tooLargeResourceVersion,
  tooOldResourceVersion,
} from "../api/errors/index.js";
import { directoryPrefix } from "./prefix.js";
import { partitionPoint } from "./sorted.js";
import { SortedKeys } from "./sorted-keys.js";
import { LiveCounts } from "./live-counts.js";
import { RemainingCache } from "./remaining-cache.js";
import { WatchHub, type ReplayPage } from "./watch-hub.js";

export type MemoryStorageOptions = CompactionOptions;

/** One write to a key: the value from `revision` on, or a tombstone (`kv` undefined). */
interface Version {
  revision: number;
  kv: KeyValue | undefined;
}

/**
 * An in-process Storage keeping the full MVCC history until compaction: reads at past revisions,
 * paging at a fixed revision and watch replay behave exactly as on the persistent backends.
 */
export function createMemoryStorage(options: MemoryStorageOptions = {}): Storage {
  return withCompactor(new MemoryStorage(), options);
}

class MemoryStorage implements Storage {
  private revision = 0;
  private compacted = 0;
  private closed = false;
  /** Every key with retained history, oldest version first. */
  private readonly versions = new Map<string, Version[]>();
  /** The keys of `versions` in ascending order, for range scans. */
  private readonly orderedKeys = new SortedKeys();
  /** Retained events (revision > compacted), in revision order. */
  private log: StorageEvent[] = [];
  private readonly hub = new WatchHub();
  private readonly remainingAfter = new RemainingCache();
  private readonly liveCounts = new LiveCounts();

  get(key: string, options: { revision?: number } = {}): Promise<KeyValue | undefined> {
    return settle(() => versionAt(this.versions.get(key), this.readRevision(options.revision)));
  }

  list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    return settle(() => {
      const revision = this.readRevision(options.revision);
      const limit = options.limit ?? 0;
      if (!Number.isInteger(limit) || limit < 0) throw badRequest(`invalid limit ${limit}`);
      const directory = directoryPrefix(prefix);
      const keys =
        options.startAfter !== undefined && options.startAfter >= directory
          ? this.orderedKeys.from(options.startAfter, true)
          : this.orderedKeys.from(directory);
      const counting = options.countRemaining !== false;
      // Keys from the start of the page on: a first page at the current revision takes the
      // directory's live count, a continuation what the previous page recorded.
      const firstAtCurrent = options.startAfter === undefined && revision === this.revision;
      const known =
        !counting || limit === 0
          ? undefined
          : firstAtCurrent
            ? this.liveCount(directory)
            : this.remainingAfter.after(directory, revision, options.startAfter ?? "");
      const items: KeyValue[] = [];
      let remaining = 0;
      for (const key of keys) {
        if (!key.startsWith(directory)) break;
        const kv = versionAt(this.versions.get(key), revision);
        if (kv === undefined) continue;
        if (limit === 0 || items.length < limit) {
          items.push(kv);
        } else if (!counting) {
          remaining = 1;
          break;
        } else if (known !== undefined) {
          remaining = known - items.length;
          break;
        } else {
          remaining++;
        }
      }
      if (counting && remaining > 0) this.remainingAfter.record(directory, revision, items[items.length - 1]!.key, remaining);
      return { items, revision, remaining };
    });
  }

  count(prefix: string): Promise<number> {
    if (this.closed) return Promise.reject(storageClosed());
    return Promise.resolve(this.liveCount(directoryPrefix(prefix)));
  }

  create(key: string, value: string): Promise<KeyValue> {
    if (this.closed) return Promise.reject(storageClosed());
    const history = this.versions.get(key);
    if (history?.at(-1)?.kv !== undefined) return Promise.reject(keyExists(key));
    const revision = ++this.revision;
    const kv = Object.freeze({ key, value, createRevision: revision, modRevision: revision });
    this.append(key, history, { revision, kv }, { type: "put", kv, prev: undefined });
    return Promise.resolve(kv);
  }

  update(key: string, value: string, expectedModRevision: number): Promise<KeyValue> {
    if (this.closed) return Promise.reject(storageClosed());
    const history = this.versions.get(key);
    const prev = history?.at(-1)?.kv;
    if (history === undefined || prev === undefined) return Promise.reject(keyNotFound(key));
    if (prev.modRevision !== expectedModRevision) return Promise.reject(revisionConflict(key, expectedModRevision, prev.modRevision));
    const revision = ++this.revision;
    const kv = Object.freeze({ key, value, createRevision: prev.createRevision, modRevision: revision });
    this.append(key, history, { revision, kv }, { type: "put", kv, prev });
    return Promise.resolve(kv);
  }

  delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    if (this.closed) return Promise.reject(storageClosed());
    const history = this.versions.get(key);
    const prev = history?.at(-1)?.kv;
    if (history === undefined || prev === undefined) return Promise.reject(keyNotFound(key));
    if (expectedModRevision !== undefined && prev.modRevision !== expectedModRevision) {
      return Promise.reject(revisionConflict(key, expectedModRevision, prev.modRevision));
    }
    const revision = ++this.revision;
    const kv = Object.freeze({ key, value: prev.value, createRevision: prev.createRevision, modRevision: revision });
    this.append(key, history, { revision, kv: undefined }, { type: "delete", kv, prev });
    return Promise.resolve(kv);
  }

  watch(prefix: string, options: WatchOptions): Promise<StorageWatch> {
    if (this.closed) return Promise.reject(storageClosed());
    if (options.afterRevision < this.compacted) return Promise.reject(tooOldResourceVersion(options.afterRevision, this.compacted));
    const directory = directoryPrefix(prefix);
    if (options.afterRevision >= this.revision) return Promise.resolve(this.hub.add(directory, options, [], options.afterRevision));
    const readPage = (after: number, limit: number): ReplayPage => {
      if (this.closed) throw storageClosed();
      if (after < this.compacted) throw tooOldResourceVersion(after, this.compacted);
      const events: StorageEvent[] = [];
      for (let i = firstLogIndexAbove(this.log, after); i < this.log.length && events.length < limit; i++) {
        const event = this.log[i]!;
        if (event.kv.key.startsWith(directory)) events.push(event);
      }
      const complete = events.length < limit;
      return { events, complete, through: complete ? this.revision : events[events.length - 1]!.kv.modRevision };
    };
    return Promise.resolve(this.hub.addReplaying(directory, options, readPage, options.afterRevision));
  }

  currentRevision(): Promise<number> {
    return this.closed ? Promise.reject(storageClosed()) : Promise.resolve(this.revision);
  }

  compactedRevision(): Promise<number> {
    return this.closed ? Promise.reject(storageClosed()) : Promise.resolve(this.compacted);
  }

  compact(revision: number): Promise<void> {
    if (this.closed) return Promise.reject(storageClosed());
    const target = Math.min(revision, this.revision);
    if (target <= this.compacted) return Promise.resolve();
    for (const [key, history] of this.versions) {
      // Keep the newest version at or below the target (the state a read at `target` sees) unless it is a tombstone.
      let keep = history.length - 1;
      while (keep >= 0 && history[keep]!.revision > target) keep--;
      if (keep < 0) continue;
      const dropThrough = history[keep]!.kv === undefined ? keep + 1 : keep;
      if (dropThrough === 0) continue;
      history.splice(0, dropThrough);
      if (history.length === 0) {
        this.versions.delete(key);
        this.orderedKeys.delete(key);
      }
    }
    this.log = this.log.slice(firstLogIndexAbove(this.log, target));
    this.compacted = target;
    return Promise.resolve();
  }

  /** Memory cannot fail underneath; only a closed store is unhealthy. */
  checkHealth(): Promise<void> {
    return this.closed ? Promise.reject(storageClosed()) : Promise.resolve();
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    this.hub.closeAll(storageClosed());
    this.liveCounts.clear();
    this.versions.clear();
    this.orderedKeys.clear();
    this.log = [];
    return Promise.resolve();
  }

  private append(key: string, history: Version[] | undefined, version: Version, event: StorageEvent): void {
    if (history === undefined) {
      this.versions.set(key, [version]);
      this.orderedKeys.add(key);
    } else {
      history.push(version);
    }
    this.log.push(event);
    this.liveCounts.apply([event]);
    this.hub.publish([event]);
  }

  private liveCount(directory: string): number {
    return this.liveCounts.get(directory, () => {
      let count = 0;
      for (const key of this.orderedKeys.from(directory)) {
        if (!key.startsWith(directory)) break;
        if (this.versions.get(key)?.at(-1)?.kv !== undefined) count++;
      }
      return count;
    });
  }

  /** The revision a read is served at: the current one by default, never compacted or in the future. */
  private readRevision(requested: number | undefined): number {
    if (this.closed) throw storageClosed();
    if (requested === undefined || requested === 0) return this.revision;
    if (!Number.isInteger(requested) || requested < 0) throw badRequest(`invalid revision ${requested}`);
    if (requested < this.compacted) throw tooOldResourceVersion(requested, this.compacted);
    if (requested > this.revision) throw tooLargeResourceVersion(requested, this.revision);
    return requested;
  }
}

/** Runs a synchronous read, turning a throw into a rejection. */
function settle<T>(read: () => T): Promise<T> {
  try {
    return Promise.resolve(read());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}

function versionAt(history: Version[] | undefined, revision: number): KeyValue | undefined {
  if (history === undefined) return undefined;
  for (let i = history.length - 1; i >= 0; i--) {
    const version = history[i]!;
    if (version.revision <= revision) return version.kv;
  }
  return undefined;
}

function firstLogIndexAbove(log: readonly StorageEvent[], revision: number): number {
  return partitionPoint(log, (event) => event.kv.modRevision > revision);
}
