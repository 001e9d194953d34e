/**
 * How an embedded backend (memory, SQLite) compacts itself. Like kube-apiserver on etcd
 * (`storage/etcd-compaction.ts`), every 5 minutes it compacts to the revision that was current one
 * interval earlier, so history lives one to two intervals however few or many writes there are,
 * and a continue token or watch that old expires. The round at startup knows nothing of an interval
 * ago, so it keeps `minRetainRevisions`, as kine does, and a server restarted more often than the
 * interval still compacts. On etcd only `compactInterval` applies.
 */
export interface CompactionOptions {
  /** Milliseconds between automatic compactions (the first runs at startup); 0 turns them off. Default 300000. */
  compactInterval?: number;
  /** Revisions the startup round keeps below the current one. Default 1000. */
  minRetainRevisions?: number;
}

export const DEFAULT_COMPACT_INTERVAL = 300_000;
export const DEFAULT_MIN_RETAIN_REVISIONS = 1000;
const MAX_TIMER_MS = 2 ** 31 - 1;

interface Compactable {
  currentRevision(): Promise<number>;
  compactedRevision(): Promise<number>;
  compact(revision: number): Promise<void>;
}

/** Runs the periodic compaction for `storage` until its `close()`; returns the same storage. */
export function withCompactor<T extends Compactable & { close(): Promise<void> }>(storage: T, options: CompactionOptions): T {
  const stopCompactor = startCompactor(storage, options);
  const close = storage.close.bind(storage);
  storage.close = () => {
    stopCompactor();
    return close();
  };
  return storage;
}

/**
 * Starts the periodic compaction: a first round right away, keeping `minRetainRevisions`, that
 * records the current revision; then every interval a round that records the current revision and
 * compacts to the one recorded the round before. The returned function stops it.
 */
export function startCompactor(storage: Compactable, options: CompactionOptions): () => void {
  const retain = options.minRetainRevisions ?? DEFAULT_MIN_RETAIN_REVISIONS;
  let recorded: number | undefined;
  return repeatEvery(
    options.compactInterval ?? DEFAULT_COMPACT_INTERVAL,
    async () => {
      if (recorded === undefined) {
        await compactOnce(storage, retain);
        recorded = await storage.currentRevision();
        return;
      }
      const oneIntervalAgo = recorded;
      // Like upstream, the schedule moves on even when this round's compaction fails.
      recorded = await storage.currentRevision();
      if (oneIntervalAgo > (await storage.compactedRevision())) await storage.compact(oneIntervalAgo);
    },
    { immediately: true },
  );
}

/**
 * Runs `task` every `interval` milliseconds (and once at once with `immediately`), never two runs
 * at a time, on timers that never keep the process alive. A failed run (e.g. the backend closed
 * meanwhile) is simply tried again on the next tick. An interval of 0 runs nothing. The returned
 * function stops it.
 */
export function repeatEvery(interval: number, task: () => Promise<void>, options: { immediately: boolean }): () => void {
  if (!Number.isFinite(interval) || interval <= 0) return () => {};
  let running = false;
  const round = (): void => {
    if (running) return;
    running = true;
    void task()
      .catch(() => {})
      .finally(() => {
        running = false;
      });
  };
  const first = options.immediately ? setTimeout(round, 0) : undefined;
  first?.unref();
  // Node fires a timer longer than 2^31-1 ms after 1 ms; a longer interval waits the longest it can.
  const timer = setInterval(round, Math.min(interval, MAX_TIMER_MS));
  timer.unref();
  return () => {
    clearTimeout(first);
    clearInterval(timer);
  };
}

/** Compacts up to `current - retain`, when that moves the compacted revision forward. */
export async function compactOnce(storage: Compactable, retain: number): Promise<void> {
  const target = (await storage.currentRevision()) - retain;
  if (target > (await storage.compactedRevision())) await storage.compact(target);
}
