import type { DatabaseSync } from "node:sqlite";

/**
 * kine's single-table layout: every write appends a row whose id is the global revision.
 * - `created`/`deleted` mark the row that creates or deletes a key; a created row's create
 *   revision is its own id (`create_revision` is 0 then, as in kine).
 * - `prev_revision` points at the key's previous row; UNIQUE (name, prev_revision) makes a second
 *   writer on the same predecessor fail, which is the compare-and-swap even across connections.
 * - `old_value` is the previous value, so a watch can replay `prev` after the predecessor row is
 *   compacted away. Delete rows keep the last value only there (`value` is NULL).
 * - No separate (name, id) index: a key's rows chain through prev_revision, which therefore grows
 *   with id, so the unique index also finds a key's newest row (ORDER BY prev_revision DESC) and
 *   each write maintains one index instead of two.
 * - AUTOINCREMENT so ids are never reused, even when compaction deleted the newest row (a tombstone).
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS kine (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  created INTEGER NOT NULL,
  deleted INTEGER NOT NULL,
  create_revision INTEGER NOT NULL,
  prev_revision INTEGER NOT NULL,
  lease INTEGER NOT NULL DEFAULT 0,
  value TEXT,
  old_value TEXT
);
CREATE UNIQUE INDEX IF NOT EXISTS kine_name_prev_revision_uindex ON kine (name, prev_revision);
CREATE TABLE IF NOT EXISTS kine_meta (
  name TEXT PRIMARY KEY,
  value INTEGER NOT NULL
) WITHOUT ROWID;
`;

export type SqliteSynchronous = "normal" | "full";

/**
 * Connection settings, then the schema.
 * - WAL: readers never block the writer and a commit is one append to the log.
 * - synchronous: with WAL, NORMAL writes every committed transaction to the WAL file before the
 *   commit returns and fsyncs only at checkpoints. A killed process (kill -9, crash) therefore
 *   loses nothing it acknowledged: the bytes are in the OS page cache and recovery replays them.
 *   Only an OS crash or power loss can drop the last transactions (never corrupting the file).
 *   FULL adds an fsync per commit for that case, at a large cost per write; it is an option.
 * - locking_mode=EXCLUSIVE: the first write takes the file lock and keeps it, so a second
 *   process cannot open the same database and write behind this process's revision counter and
 *   watch notifications (watches are fed in-process). It also spares the shared-memory index.
 * - auto_vacuum=INCREMENTAL (only effective on a new file): compaction can hand freed pages
 *   back to the file system instead of the file only ever growing.
 */
export function prepareDatabase(db: DatabaseSync, options: { synchronous: SqliteSynchronous; busyTimeoutMs: number }): void {
  db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs))}`);
  db.exec("PRAGMA auto_vacuum = INCREMENTAL");
  db.exec("PRAGMA locking_mode = EXCLUSIVE");
  db.exec("PRAGMA journal_mode = WAL");
  db.exec(`PRAGMA synchronous = ${options.synchronous === "full" ? "FULL" : "NORMAL"}`);
  db.exec("PRAGMA temp_store = MEMORY");
  db.exec("PRAGMA cache_size = -65536");
  // One write transaction takes the exclusive lock now, so a database held by another process fails at open.
  db.exec("BEGIN IMMEDIATE");
  try {
    db.exec(SCHEMA);
    db.exec("INSERT OR IGNORE INTO kine_meta (name, value) VALUES ('compact_revision', 0)");
    db.exec("COMMIT");
  } catch (error) {
    db.exec("ROLLBACK");
    throw error;
  }
  // kine truncates the WAL at startup; a crashed predecessor may have left a large one.
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
}
