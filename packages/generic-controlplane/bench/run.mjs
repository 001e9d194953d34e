// `npm run bench -w @kubekit/generic-controlplane`: one run prints every figure of the issue,
// each next to a baseline measured in the same run. Server and storage live in this thread; the
// load generator runs in a worker thread. Only 127.0.0.1; every loop is bounded; temp files go.
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { Worker } from "node:worker_threads";
import { createControlPlane } from "../dist/index.js";
import { createMemoryStorage, createSqliteStorage } from "../dist/storage/index.js";
import { createEtcdStorage } from "../dist/storage/etcd.js";
import { spawn } from "node:child_process";
import { createServer as createNetServer } from "node:net";
import { Etcd3 } from "etcd3";

const CREATES = 3_000;
const CREATE_CONCURRENCY = 16;
const RAW_INSERTS = 20_000;
const GET_RATE = 500;
const GET_SECONDS = 5;
const LIST_SIZE = 10_000;
const SCALE_SIZES = [10_000, 50_000];
const FIRST_PAGE_REPEATS = 40;
const FULL_LIST_REPEATS = 3;
const WATCHERS = 1_000;
const WATCH_EVENTS = 100;
const WATCH_EVENT_RATE = 100;
const STARTS = 10;
const GC_DEPENDENTS = 500;

const nowMs = () => Number(process.hrtime.bigint()) / 1e6;
const dir = mkdtempSync(join(tmpdir(), "kubekit-gcp-bench-"));
const worker = new Worker(new URL("./load-worker.mjs", import.meta.url));
let nextId = 0;
const pending = new Map();
worker.on("message", ({ id, result, error }) => {
  const entry = pending.get(id);
  pending.delete(id);
  if (error) entry.reject(new Error(error));
  else entry.resolve(result);
});
const load = (task, args) =>
  new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    worker.postMessage({ id, task, args });
  });

const fmt = (n, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : String(n));
const line = (text) => console.log(text);

/** The same kine table and pragmas as the sqlite backend, one autocommit INSERT per row. */
function rawSqliteInsertRate() {
  const db = new DatabaseSync(join(dir, "raw.db"));
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("PRAGMA synchronous = NORMAL");
  db.exec("PRAGMA locking_mode = EXCLUSIVE");
  db.exec(`CREATE TABLE kine (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL, created INTEGER NOT NULL, deleted INTEGER NOT NULL,
    create_revision INTEGER NOT NULL, prev_revision INTEGER NOT NULL, lease INTEGER NOT NULL DEFAULT 0, value TEXT, old_value TEXT);
    CREATE INDEX kine_name_id_index ON kine (name, id);
    CREATE UNIQUE INDEX kine_name_prev_revision_uindex ON kine (name, prev_revision);`);
  const insert = db.prepare("INSERT INTO kine (name, created, deleted, create_revision, prev_revision, value, old_value) VALUES (?, 1, 0, 0, 0, ?, NULL)");
  const value = JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x", namespace: "bench" }, data: { payload: "x".repeat(64) } });
  const start = nowMs();
  for (let i = 0; i < RAW_INSERTS; i++) insert.run(`/registry/configmaps/bench/raw-${i}`, value);
  const seconds = (nowMs() - start) / 1000;
  db.close();
  return RAW_INSERTS / seconds;
}

async function createNamespace(url, name) {
  const res = await fetch(`${url}/api/v1/namespaces`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ metadata: { name } }),
  });
  if (res.status !== 201) throw new Error(`namespace ${name}: ${res.status} ${await res.text()}`);
}

/** A bare node:http server answering every request with `body`: the floor for serving those bytes over HTTP. */
async function bareServer(body) {
  const server = createServer((req, res) => {
    req.resume();
    res.writeHead(200, { "content-type": "application/json", "content-length": body.length });
    res.end(body);
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  return { url: `http://127.0.0.1:${port}`, close: () => new Promise((resolve) => server.close(resolve)) };
}

/**
 * Fills `namespace` with `count` ConfigMaps: one through the API, the rest written straight to
 * storage in its stored form (renamed), a thousand per group commit, so the bench spends its time
 * on reads rather than on 50,000 HTTP creates.
 */
async function fillDirect(url, storage, namespace, count) {
  await createNamespace(url, namespace);
  const res = await fetch(`${url}/api/v1/namespaces/${namespace}/configmaps`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ metadata: { name: "cm-0", labels: { app: "bench" } }, data: { payload: "x".repeat(1024) } }),
  });
  if (res.status !== 201) throw new Error(`template ${namespace}: ${res.status} ${await res.text()}`);
  const value = JSON.parse((await storage.get(`/registry/configmaps/${namespace}/cm-0`)).value);
  for (let start = 1; start < count; start += 1000) {
    const writes = [];
    for (let i = start; i < Math.min(count, start + 1000); i++) {
      value.metadata.name = `cm-${i}`;
      value.metadata.uid = `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
      writes.push(storage.create(`/registry/configmaps/${namespace}/cm-${i}`, JSON.stringify(value)));
    }
    await Promise.all(writes);
  }
}

/** p50 of `path` on the server and on a bare node:http server sending the same bytes. */
async function listAgainstBare(url, path, repeats) {
  await load("list", { url, path, repeats: 1 });
  const served = await load("list", { url, path, repeats });
  const body = Buffer.from(await (await fetch(url + path)).arrayBuffer());
  const bare = await bareServer(body);
  await load("list", { url: bare.url, path: "/", repeats: 1 });
  const bareRun = await load("list", { url: bare.url, path: "/", repeats });
  await bare.close();
  return { served, bare: bareRun, bytes: body.length };
}

async function bareStartToReady() {
  const times = [];
  for (let i = 0; i < STARTS; i++) {
    const start = nowMs();
    const bare = await bareServer(Buffer.from("ok"));
    await (await fetch(`${bare.url}/readyz`)).text();
    times.push(nowMs() - start);
    await bare.close();
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

async function startToReady(kind) {
  const times = [];
  for (let i = 0; i < STARTS; i++) {
    const start = nowMs();
    const storage = kind === "sqlite" ? await createSqliteStorage({ path: join(dir, `start-${i}.db`) }) : createMemoryStorage();
    const plane = await createControlPlane({ storage, port: 0, host: "127.0.0.1" });
    const ready = await fetch(`${plane.url}/readyz`);
    await ready.text();
    times.push(nowMs() - start);
    if (ready.status !== 200) throw new Error(`/readyz answered ${ready.status}`);
    await plane.close();
  }
  times.sort((a, b) => a - b);
  return { median: times[Math.floor(times.length / 2)], min: times[0], max: times.at(-1) };
}

let plane;
try {
  line(`generic-controlplane bench (node ${process.version}, ${new Date().toISOString()})`);

  const rawRate = rawSqliteInsertRate();
  const storage = await createSqliteStorage({ path: join(dir, "state.db") });
  plane = await createControlPlane({ storage, port: 0, host: "127.0.0.1" });
  const url = plane.url;
  await createNamespace(url, "bench");
  const created = await load("creates", { url, namespace: "bench", count: CREATES, concurrency: CREATE_CONCURRENCY, prefix: "create" });
  line(
    `creates through HTTP, sqlite backend (${CREATES}, ${CREATE_CONCURRENCY} in flight): ${fmt(created.perSecond, 0)}/s` +
      ` | raw node:sqlite autocommit inserts, same table and pragmas: ${fmt(rawRate, 0)}/s | ratio ${fmt(created.perSecond / rawRate, 3)}` +
      (created.errors ? ` | ${created.errors} errors` : ""),
  );

  const getPath = "/api/v1/namespaces/bench/configmaps/create-7";
  // One warm-up second at the same rate (JIT, connection pool), then the measured run; the same for the baseline.
  await load("getsAtRate", { url, path: getPath, rate: GET_RATE, seconds: 1 });
  const gets = await load("getsAtRate", { url, path: getPath, rate: GET_RATE, seconds: GET_SECONDS });
  const oneObject = Buffer.from(await (await fetch(url + getPath)).arrayBuffer());
  const bareGet = await bareServer(oneObject);
  await load("getsAtRate", { url: bareGet.url, path: getPath, rate: GET_RATE, seconds: 1 });
  const bareGets = await load("getsAtRate", { url: bareGet.url, path: getPath, rate: GET_RATE, seconds: GET_SECONDS });
  await bareGet.close();
  line(
    `GET configmap at a fixed ${GET_RATE}/s for ${GET_SECONDS} s (achieved ${fmt(gets.achievedRate, 0)}/s): p50 ${fmt(gets.p50, 2)} ms, p99 ${fmt(gets.p99, 2)} ms, max ${fmt(gets.max, 1)} ms` +
      ` (${gets.count} ok, ${gets.errors} errors) | bare node:http, same bytes: p50 ${fmt(bareGets.p50, 2)} ms, p99 ${fmt(bareGets.p99, 2)} ms | p99 ratio ${fmt(gets.p99 / bareGets.p99, 1)}`,
  );

  const fill = await load("creates", { url, namespace: "bench", count: LIST_SIZE - CREATES, concurrency: CREATE_CONCURRENCY, prefix: "fill" });
  if (fill.errors) throw new Error(`${fill.errors} creates failed while filling the list namespace`);
  const listed = await load("list", { url, path: "/api/v1/namespaces/bench/configmaps", repeats: 5 });
  if (listed.items !== LIST_SIZE) throw new Error(`LIST returned ${listed.items} items, expected ${LIST_SIZE}`);
  const chunked = await load("list", { url, path: "/api/v1/namespaces/bench/configmaps?limit=500", repeats: 5 });
  const listBody = Buffer.from(await (await fetch(`${url}/api/v1/namespaces/bench/configmaps`)).arrayBuffer());
  const bareList = await bareServer(listBody);
  const bareListed = await load("list", { url: bareList.url, path: "/", repeats: 5 });
  await bareList.close();
  line(
    `LIST ${LIST_SIZE} configmaps (sqlite, JSON ${fmt(listed.bytes / 1e6, 1)} MB, 5 runs): p50 ${fmt(listed.p50, 0)} ms, max ${fmt(listed.max, 0)} ms` +
      ` | first page of limit=500: p50 ${fmt(chunked.p50, 1)} ms | bare node:http, same bytes: p50 ${fmt(bareListed.p50, 0)} ms | ratio ${fmt(listed.p50 / bareListed.p50, 1)}`,
  );

  // First-page cost must not grow with the collection; a full LIST is streamed page by page.
  for (const size of SCALE_SIZES) await fillDirect(url, storage, `scale-${size}`, size);
  const firstPages = [];
  for (const size of SCALE_SIZES) {
    firstPages.push({ size, ...(await listAgainstBare(url, `/api/v1/namespaces/scale-${size}/configmaps?limit=500`, FIRST_PAGE_REPEATS)) });
  }
  const [small, large] = [firstPages[0], firstPages.at(-1)];
  line(
    `LIST first page (limit=500, sqlite, ${FIRST_PAGE_REPEATS} runs): ${small.size} objects p50 ${fmt(small.served.p50, 1)} ms | ${large.size} objects p50 ${fmt(large.served.p50, 1)} ms` +
      ` | ratio ${large.size}/${small.size} ${fmt(large.served.p50 / small.served.p50, 2)} | bare node:http, same bytes: p50 ${fmt(large.bare.p50, 1)} ms | ratio ${fmt(large.served.p50 / large.bare.p50, 1)}`,
  );
  const full = await listAgainstBare(url, `/api/v1/namespaces/scale-${large.size}/configmaps`, FULL_LIST_REPEATS);
  if (full.served.items !== large.size) throw new Error(`full LIST returned ${full.served.items} items, expected ${large.size}`);
  const mbPerSecond = (result) => full.bytes / 1e6 / (result.p50 / 1000);
  line(
    `full LIST ${large.size} configmaps (sqlite, streamed, JSON ${fmt(full.bytes / 1e6, 1)} MB, ${FULL_LIST_REPEATS} runs): p50 ${fmt(full.served.p50, 0)} ms, ${fmt(mbPerSecond(full.served), 0)} MB/s` +
      ` | bare node:http, same bytes: p50 ${fmt(full.bare.p50, 0)} ms, ${fmt(mbPerSecond(full.bare), 0)} MB/s | ratio ${fmt(full.served.p50 / full.bare.p50, 1)}`,
  );

  await createNamespace(url, "fanout");
  const fanout = await load("watchFanout", { url, namespace: "fanout", watchers: WATCHERS, events: WATCH_EVENTS, rate: WATCH_EVENT_RATE });
  line(
    `watch delivery, ${WATCHERS} watchers x ${WATCH_EVENTS} creates at ${WATCH_EVENT_RATE}/s: p50 ${fmt(fanout.p50, 1)} ms, p99 ${fmt(fanout.p99, 1)} ms, max ${fmt(fanout.max, 1)} ms` +
      ` (${fanout.delivered}/${fanout.expected} delivered${fanout.timedOut ? ", TIMED OUT" : ""})`,
  );
  await plane.close();
  plane = undefined;

  const memoryStart = await startToReady("memory");
  const sqliteStart = await startToReady("sqlite");
  const bareStart = await bareStartToReady();
  line(
    `in-process start-to-ready (createControlPlane → /readyz 200, ${STARTS} runs): memory median ${fmt(memoryStart.median, 1)} ms (min ${fmt(memoryStart.min, 1)})` +
      ` | sqlite (new file) median ${fmt(sqliteStart.median, 1)} ms (min ${fmt(sqliteStart.min, 1)}) | bare node:http listen → first answer: ${fmt(bareStart, 1)} ms | memory ratio ${fmt(memoryStart.median / bareStart, 1)}`,
  );

  await etcdFigures();

  const cascade = await cascadeDeletion();
  line(
    `garbage collection, background delete of an owner with ${GC_DEPENDENTS} dependent secrets (memory, controllers in-process): all gone in ${fmt(cascade.gcMs, 0)} ms` +
      ` | deletecollection of ${GC_DEPENDENTS} secrets, same server: ${fmt(cascade.directMs, 0)} ms | ratio ${fmt(cascade.gcMs / cascade.directMs, 1)}`,
  );
} finally {
  if (plane) await plane.close();
  await worker.terminate();
  rmSync(dir, { recursive: true, force: true });
}

/** Creates `count` secrets in `namespace`, owned by `owner` when given. */
async function createSecrets(url, namespace, prefix, count, owner) {
  for (let i = 0; i < count; i++) {
    const metadata = { name: `${prefix}-${i}`, ...(owner ? { ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: owner.metadata.name, uid: owner.metadata.uid }] } : {}) };
    const res = await fetch(`${url}/api/v1/namespaces/${namespace}/secrets`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ metadata }) });
    if (res.status !== 201) throw new Error(`create secret answered ${res.status}`);
  }
}

async function secretCount(url, namespace) {
  const list = await (await fetch(`${url}/api/v1/namespaces/${namespace}/secrets`)).json();
  return list.items.length;
}

/** Time until the garbage collector has removed every dependent of a deleted owner, against deleting as many objects with one deletecollection. */
async function cascadeDeletion() {
  const gcPlane = await createControlPlane({ port: 0, host: "127.0.0.1", controllers: { controllers: ["garbagecollector"], leaderElection: false } });
  try {
    const url = gcPlane.url;
    await createNamespace(url, "direct");
    await createSecrets(url, "direct", "direct", GC_DEPENDENTS);
    const directStart = nowMs();
    const res = await fetch(`${url}/api/v1/namespaces/direct/secrets`, { method: "DELETE" });
    await res.text();
    const directMs = nowMs() - directStart;
    if ((await secretCount(url, "direct")) !== 0) throw new Error("deletecollection left secrets behind");

    await createNamespace(url, "cascade");
    const ownerRes = await fetch(`${url}/api/v1/namespaces/cascade/configmaps`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ metadata: { name: "owner" } }) });
    const owner = await ownerRes.json();
    await createSecrets(url, "cascade", "dep", GC_DEPENDENTS, owner);
    const gcStart = nowMs();
    await (await fetch(`${url}/api/v1/namespaces/cascade/configmaps/owner`, { method: "DELETE" })).text();
    const deadline = gcStart + 60_000;
    while ((await secretCount(url, "cascade")) > 0) {
      if (nowMs() > deadline) throw new Error("the garbage collector did not remove every dependent within 60 s");
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    return { gcMs: nowMs() - gcStart, directMs };
  } finally {
    await gcPlane.close();
  }
}

async function freePort() {
  const server = createNetServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A one-member etcd (Debian's etcd-server) on loopback ports, its data under the bench's temp dir. */
async function startEtcdMember() {
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const endpoint = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const child = spawn("etcd", ["--name", "bench", "--data-dir", join(dir, "etcd"), "--listen-client-urls", endpoint, "--advertise-client-urls", endpoint,
    "--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer, "--initial-cluster", `bench=${peer}`, "--log-level", "error"], { stdio: "ignore" });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const deadline = nowMs() + 20_000;
  for (;;) {
    const healthy = await fetch(`${endpoint}/health`).then((r) => r.json()).then((b) => b.health === "true", () => false);
    if (healthy) break;
    if (child.exitCode !== null || nowMs() > deadline) throw new Error("etcd did not become healthy within 20 s (is etcd-server installed?)");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { endpoint, stop: async () => { child.kill("SIGKILL"); await exited; } };
}

/** Raw etcd3 puts of the same value, `concurrency` in flight: the floor of the etcd write path. */
async function rawEtcdPutRate(endpoint, count, concurrency) {
  const client = new Etcd3({ hosts: [endpoint] });
  const value = JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name: "x", namespace: "bench" }, data: { payload: "x".repeat(64) } });
  let next = 0;
  const start = nowMs();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) await client.put(`/raw/configmaps/bench/raw-${next++}`).value(value);
  }));
  const rate = count / ((nowMs() - start) / 1000);
  client.close();
  return rate;
}

/** Creates and LIST on the etcd backend, each against its baseline in the same run. */
async function etcdFigures() {
  const etcd = await startEtcdMember();
  let etcdPlane;
  try {
    const rawRate = await rawEtcdPutRate(etcd.endpoint, CREATES, CREATE_CONCURRENCY);
    etcdPlane = await createControlPlane({ storage: createEtcdStorage({ endpoints: [etcd.endpoint] }), port: 0, host: "127.0.0.1" });
    const url = etcdPlane.url;
    await createNamespace(url, "bench");
    const created = await load("creates", { url, namespace: "bench", count: CREATES, concurrency: CREATE_CONCURRENCY, prefix: "create" });
    line(
      `creates through HTTP, etcd backend (${CREATES}, ${CREATE_CONCURRENCY} in flight): ${fmt(created.perSecond, 0)}/s` +
        ` | raw etcd3 puts, same value and concurrency: ${fmt(rawRate, 0)}/s | ratio ${fmt(created.perSecond / rawRate, 3)}` +
        (created.errors ? ` | ${created.errors} errors` : ""),
    );
    const fill = await load("creates", { url, namespace: "bench", count: LIST_SIZE - CREATES, concurrency: CREATE_CONCURRENCY, prefix: "fill" });
    if (fill.errors) throw new Error(`${fill.errors} creates failed while filling the etcd list namespace`);
    const listed = await listAgainstBare(url, "/api/v1/namespaces/bench/configmaps", 5);
    if (listed.served.items !== LIST_SIZE) throw new Error(`etcd LIST returned ${listed.served.items} items, expected ${LIST_SIZE}`);
    line(
      `LIST ${LIST_SIZE} configmaps (etcd, JSON ${fmt(listed.bytes / 1e6, 1)} MB, 5 runs): p50 ${fmt(listed.served.p50, 0)} ms` +
        ` | bare node:http, same bytes: p50 ${fmt(listed.bare.p50, 0)} ms | ratio ${fmt(listed.served.p50 / listed.bare.p50, 1)}`,
    );
  } finally {
    if (etcdPlane) await etcdPlane.close();
    await etcd.stop();
  }
}
