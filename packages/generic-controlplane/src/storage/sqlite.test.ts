import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, describe, expect, it, vi } from "vitest";
import { eventually, expectCode, runStorageConformance } from "./conformance.js";
import { fillDiskUnder } from "./disk-full.fixture.js";
import { LIST_SQL, createSqliteStorage } from "./sqlite.js";
import { prepareDatabase } from "./sqlite-schema.js";
import type { StorageEvent } from "./types.js";

const dir = mkdtempSync(join(tmpdir(), "kubekit-sqlite-"));
let counter = 0;
const freshPath = () => join(dir, `db-${++counter}.db`);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

runStorageConformance("sqlite", () => createSqliteStorage({ path: freshPath(), compactInterval: 0 }));

function rowCount(path: string): number {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    return Number((db.prepare("SELECT COUNT(*) AS n FROM kine").get() as { n: number }).n);
  } finally {
    db.close();
  }
}

describe("createSqliteStorage", () => {
  it("keeps data, history and the revision sequence across a restart", async () => {
    const path = freshPath();
    const first = await createSqliteStorage({ path, compactInterval: 0 });
    await first.create("/registry/namespaces/default", "ns");
    const a = await first.create("/registry/configmaps/ns/a", "a1");
    const a2 = await first.update("/registry/configmaps/ns/a", "a2", a.modRevision);
    await first.create("/registry/configmaps/ns/b", "b");
    const deletedB = await first.delete("/registry/configmaps/ns/b");
    await first.compact(a.modRevision);
    await first.close();

    const second = await createSqliteStorage({ path, compactInterval: 0 });
    try {
      expect(await second.currentRevision()).toBe(deletedB.modRevision);
      expect(await second.compactedRevision()).toBe(a.modRevision);
      expect(await second.get("/registry/configmaps/ns/a")).toEqual(a2);
      expect(await second.get("/registry/configmaps/ns/a", { revision: a.modRevision })).toEqual(a);
      await expectCode(second.get("/registry/configmaps/ns/a", { revision: a.modRevision - 1 }), "Expired");
      expect(await second.get("/registry/configmaps/ns/b")).toBeUndefined();
      const events: StorageEvent[] = [];
      await second.watch("/registry/configmaps", { afterRevision: a.modRevision, onEvents: (batch) => events.push(...batch) });
      await eventually(() => events.length === 3);
      expect(events.map((e) => `${e.type}@${e.kv.modRevision}`)).toEqual([
        `put@${a2.modRevision}`,
        `put@${a2.modRevision + 1}`,
        `delete@${deletedB.modRevision}`,
      ]);
      expect(events[0]!.prev).toEqual(a);
      const c = await second.create("/registry/configmaps/ns/c", "c");
      expect(c.modRevision).toBe(deletedB.modRevision + 1);
    } finally {
      await second.close();
    }
  });

  it("reads a list page from the name index and stops after it, whatever the size of the range", () => {
    const db = new DatabaseSync(":memory:");
    try {
      prepareDatabase(db, { synchronous: "normal", busyTimeoutMs: 0 });
      const insert = db.prepare(
        "INSERT INTO kine (name, created, deleted, create_revision, prev_revision, value, old_value) VALUES (?, 1, 0, 0, 0, ?, NULL)",
      );
      db.exec("BEGIN");
      for (let i = 0; i < 20_000; i++) insert.run(`/registry/configmaps/ns/cm-${String(i).padStart(5, "0")}`, "v".repeat(100));
      db.exec("COMMIT");
      const args = ["/registry/configmaps/ns/", "/registry/configmaps/ns0", "", 1e9, 501] as const;
      const plan = (db.prepare(`EXPLAIN QUERY PLAN ${LIST_SQL}`).all(...args) as Array<{ detail: string }>).map((row) => row.detail);
      expect(plan.some((detail) => detail.includes("USING COVERING INDEX kine_name_prev_revision_uindex"))).toBe(true);
      // No temporary B-tree: the rows come out in index order, so LIMIT ends the scan.
      expect(plan.filter((detail) => detail.includes("TEMP B-TREE"))).toEqual([]);
      expect(db.prepare(LIST_SQL).all(...args)).toHaveLength(501);
    } finally {
      db.close();
    }
  });

  it("continues the revision sequence even when compaction removed the newest row", async () => {
    const path = freshPath();
    const first = await createSqliteStorage({ path, compactInterval: 0 });
    await first.create("/k/x", "x");
    const deleted = await first.delete("/k/x");
    await first.compact(deleted.modRevision);
    await first.close();
    expect(rowCount(path)).toBe(0);
    const second = await createSqliteStorage({ path, compactInterval: 0 });
    try {
      expect(await second.currentRevision()).toBe(deleted.modRevision);
      expect((await second.create("/k/x", "again")).modRevision).toBe(deleted.modRevision + 1);
    } finally {
      await second.close();
    }
  });

  it("says which Node.js it needs when node:sqlite is missing, and leaves no file behind", async () => {
    const builtin = process.getBuiltinModule.bind(process);
    const spy = vi
      .spyOn(process, "getBuiltinModule")
      .mockImplementation((id: string) => (id === "node:sqlite" ? undefined : builtin(id as "node:fs")));
    const path = freshPath();
    try {
      const failure = await createSqliteStorage({ path, compactInterval: 0 }).then(
        () => undefined,
        (error: unknown) => error as { code?: string; message?: string },
      );
      expect(failure?.code).toBe("ServiceUnavailable");
      expect(failure?.message).toBe(
        `cannot open sqlite storage at ${path}: node:sqlite is not available in Node.js ${process.version}; SQLite storage needs Node.js 22.19 or newer (memory and etcd storage do not)`,
      );
      expect(existsSync(path)).toBe(false);
    } finally {
      spy.mockRestore();
    }
  });

  it("creates the database directory when it is missing", async () => {
    const path = join(dir, "nested", "data", "state.db");
    const storage = await createSqliteStorage({ path, compactInterval: 0 });
    try {
      await storage.create("/k/x", "x");
      expect(existsSync(path)).toBe(true);
    } finally {
      await storage.close();
    }
  });

  it("refuses a database another connection holds", async () => {
    const path = freshPath();
    const owner = await createSqliteStorage({ path, compactInterval: 0 });
    try {
      await expectCode(createSqliteStorage({ path, compactInterval: 0, busyTimeout: 50 }), "ServiceUnavailable");
      expect((await owner.create("/k/x", "still writable")).value).toBe("still writable");
    } finally {
      await owner.close();
    }
  });

  it("compacts in batches, deleting superseded rows and tombstones, and truncates the WAL", async () => {
    const path = freshPath();
    const storage = await createSqliteStorage({ path, compactInterval: 0, compactBatchSize: 64 });
    let kv = await storage.create("/c/hot", "0");
    for (let i = 1; i < 500; i++) kv = await storage.update("/c/hot", String(i), kv.modRevision);
    const cold = await storage.create("/c/cold", "cold");
    for (let i = 0; i < 100; i++) {
      await storage.create(`/c/tmp-${i}`, "t");
      await storage.delete(`/c/tmp-${i}`);
    }
    const target = await storage.currentRevision();
    await storage.compact(target);
    expect(await storage.compactedRevision()).toBe(target);
    expect(statSync(`${path}-wal`).size).toBe(0);
    expect((await storage.list("/c")).items).toEqual([cold, kv]);
    await storage.close();
    expect(rowCount(path)).toBe(2);
  });

  it("keeps accepting writes and reads while a batched compaction runs, and stops it on close", async () => {
    const storage = await createSqliteStorage({ path: freshPath(), compactInterval: 0, compactBatchSize: 10 });
    let kv = await storage.create("/c/x", "0");
    for (let i = 1; i < 300; i++) kv = await storage.update("/c/x", String(i), kv.modRevision);
    const target = await storage.currentRevision();
    const compaction = storage.compact(target);
    const during = await Promise.all(Array.from({ length: 20 }, (_, i) => storage.create(`/c/new-${i}`, "n")));
    expect((await storage.get("/c/x"))?.value).toBe("299");
    await compaction;
    expect(await storage.compactedRevision()).toBe(target);
    expect(await storage.count("/c")).toBe(21);
    expect(during.map((created) => created.modRevision)).toEqual(Array.from({ length: 20 }, (_, i) => target + 1 + i));

    for (let i = 0; i < 300; i++) kv = await storage.update("/c/x", `again ${i}`, kv.modRevision);
    const interrupted = storage.compact(await storage.currentRevision());
    await storage.close();
    await expectCode(interrupted, "ServiceUnavailable");
  });

  it("compacts itself on an interval, to what was current an interval earlier", async () => {
    const path = freshPath();
    const storage = await createSqliteStorage({ path, compactInterval: 20 });
    try {
      let kv = await storage.create("/c/x", "0");
      const writes = 50;
      for (let i = 1; i < writes; i++) kv = await storage.update("/c/x", String(i), kv.modRevision);
      // Far fewer revisions than minRetainRevisions: two rounds after the writes, time alone expires them.
      const deadline = Date.now() + 5000;
      while ((await storage.compactedRevision()) !== writes && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(await storage.compactedRevision()).toBe(writes);
      await expectCode(storage.get("/c/x", { revision: writes - 1 }), "Expired");
      expect((await storage.get("/c/x", { revision: writes }))?.value).toBe(String(writes - 1));
    } finally {
      await storage.close();
    }
  });

  it("compacts as soon as it opens, not one interval later", async () => {
    const path = freshPath();
    const writer = await createSqliteStorage({ path, compactInterval: 0 });
    let kv = await writer.create("/c/x", "0");
    for (let i = 1; i < 1500; i++) kv = await writer.update("/c/x", String(i), kv.modRevision);
    await writer.close();
    // An hour-long interval: only a round at startup can compact within the test.
    const reopened = await createSqliteStorage({ path, compactInterval: 3_600_000 });
    try {
      const deadline = Date.now() + 3000;
      while ((await reopened.compactedRevision()) !== 500 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(await reopened.compactedRevision()).toBe(500);
      await expectCode(reopened.get("/c/x", { revision: 499 }), "Expired");
    } finally {
      await reopened.close();
    }
  });

  it("reports itself unhealthy once writes fail (disk full)", async () => {
    const path = freshPath();
    const storage = await createSqliteStorage({ path, compactInterval: 0 });
    try {
      await storage.create("/h/a", "1");
      await storage.checkHealth!();
      expect(fillDiskUnder(path)).toBeGreaterThan(0);
      await expect(storage.create("/h/b", "2")).rejects.toThrow();
      await expect(storage.checkHealth!()).rejects.toThrow(
        /storage writes are failing: (database or disk is full|disk I\/O error|database disk image is malformed)/,
      );
    } finally {
      await storage.close();
    }
  });

  it("loses no acknowledged write when the writing process is killed with SIGKILL", async () => {
    const path = freshPath();
    const fixture = join(import.meta.dirname, "sqlite-crash-writer.fixture.ts");
    // stdin stays open as a lifeline: the writer exits by itself if this process goes away.
    const child = spawn(process.execPath, [fixture, path], { stdio: ["pipe", "pipe", "pipe"] });
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on("exit", (_code, signal) => resolve(signal)));
    const acknowledged = new Map<string, number>();
    let stderr = "";
    let buffered = "";
    let firstAck: number | undefined;
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdout.on("data", (chunk: Buffer) => {
      buffered += chunk.toString();
      const lines = buffered.split("\n");
      buffered = lines.pop() ?? "";
      for (const line of lines) {
        const [word, key, revision] = line.split(" ");
        if (word === "ack" && key !== undefined) acknowledged.set(key, Number(revision));
      }
      firstAck ??= acknowledged.size > 0 ? Date.now() : undefined;
    });
    try {
      // Kill mid-burst: after 2,000 acknowledged writes, or 1.5 s into the burst on a busy machine.
      await eventually(() => {
        if (child.exitCode !== null) throw new Error(`writer exited early: ${stderr}`);
        return acknowledged.size >= 2000 || (firstAck !== undefined && Date.now() - firstAck > 1500 && acknowledged.size >= 20);
      }, 45_000);
    } finally {
      child.kill("SIGKILL");
    }
    expect(await exited).toBe("SIGKILL");
    expect(existsSync(`${path}-wal`)).toBe(true);

    const reopened = await createSqliteStorage({ path, compactInterval: 0 });
    try {
      const stored = new Map((await reopened.list("/registry/configmaps/burst")).items.map((kv) => [kv.key, kv.modRevision]));
      const missing = [...acknowledged].filter(([key, revision]) => stored.get(key) !== revision);
      expect(missing).toEqual([]);
      expect(stored.size).toBeGreaterThanOrEqual(acknowledged.size);
      expect(await reopened.currentRevision()).toBeGreaterThanOrEqual(Math.max(...acknowledged.values()));
      const after = await reopened.create("/registry/configmaps/burst/after", "x");
      expect(after.modRevision).toBe(await reopened.currentRevision());
    } finally {
      await reopened.close();
    }
  }, 60_000);
});
