/**
 * Storage-level create rate: the SQLite backend against a raw `node:sqlite` insert, in one run.
 * Run from the package directory: `npx node src/storage/bench-create-rate.ts [creates]`.
 * It runs from source on Node's type stripping (see run-from-source.ts).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";

await import(new URL("../run-from-source.ts", import.meta.url).href);

const { createSqliteStorage } = await import("./sqlite.js");

const creates = Number(process.argv[2] ?? 20_000);
const rounds = 3;
const dir = mkdtempSync(join(tmpdir(), "kubekit-storage-bench-"));
const value = JSON.stringify({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "x", namespace: "bench" },
  data: { a: "b".repeat(200) },
});
const keyOf = (i: number) => `/registry/configmaps/bench/cm-${i}`;

/** Autocommit inserts through one prepared statement into a table with one index, same pragmas as the backend. */
function rawInsertRate(path: string): number {
  const db = new DatabaseSync(path);
  db.exec("PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL;");
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, value TEXT); CREATE INDEX t_name ON t (name);");
  const insert = db.prepare("INSERT INTO t (name, value) VALUES (?, ?)");
  const start = performance.now();
  for (let i = 0; i < creates; i++) insert.run(keyOf(i), value);
  const seconds = (performance.now() - start) / 1000;
  db.close();
  return creates / seconds;
}

async function storageCreateRate(path: string, writers: number): Promise<number> {
  const storage = await createSqliteStorage({ path, compactInterval: 0 });
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (next < creates) await storage.create(keyOf(next++), value);
    }),
  );
  const seconds = (performance.now() - start) / 1000;
  await storage.close();
  return creates / seconds;
}

try {
  let raw = 0;
  let single = 0;
  let concurrent = 0;
  for (let round = 0; round < rounds; round++) {
    raw = Math.max(raw, rawInsertRate(join(dir, `raw-${round}.db`)));
    single = Math.max(single, await storageCreateRate(join(dir, `single-${round}.db`), 1));
    concurrent = Math.max(concurrent, await storageCreateRate(join(dir, `concurrent-${round}.db`), 64));
  }
  const row = (name: string, rate: number) => `${name.padEnd(52)} ${rate.toFixed(0).padStart(8)}/s  ratio ${(rate / raw).toFixed(2)}`;
  console.log(`${creates} creates per run, ~300-byte values, best of ${rounds}`);
  console.log(row("raw node:sqlite insert (autocommit, WAL, NORMAL)", raw));
  console.log(row("createSqliteStorage, 1 writer awaiting each create", single));
  console.log(row("createSqliteStorage, 64 concurrent writers", concurrent));
} finally {
  rmSync(dir, { recursive: true, force: true });
}
