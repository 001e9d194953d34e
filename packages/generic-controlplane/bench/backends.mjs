// The three storage backends the bench compares, each with the raw write path it is measured against:
// the backend's own floor (memory storage calls, node:sqlite inserts, etcd3 puts) at the same concurrency.
import { spawn } from "node:child_process";
import { createServer as createNetServer } from "node:net";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { Etcd3 } from "etcd3";
import { createMemoryStorage, createSqliteStorage } from "../dist/storage/index.js";
import { createEtcdStorage } from "../dist/storage/etcd.js";

const nowMs = () => Number(process.hrtime.bigint()) / 1e6;
const rawValue = JSON.stringify({
  apiVersion: "v1",
  kind: "ConfigMap",
  metadata: { name: "x", namespace: "bench" },
  data: { payload: "x".repeat(64) },
});

/** Runs `write(i)` `count` times with `concurrency` in flight; writes per second. */
async function rateOf(count, concurrency, write) {
  let next = 0;
  const start = nowMs();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await write(next++);
    }),
  );
  return count / ((nowMs() - start) / 1000);
}

async function freePort() {
  const server = createNetServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A one-member etcd (Debian's etcd-server) on loopback ports, its data under `dir`. */
async function startEtcdMember(dir) {
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const endpoint = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const child = spawn(
    "etcd",
    [
      "--name",
      "bench",
      "--data-dir",
      join(dir, "etcd"),
      "--listen-client-urls",
      endpoint,
      "--advertise-client-urls",
      endpoint,
      "--listen-peer-urls",
      peer,
      "--initial-advertise-peer-urls",
      peer,
      "--initial-cluster",
      `bench=${peer}`,
      "--log-level",
      "error",
      "--quota-backend-bytes",
      String(8 * 1024 ** 3),
    ],
    { stdio: "ignore" },
  );
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const deadline = nowMs() + 20_000;
  for (;;) {
    const healthy = await fetch(`${endpoint}/health`)
      .then((r) => r.json())
      .then(
        (b) => b.health === "true",
        () => false,
      );
    if (healthy) break;
    if (child.exitCode !== null || nowMs() > deadline) {
      child.kill("SIGKILL");
      throw new Error("etcd did not become healthy within 20 s (is etcd-server installed?)");
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    endpoint,
    stop: async () => {
      child.kill("SIGKILL");
      await exited;
    },
  };
}

/**
 * A backend: `newStorage(name)` gives a fresh, empty store (its own file or key prefix), `rawWriteRate`
 * measures the floor the HTTP create path is compared with, `close` frees what the backend started.
 */
export async function openBackend(kind, dir) {
  if (kind === "memory") {
    return {
      kind,
      baselineName: "memory storage.create calls",
      newStorage: () => createMemoryStorage(),
      async rawWriteRate(count, concurrency) {
        const storage = createMemoryStorage();
        const rate = await rateOf(count, concurrency, (i) => storage.create(`/registry/configmaps/bench/raw-${i}`, rawValue));
        await storage.close();
        return rate;
      },
      close: async () => {},
    };
  }
  if (kind === "sqlite") {
    let files = 0;
    return {
      kind,
      baselineName: "raw node:sqlite autocommit inserts, same table and pragmas",
      newStorage: (name) => createSqliteStorage({ path: join(dir, `${name}-${files++}.db`) }),
      // node:sqlite is synchronous: concurrency cannot change the raw rate, so one loop measures it.
      rawWriteRate: (count) => rawSqliteInsertRate(join(dir, `raw-${files++}.db`), count),
      close: async () => {},
    };
  }
  if (kind === "etcd") {
    const member = await startEtcdMember(dir);
    const client = new Etcd3({ hosts: [member.endpoint] });
    let prefixes = 0;
    return {
      kind,
      baselineName: "raw etcd3 puts of the same value",
      newStorage: (name) => createEtcdStorage({ endpoints: [member.endpoint], prefix: `/${name}-${prefixes++}` }),
      rawWriteRate: (count, concurrency) => {
        const run = prefixes++;
        return rateOf(count, concurrency, (i) => client.put(`/raw-${run}/configmaps/bench/raw-${i}`).value(rawValue));
      },
      // What a create through the server needs of etcd at the least: a create-if-absent transaction
      // per object, with one watch (with previous values) on the prefix, as the watch cache keeps.
      async rawCreateTransactionRate(count, concurrency) {
        const run = prefixes++;
        const prefix = `/raw-${run}/`;
        const watcher = await client.watch().prefix(prefix).withPreviousKV().create();
        try {
          return await rateOf(count, concurrency, (i) => {
            const key = Buffer.from(`${prefix}configmaps/bench/raw-${i}`);
            return client.kv.txn({
              compare: [{ key, target: "Create", result: "Equal", create_revision: 0 }],
              success: [{ request_put: { key, value: Buffer.from(rawValue) } }],
            });
          });
        } finally {
          await watcher.cancel();
        }
      },
      close: async () => {
        client.close();
        await member.stop();
      },
    };
  }
  throw new Error(`unknown backend ${kind}`);
}

/** The same kine table and pragmas as the sqlite backend, one autocommit INSERT per row. */
function rawSqliteInsertRate(path, count) {
  const db = new DatabaseSync(path);
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("PRAGMA locking_mode = EXCLUSIVE");
  db.exec(`CREATE TABLE kine (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, created INTEGER NOT NULL, deleted INTEGER NOT NULL,
    create_revision INTEGER NOT NULL, prev_revision INTEGER NOT NULL, lease INTEGER NOT NULL DEFAULT 0, value TEXT, old_value TEXT);
    CREATE INDEX kine_name_id_index ON kine (name, id);
    CREATE UNIQUE INDEX kine_name_prev_revision_uindex ON kine (name, prev_revision);`);
  const insert = db.prepare(
    "INSERT INTO kine (name, created, deleted, create_revision, prev_revision, value, old_value) VALUES (?, 1, 0, 0, 0, ?, NULL)",
  );
  const start = nowMs();
  for (let i = 0; i < count; i++) insert.run(`/registry/configmaps/bench/raw-${i}`, rawValue);
  const seconds = (nowMs() - start) / 1000;
  db.close();
  return count / seconds;
}
