import { mkdirSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { isControlPlaneError } from "../api/errors/control-plane-error.js";
import { withCompactor, type CompactionOptions } from "./compactor.js";
import {
  badRequest,
  internalError,
  keyExists,
  keyNotFound,
  revisionConflict,
  serviceUnavailable,
  storageClosed,
  tooLargeResourceVersion,
  tooOldResourceVersion,
} from "../api/errors/index.js";
import { directoryPrefix, prefixEnd } from "./prefix.js";
import { withListCache } from "./list-cache.js";
import { LiveCounts } from "./live-counts.js";
import { RemainingCache } from "./remaining-cache.js";
import { prepareDatabase, type SqliteSynchronous } from "./sqlite-schema.js";
import type { KeyValue, ListOptions, ListResult, Storage, StorageEvent, StorageWatch, WatchOptions } from "./types.js";
import { WatchHub, type ReplayPage } from "./watch-hub.js";

export interface SqliteStorageOptions extends CompactionOptions {
  /** Database file; created with its directory and schema when missing. */
  path: string;
  /**
   * `normal` (default) keeps every acknowledged write across a process kill; `full` also across
   * power loss, at one fsync per commit. See the README's durability notes.
   */
  synchronous?: SqliteSynchronous;
  /** How long to wait for a lock held by another connection (also how long opening waits for another process to let go of the file). Default 5000 ms. */
  busyTimeout?: number;
  /** Revisions compacted per transaction, so writers are never held up for long. Default 1000. */
  compactBatchSize?: number;
}

/** Most writes batched into one transaction; a larger backlog commits in several. */
const MAX_WRITES_PER_TRANSACTION = 1000;

/**
 * A persistent Storage on the built-in `node:sqlite`, modelled on kine: one table where each
 * write appends a row and the row id is the revision. One process owns the file; writes queued in
 * one event-loop turn commit together in one IMMEDIATE transaction (group commit) on the next
 * `setImmediate`, so a write burst never starves I/O and concurrent requests share one commit.
 * Watches are fed from the committed rows in-process, replaying older history from the table.
 */
export async function createSqliteStorage(options: SqliteStorageOptions): Promise<Storage> {
  return withCompactor(withListCache(await openExclusively(options)), options);
}

/**
 * Opens the file and takes its exclusive lock, waiting up to `busyTimeout` for another process to
 * let go. Two processes opening the same file at once can each hold a shared lock while waiting
 * for the other's (SQLite's exclusive locking mode keeps it while waiting), so both would time
 * out: instead each attempt waits briefly, and on a lock conflict the connection is closed (which
 * drops its locks) and tried again after a random pause, so exactly one of them wins.
 */
async function openExclusively(options: SqliteStorageOptions): Promise<SqliteStorage> {
  const busyTimeout = Math.max(0, options.busyTimeout ?? 5000);
  const deadline = Date.now() + busyTimeout;
  for (;;) {
    const remaining = deadline - Date.now();
    try {
      return new SqliteStorage(options, Math.min(remaining, OPEN_ATTEMPT_BUSY_MS));
    } catch (error) {
      if (isControlPlaneError(error)) throw error;
      if (!isLocked(error)) throw serviceUnavailable(`cannot open sqlite storage at ${options.path}: ${String(error)}`, { cause: error });
      if (Date.now() >= deadline) {
        throw serviceUnavailable(
          `cannot open sqlite storage at ${options.path}: the database is in use by another process (database is locked after waiting ${busyTimeout} ms); only one server can use a file at a time`,
          { cause: error },
        );
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(deadline - Date.now(), 5 + Math.random() * OPEN_ATTEMPT_BUSY_MS)));
    }
  }
}

/** How long one open attempt waits on another connection's lock before backing off. */
const OPEN_ATTEMPT_BUSY_MS = 50;

/** SQLITE_BUSY / SQLITE_LOCKED (and their extended codes) from node:sqlite. */
function isLocked(error: unknown): boolean {
  const code = (error as { errcode?: unknown } | null)?.errcode;
  return typeof code === "number" && ((code & 0xff) === 5 || (code & 0xff) === 6);
}

interface Row {
  id: number;
  name: string;
  created: number;
  deleted: number;
  create_revision: number;
  prev_revision: number;
  value: string | null;
  old_value: string | null;
}

type LatestRow = Pick<Row, "id" | "created" | "deleted" | "create_revision" | "value">;

type Write =
  | { kind: "create"; key: string; value: string }
  | { kind: "update"; key: string; value: string; expected: number }
  | { kind: "delete"; key: string; expected: number | undefined };

interface QueuedWrite {
  write: Write;
  resolve: (kv: KeyValue) => void;
  reject: (error: Error) => void;
}

class SqliteStorage implements Storage {
  private readonly db: DatabaseSync;
  private readonly statements: ReturnType<typeof prepareStatements>;
  private readonly hub = new WatchHub();
  private readonly remainingAfter = new RemainingCache();
  private readonly liveCounts = new LiveCounts();
  private readonly compactBatchSize: number;
  private revision: number;
  private compacted: number;
  private closed = false;
  private queue: QueuedWrite[] = [];
  private drainScheduled = false;
  private compaction: Promise<void> = Promise.resolve();
  /** The last storage-level write failure (disk full, I/O error), until a write succeeds again. */
  private writeFailure: Error | undefined;

  /** `openBusyTimeoutMs`: how long opening waits for another connection's lock (then `busyTimeout` applies). */
  constructor(options: SqliteStorageOptions, openBusyTimeoutMs: number) {
    const sqlite = process.getBuiltinModule("node:sqlite") as typeof import("node:sqlite") | undefined;
    if (sqlite === undefined) {
      throw serviceUnavailable(
        `cannot open sqlite storage at ${options.path}: node:sqlite is not available in Node.js ${process.version}; SQLite storage needs Node.js 22.19 or newer (memory and etcd storage do not)`,
      );
    }
    // Like etcd's --data-dir, a fresh path just works: the directory is created with the file.
    if (options.path !== ":memory:" && !options.path.startsWith("file:")) mkdirSync(dirname(resolve(options.path)), { recursive: true });
    this.db = new sqlite.DatabaseSync(options.path);
    try {
      prepareDatabase(this.db, { synchronous: options.synchronous ?? "normal", busyTimeoutMs: openBusyTimeoutMs });
      this.db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(options.busyTimeout ?? 5000))}`);
      this.statements = prepareStatements(this.db);
      this.revision = Number((this.statements.currentRevision.get() as { revision: number }).revision);
      this.compacted = Number((this.statements.readMeta.get("compact_revision") as { value: number }).value);
    } catch (error) {
      this.db.close();
      throw error;
    }
    this.compactBatchSize = Math.max(1, options.compactBatchSize ?? 1000);
  }

  get(key: string, options: { revision?: number } = {}): Promise<KeyValue | undefined> {
    return settle(() => {
      const revision = this.readRevision(options.revision);
      const row = (revision === this.revision ? this.statements.latest.get(key) : this.statements.atRevision.get(key, revision)) as
        LatestRow | undefined;
      return row === undefined || row.deleted !== 0 ? undefined : toKeyValue(key, row);
    });
  }

  list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    return settle(() => {
      const revision = this.readRevision(options.revision);
      const limit = options.limit ?? 0;
      if (!Number.isInteger(limit) || limit < 0) throw badRequest(`invalid limit ${limit}`);
      const low = directoryPrefix(prefix);
      const high = prefixEnd(low);
      const after = options.startAfter ?? "";
      const counting = options.countRemaining !== false;
      // Without a count, one row past the page says whether anything follows it.
      const rowLimit = limit === 0 ? -1 : counting ? limit : limit + 1;
      const rows = this.statements.list.all(low, high, after, revision, rowLimit) as unknown as Array<LatestRow & { name: string }>;
      const more = !counting && limit !== 0 && rows.length > limit;
      if (more) rows.length = limit;
      const items = rows.map((row) => toKeyValue(row.name, row));
      let remaining = more ? 1 : 0;
      if (counting && limit !== 0 && items.length === limit) {
        remaining = this.remainingAfterPage(low, high, revision, options.startAfter, items);
        if (remaining > 0) this.remainingAfter.record(low, revision, items[items.length - 1]!.key, remaining);
      }
      return { items, revision, remaining };
    });
  }

  count(prefix: string): Promise<number> {
    return settle(() => {
      if (this.closed) throw storageClosed();
      const low = directoryPrefix(prefix);
      return this.liveCount(low);
    });
  }

  create(key: string, value: string): Promise<KeyValue> {
    return this.enqueue({ kind: "create", key, value });
  }

  update(key: string, value: string, expectedModRevision: number): Promise<KeyValue> {
    return this.enqueue({ kind: "update", key, value, expected: expectedModRevision });
  }

  delete(key: string, expectedModRevision?: number): Promise<KeyValue> {
    return this.enqueue({ kind: "delete", key, expected: expectedModRevision });
  }

  watch(prefix: string, options: WatchOptions): Promise<StorageWatch> {
    return settle(() => {
      if (this.closed) throw storageClosed();
      if (options.afterRevision < this.compacted) throw tooOldResourceVersion(options.afterRevision, this.compacted);
      const low = directoryPrefix(prefix);
      if (options.afterRevision >= this.revision) return this.hub.add(low, options, [], options.afterRevision);
      // History is read a page at a time; reads and commits both run synchronously, so the page that
      // reaches the current revision joins the live stream with no commit in between.
      const high = prefixEnd(low);
      const readPage = (after: number, limit: number): ReplayPage => {
        if (this.closed) throw storageClosed();
        if (after < this.compacted) throw tooOldResourceVersion(after, this.compacted);
        const rows = this.statements.history.all(after, low, high, limit) as unknown as Row[];
        const events = rows.map(toEvent);
        const complete = rows.length < limit;
        return { events, complete, through: complete ? this.revision : rows[rows.length - 1]!.id };
      };
      return this.hub.addReplaying(low, options, readPage, options.afterRevision);
    });
  }

  currentRevision(): Promise<number> {
    return this.closed ? Promise.reject(storageClosed()) : Promise.resolve(this.revision);
  }

  compactedRevision(): Promise<number> {
    return this.closed ? Promise.reject(storageClosed()) : Promise.resolve(this.compacted);
  }

  /**
   * Deletes superseded rows and tombstones at or below `revision`, `compactBatchSize` revisions per
   * transaction, yielding to other work between batches (kine's approach; one big transaction
   * would stall writers on a large database). The WAL is checkpointed and freed pages returned after.
   */
  compact(revision: number): Promise<void> {
    if (this.closed) return Promise.reject(storageClosed());
    // Compactions run one after another; a failed one does not fail the next.
    const run = this.compaction.then(() => this.compactTo(revision));
    this.compaction = run.catch(() => undefined);
    return run;
  }

  /**
   * Healthy while the file can be read and the last write did not fail at the storage level.
   * After a failed write it probes with a one-row write, so it recovers once the disk does.
   */
  checkHealth(): Promise<void> {
    return settle(() => {
      if (this.closed) throw storageClosed();
      this.statements.readMeta.get("compact_revision");
      if (this.writeFailure === undefined) return;
      try {
        this.statements.probeWrite.run(Date.now());
        this.writeFailure = undefined;
      } catch (error) {
        throw serviceUnavailable(`storage writes are failing: ${errorMessage(error)}`, { cause: error });
      }
    });
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    const pending = this.queue;
    this.queue = [];
    for (const queued of pending) queued.reject(storageClosed());
    this.hub.closeAll(storageClosed());
    this.liveCounts.clear();
    this.db.close();
    return Promise.resolve();
  }

  private async compactTo(revision: number): Promise<void> {
    const target = Math.min(revision, this.revision);
    let compactedAny = false;
    while (this.compacted < target) {
      if (this.closed) throw storageClosed();
      const high = Math.min(target, this.compacted + this.compactBatchSize);
      this.statements.begin.run();
      try {
        this.statements.compactBatch.run(this.compacted, high, this.compacted, high);
        this.statements.writeMeta.run(high, "compact_revision");
        this.statements.commit.run();
      } catch (error) {
        this.statements.rollback.run();
        throw error;
      }
      this.compacted = high;
      compactedAny = true;
      if (this.compacted < target) await new Promise((resolve) => setImmediate(resolve));
    }
    if (compactedAny && !this.closed) {
      this.db.exec("PRAGMA incremental_vacuum");
      this.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    }
  }

  private enqueue(write: Write): Promise<KeyValue> {
    if (this.closed) return Promise.reject(storageClosed());
    return new Promise<KeyValue>((resolve, reject) => {
      this.queue.push({ write, resolve, reject });
      if (!this.drainScheduled) {
        this.drainScheduled = true;
        setImmediate(() => this.drain());
      }
    });
  }

  /** Commits the queued writes in transactions, then acknowledges them and notifies watchers. */
  private drain(): void {
    this.drainScheduled = false;
    while (this.queue.length > 0 && !this.closed) {
      const batch = this.queue.splice(0, MAX_WRITES_PER_TRANSACTION);
      const outcomes: Array<{ kv: KeyValue; event: StorageEvent } | Error> = [];
      // A lone write is one INSERT after one SELECT: it runs in autocommit, which saves two statements.
      // Nothing can write between the two (this process holds the exclusive lock and runs them
      // synchronously), and the (name, prev_revision) index would refuse a lost race anyway.
      const transaction = batch.length > 1;
      try {
        if (transaction) this.statements.begin.run();
        try {
          for (const queued of batch) {
            try {
              outcomes.push(this.apply(queued.write));
            } catch (error) {
              if (!isControlPlaneError(error)) throw error;
              outcomes.push(error);
            }
          }
          if (transaction) this.statements.commit.run();
        } catch (error) {
          if (this.db.isTransaction) this.statements.rollback.run();
          throw error;
        }
      } catch (error) {
        this.writeFailure = error instanceof Error ? error : new Error(String(error));
        // Nothing of this batch was committed; the revision counter is reloaded from the table
        // (when even that read fails, the counter still holds the last committed revision).
        try {
          this.revision = Number((this.statements.currentRevision.get() as { revision: number }).revision);
        } catch {
          // Reported by checkHealth; the next write reloads nothing it has not committed.
        }
        const failure = internalError(new Error(`storage write failed: ${String(error)}`, { cause: error }));
        for (const queued of batch) queued.reject(failure);
        continue;
      }
      const events: StorageEvent[] = [];
      for (let i = 0; i < batch.length; i++) {
        const outcome = outcomes[i]!;
        if (outcome instanceof Error) continue;
        events.push(outcome.event);
        this.revision = outcome.kv.modRevision;
      }
      this.liveCounts.apply(events);
      this.writeFailure = undefined;
      this.hub.publish(events);
      for (let i = 0; i < batch.length; i++) {
        const outcome = outcomes[i]!;
        if (outcome instanceof Error) batch[i]!.reject(outcome);
        else batch[i]!.resolve(outcome.kv);
      }
    }
  }

  /** One write inside the open transaction; precondition failures throw before anything is written. */
  private apply(write: Write): { kv: KeyValue; event: StorageEvent } {
    const s = this.statements;
    const latest = s.latest.get(write.key) as LatestRow | undefined;
    const live = latest !== undefined && latest.deleted === 0 ? toKeyValue(write.key, latest) : undefined;
    if (write.kind === "create") {
      if (live !== undefined) throw keyExists(write.key);
      const id = Number(s.insert.run(write.key, 1, 0, 0, latest?.id ?? 0, write.value, null).lastInsertRowid);
      const kv: KeyValue = { key: write.key, value: write.value, createRevision: id, modRevision: id };
      return { kv, event: { type: "put", kv, prev: undefined } };
    }
    if (live === undefined) throw keyNotFound(write.key);
    if (write.expected !== undefined && write.expected !== live.modRevision)
      throw revisionConflict(write.key, write.expected, live.modRevision);
    if (write.kind === "update") {
      const id = Number(s.insert.run(write.key, 0, 0, live.createRevision, live.modRevision, write.value, live.value).lastInsertRowid);
      const kv: KeyValue = { key: write.key, value: write.value, createRevision: live.createRevision, modRevision: id };
      return { kv, event: { type: "put", kv, prev: live } };
    }
    const id = Number(s.insert.run(write.key, 0, 1, live.createRevision, live.modRevision, null, live.value).lastInsertRowid);
    const kv: KeyValue = { key: write.key, value: live.value, createRevision: live.createRevision, modRevision: id };
    return { kv, event: { type: "delete", kv, prev: live } };
  }

  /**
   * Keys after a full page. At the current revision a first page subtracts itself from the live
   * count of the directory; a continuation uses what the previous page recorded; anything else
   * (a first page at a past revision, an expired cache entry) counts the rest of the range.
   */
  private remainingAfterPage(low: string, high: string, revision: number, startAfter: string | undefined, items: KeyValue[]): number {
    if (startAfter === undefined && revision === this.revision) return this.liveCount(low) - items.length;
    const known = startAfter === undefined ? undefined : this.remainingAfter.after(low, revision, startAfter);
    if (known !== undefined) return known - items.length;
    return Number((this.statements.countFrom.get(low, high, items[items.length - 1]!.key, revision) as { count: number }).count);
  }

  private liveCount(low: string): number {
    return this.liveCounts.get(low, () =>
      Number((this.statements.countFrom.get(low, prefixEnd(low), "", this.revision) as { count: number }).count),
    );
  }

  private readRevision(requested: number | undefined): number {
    if (this.closed) throw storageClosed();
    if (requested === undefined || requested === 0) return this.revision;
    if (!Number.isInteger(requested) || requested < 0) throw badRequest(`invalid revision ${requested}`);
    if (requested < this.compacted) throw tooOldResourceVersion(requested, this.compacted);
    if (requested > this.revision) throw tooLargeResourceVersion(requested, this.revision);
    return requested;
  }
}

/**
 * The newest row per key at or below a revision, in key order; keys whose newest row is a tombstone
 * are skipped. The inner ORDER BY lets the planner stream groups in (name, prev_revision) index
 * order (a covering index: the rowid is the id), so LIMIT stops after the page instead of sorting
 * the whole range. Parameters: low, high, startAfter, revision, limit (-1: none).
 */
export const LIST_SQL = `
      SELECT k.name, k.id, k.created, k.deleted, k.create_revision, k.value
      FROM (SELECT name, MAX(id) AS id FROM kine WHERE name >= ? AND name < ? AND name > ? AND id <= ? GROUP BY name ORDER BY name) AS m
      CROSS JOIN kine AS k ON k.id = m.id
      WHERE k.deleted = 0
      ORDER BY m.name
      LIMIT ?`;

function prepareStatements(db: DatabaseSync) {
  const prepare = (sql: string): StatementSync => db.prepare(sql);
  return {
    begin: prepare("BEGIN IMMEDIATE"),
    commit: prepare("COMMIT"),
    rollback: prepare("ROLLBACK"),
    currentRevision: prepare(
      "SELECT COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'kine'), (SELECT MAX(id) FROM kine), 0) AS revision",
    ),
    readMeta: prepare("SELECT value FROM kine_meta WHERE name = ?"),
    writeMeta: prepare("UPDATE kine_meta SET value = ? WHERE name = ?"),
    probeWrite: prepare("INSERT OR REPLACE INTO kine_meta (name, value) VALUES ('health_probe', ?)"),
    // prev_revision grows with id along a key's rows, so these walk the unique index from the newest row.
    latest: prepare("SELECT id, created, deleted, create_revision, value FROM kine WHERE name = ? ORDER BY prev_revision DESC LIMIT 1"),
    atRevision: prepare(
      "SELECT id, created, deleted, create_revision, value FROM kine WHERE name = ? AND id <= ? ORDER BY prev_revision DESC LIMIT 1",
    ),
    insert: prepare(
      "INSERT INTO kine (name, created, deleted, create_revision, prev_revision, value, old_value) VALUES (?, ?, ?, ?, ?, ?, ?)",
    ),
    list: prepare(LIST_SQL),
    countFrom: prepare(`
      SELECT COUNT(*) AS count
      FROM (SELECT MAX(id) AS id FROM kine WHERE name >= ? AND name < ? AND name > ? AND id <= ? GROUP BY name) AS m
      CROSS JOIN kine AS k ON k.id = m.id
      WHERE k.deleted = 0`),
    // Scans by revision (the `+` keeps the planner off the name index): watches start at recent revisions.
    history: prepare(`
      SELECT id, name, created, deleted, create_revision, prev_revision, value, old_value
      FROM kine WHERE id > ? AND +name >= ? AND +name < ? ORDER BY id LIMIT ?`),
    // kine's compaction: drop every row superseded by a row in the window, and every tombstone in it.
    compactBatch: prepare(`
      DELETE FROM kine WHERE id IN (
        SELECT prev_revision FROM kine WHERE id > ? AND id <= ? AND prev_revision != 0
        UNION
        SELECT id FROM kine WHERE id > ? AND id <= ? AND deleted != 0)`),
  };
}

function toKeyValue(key: string, row: LatestRow): KeyValue {
  return { key, value: row.value ?? "", createRevision: row.created !== 0 ? row.id : row.create_revision, modRevision: row.id };
}

function toEvent(row: Row): StorageEvent {
  const createRevision = row.created !== 0 ? row.id : row.create_revision;
  const prev: KeyValue | undefined =
    row.created !== 0 ? undefined : { key: row.name, value: row.old_value ?? "", createRevision, modRevision: row.prev_revision };
  if (row.deleted !== 0) {
    return { type: "delete", kv: { key: row.name, value: row.old_value ?? "", createRevision, modRevision: row.id }, prev: prev! };
  }
  return { type: "put", kv: { key: row.name, value: row.value ?? "", createRevision, modRevision: row.id }, prev };
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function settle<T>(read: () => T): Promise<T> {
  try {
    return Promise.resolve(read());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}
