/**
 * The revisioned key-value contract every storage backend implements. It is shaped after etcd v3:
 * one global, monotonically increasing revision; every write creates a new revision; reads can be
 * served at a past revision until it is compacted; watches replay history after a revision.
 *
 * Keys follow kube-apiserver: `/registry/<group>/<resource>/[<namespace>/]<name>` (the core group
 * is written without a group segment: `/registry/configmaps/default/foo`). Values are opaque
 * strings (the registry stores JSON).
 *
 * Failures are `ControlPlaneError`s: `AlreadyExists` (create of an existing key), `Conflict`
 * (compare-and-swap on a stale revision), `NotFound` (update/delete of a missing key), `Expired`
 * (a read or watch below the compacted revision), `ServiceUnavailable` (backend closed),
 * `Timeout` with cause `ResourceVersionTooLarge` (a read at a revision not reached yet, as
 * kube-apiserver answers it).
 *
 * A prefix names a directory: `list`, `count` and `watch` on `/registry/configmaps/a` cover
 * `/registry/configmaps/a/…` but neither `/registry/configmaps/ab/…` nor the key
 * `/registry/configmaps/a` itself ("/" is appended when missing, as kube-apiserver's etcd3 store does).
 */

export interface KeyValue {
  key: string;
  value: string;
  /** Revision at which the key was (last) created. */
  createRevision: number;
  /** Revision of the last write to the key; this is the object's resourceVersion. */
  modRevision: number;
}

export interface ListOptions {
  /** Return at most this many items; 0 or unset means no limit. */
  limit?: number;
  /** Start strictly after this key (for paging with limit/continue). */
  startAfter?: string;
  /** Read the state as of this revision; 0 or unset means the current revision. */
  revision?: number;
  /**
   * Whether `remaining` must be the exact count (default true). With `false` the backend stops
   * after the page: `remaining` is then 0 when no key follows the page and a positive lower bound
   * otherwise. Readers that page through a whole range (a streamed LIST) need nothing more.
   */
  countRemaining?: boolean;
  /**
   * Without `revision`: any state at or after this revision will do (resourceVersion "0" or a
   * NotOlderThan match), so a backend serving lists from a watch cache answers from memory once
   * the cache got there, without reading the backend's current revision. Backends without a cache
   * read the current revision, which is never older. Unset: the current revision (a consistent read).
   */
  minRevision?: number;
}

export interface ListResult {
  items: KeyValue[];
  /** The revision the list was read at. A continuation reads at the same revision. */
  revision: number;
  /** Number of keys under the prefix after the returned page, at `revision`. */
  remaining: number;
}

export type StorageEvent =
  | { type: "put"; kv: KeyValue; prev: KeyValue | undefined }
  /** `kv.modRevision` is the revision of the delete; `kv.value` is the last value. */
  | { type: "delete"; kv: KeyValue; prev: KeyValue };

export interface WatchOptions {
  /** Deliver every event with revision > afterRevision, replaying history first. */
  afterRevision: number;
  /**
   * Called with events in revision order. Batches never reorder. History older than the current
   * revision is replayed from the backend in pages, never all of it at once.
   */
  onEvents: (events: StorageEvent[]) => void;
  /**
   * Backpressure for the replay: consulted after each replayed page; when it returns a promise,
   * the next page is read only after it settles, so a consumer writing to a slow socket holds the
   * replay back instead of buffering history. Live events (committed after the replay caught up)
   * never wait.
   */
  whenReady?: () => Promise<void> | undefined;
  /** Called once if the watch ends for a reason other than `stop()` (e.g. compaction overtook it, backend closed). */
  onError?: (error: Error) => void;
}

export interface StorageWatch {
  stop(): void;
}

export interface Storage {
  /** Current value of a key, or at `revision` when given. */
  get(key: string, options?: { revision?: number }): Promise<KeyValue | undefined>;
  /**
   * Keys under `prefix` in key order. Reading a large range in pages (`limit`, `startAfter`, the
   * first page's `revision`) sees one consistent snapshot and costs each page about its own size,
   * whatever the size of the range.
   */
  list(prefix: string, options?: ListOptions): Promise<ListResult>;
  /** Number of live keys under `prefix`. */
  count(prefix: string): Promise<number>;
  /** Create; fails with AlreadyExists when the key exists. */
  create(key: string, value: string): Promise<KeyValue>;
  /** Compare-and-swap on the key's modRevision; fails with Conflict or NotFound. */
  update(key: string, value: string, expectedModRevision: number): Promise<KeyValue>;
  /** Delete; with `expectedModRevision` only if unchanged. Returns the deleted entry with the delete revision as modRevision. */
  delete(key: string, expectedModRevision?: number): Promise<KeyValue>;
  /** Watch a prefix from a revision. Rejects with Expired when `afterRevision` is below the compacted revision. */
  watch(prefix: string, options: WatchOptions): Promise<StorageWatch>;
  /** The latest revision. */
  currentRevision(): Promise<number>;
  /** The revision below which history is gone (0 when nothing was compacted). */
  compactedRevision(): Promise<number>;
  /** Discard history at or below `revision` (never the latest value of a live key). */
  compact(revision: number): Promise<void>;
  /**
   * Rejects while the backend cannot serve (closed, unreadable, writes failing on a full disk or
   * an I/O error); `/readyz`, `/livez` and `/healthz` report it as their `etcd` check. Optional:
   * without it the server only checks that `currentRevision()` answers.
   */
  checkHealth?(): Promise<void>;
  close(): Promise<void>;
}
