// `npm run bench -w @kubekit/generic-controlplane [-- --backends memory,sqlite,etcd --json file]`:
// one run measures every figure of the performance matrix on each backend, each next to a baseline
// measured in the same run, prints them with the goals they are held to, and writes them as JSON.
// The server and storage live in this process; the load generator is a child process. Only
// 127.0.0.1; every loop is bounded; temp files and processes go at the end.
import { fork } from "node:child_process";
import { Agent as HttpAgent, request as httpRequest } from "node:http";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { createControlPlane } from "../dist/index.js";
import { ControllerManager, KubeClient } from "../dist/controllers/index.js";
import { openBackend } from "./backends.mjs";
import { bareCreateServer, bareDeleteRoundTripsMs, bareFanoutServer, bareServer, stringifyMs } from "./http-baselines.mjs";

const CREATE_COUNTS = { 1: 2_000, 32: 6_000 };
/** Creates through the server before any is timed, so the figures are of a warmed-up process, not of its first compilations. */
const WARM_UP_CREATES = 6_000;
/** Each create figure (and its baseline) is the median of this many runs. */
const CREATE_RUNS = 3;
const RAW_WRITES = { memory: 20_000, sqlite: 20_000, etcd: 3_000 };
const GET_RATE = 2_000;
const GET_SECONDS = 5;
const LIST_SIZE = 10_000;
const LIST_REPEATS = 15;
const SCALE_SIZES = [10_000, 50_000];
const FIRST_PAGE_REPEATS = 40;
const FULL_LIST_REPEATS = 3;
const WATCH_EVENTS = 100;
const WATCH_EVENT_RATE = 100;
const FANOUT_WATCHERS = 1_000;
const LARGE_FANOUT_WATCHERS = 10_000;
/** The 1,000-watcher figure is the median of this many runs, each next to a run of its floor. */
const FANOUT_RUNS = 3;
const STARTS = 10;
const GC_DEPENDENTS = 500;
/** The collector's workers (kube-controller-manager's `--concurrent-gc-syncs` default), so as many DELETEs in flight. */
const GC_WORKERS = 20;
/** The cascade and deletecollection figures are medians of this many runs, after a first one of each. */
const GC_RUNS = 3;

/**
 * The performance goals: each a ratio of a figure to its floor measured in the same run (absolute
 * figures move with the load on a shared machine, these ratios much less). `us` and `floor` name the
 * two figures, `ratio` their quotient; a goal whose figures this run did not measure says so.
 */
const GOALS = [
  {
    name: "SQLite creates at 32 clients vs a bare node:http server answering the same POSTs",
    ratio: "backends.sqlite.creates.32.bareHttpRatio",
    us: "backends.sqlite.creates.32.perSecond",
    floor: "backends.sqlite.creates.32.bareHttp",
    unit: "/s",
    atLeast: 0.8,
  },
  {
    name: "etcd creates at 32 clients vs etcd create transactions with a watch",
    ratio: "backends.etcd.creates.32.createTransactionRatio",
    us: "backends.etcd.creates.32.perSecond",
    floor: "backends.etcd.creates.32.rawCreateTransactions",
    unit: "/s",
    atLeast: 0.85,
  },
  {
    name: "GET p99 at 2,000/s vs a bare server sending the same bytes, SQLite",
    ratio: "backends.sqlite.get.p99Ratio",
    us: "backends.sqlite.get.p99",
    floor: "backends.sqlite.get.bareP99",
    unit: " ms",
    atMost: 2,
  },
  {
    name: "GET p99 at 2,000/s vs a bare server sending the same bytes, etcd",
    ratio: "backends.etcd.get.p99Ratio",
    us: "backends.etcd.get.p99",
    floor: "backends.etcd.get.bareP99",
    unit: " ms",
    atMost: 3,
  },
  {
    name: "LIST 10k vs a bare server sending the same bytes, SQLite",
    ratio: "backends.sqlite.list.bareRatio",
    us: "backends.sqlite.list.p50",
    floor: "backends.sqlite.list.bareP50",
    unit: " ms",
    atMost: 1.2,
  },
  {
    name: "watch fan-out p99 at 10,000 watchers vs a bare server fanning out the same creates, SQLite",
    ratio: "backends.sqlite.largeFanout.p99Ratio",
    us: "backends.sqlite.largeFanout.p99",
    floor: "backends.sqlite.largeFanout.bareP99",
    unit: " ms",
    atMost: 1.1,
  },
  {
    name: `GC background delete of an owner with ${GC_DEPENDENTS} dependents vs deletecollection of the same ${GC_DEPENDENTS}`,
    ratio: "garbageCollection.ratio",
    us: "garbageCollection.gcMs",
    floor: "garbageCollection.directMs",
    unit: " ms",
    atMost: 4,
  },
];

const { values: args } = parseArgs({
  options: {
    backends: { type: "string", default: "memory,sqlite,etcd" },
    json: { type: "string", default: "bench-results.json" },
    // Creates and GETs only: the figures a change to the request path moves, in a fraction of the time.
    "creates-and-gets": { type: "boolean", default: false },
    // The LIST of 10,000 configmaps only (after the warm-up creates): the figure a change to the list path moves.
    "list-only": { type: "boolean", default: false },
    // The garbage collector's cascade and its floors only (no backend matrix).
    "gc-only": { type: "boolean", default: false },
  },
});
const backends = (args["gc-only"] ? "" : args.backends)
  .split(",")
  .map((b) => b.trim())
  .filter(Boolean);
if (typeof globalThis.gc !== "function") throw new Error("run with node --expose-gc (npm run bench does) to measure memory per object");

const nowMs = () => Number(process.hrtime.bigint()) / 1e6;
const fmt = (n, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : String(n));
const line = (text) => console.log(text);
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const dir = mkdtempSync(join(tmpdir(), "kubekit-gcp-bench-"));
const client = fork(fileURLToPath(new URL("./load-client.mjs", import.meta.url)), { stdio: "inherit" });
let nextId = 0;
const pending = new Map();
client.on("message", ({ id, result, error }) => {
  const entry = pending.get(id);
  pending.delete(id);
  if (error) entry.reject(new Error(error));
  else entry.resolve(result);
});
const load = (task, taskArgs) =>
  new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    client.send({ id, task, args: taskArgs });
  });

async function createNamespace(url, name) {
  const res = await fetch(`${url}/api/v1/namespaces`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ metadata: { name } }),
  });
  if (res.status !== 201) throw new Error(`namespace ${name}: ${res.status} ${await res.text()}`);
}

async function creates(url, namespace, count, concurrency, prefix) {
  const result = await load("creates", { url, namespace, count, concurrency, prefix });
  if (result.errors) throw new Error(`${result.errors} of ${count} creates failed in ${namespace}`);
  return result.perSecond;
}

/** Live heap and off-heap bytes after two full collections. */
function settledMemory() {
  globalThis.gc();
  globalThis.gc();
  const { heapUsed, external } = process.memoryUsage();
  return heapUsed + external;
}

/** p50 of `path` on the server and on a bare node:http server sending the same bytes. */
async function againstBare(url, path, repeats) {
  await load("list", { url, path, repeats: 1 });
  const served = await load("list", { url, path, repeats });
  const body = Buffer.from(await (await fetch(url + path)).arrayBuffer());
  const bare = await bareServer(body);
  await load("list", { url: bare.url, path: "/", repeats: 1 });
  const bareRun = await load("list", { url: bare.url, path: "/", repeats });
  await bare.close();
  return { served, bare: bareRun, body };
}

/** GETs at a fixed rate, one warm-up second first; the same against a bare server sending the same bytes. */
async function getsAgainstBare(url, path) {
  await load("getsAtRate", { url, path, rate: GET_RATE, seconds: 1 });
  const served = await load("getsAtRate", { url, path, rate: GET_RATE, seconds: GET_SECONDS });
  const bare = await bareServer(Buffer.from(await (await fetch(url + path)).arrayBuffer()));
  await load("getsAtRate", { url: bare.url, path, rate: GET_RATE, seconds: 1 });
  const bareRun = await load("getsAtRate", { url: bare.url, path, rate: GET_RATE, seconds: GET_SECONDS });
  await bare.close();
  return { served, bare: bareRun };
}

/**
 * Watch delivery through the server and through a bare server fanning the same creates out to as
 * many watchers, `runs` times in turn (this machine's floor moves between runs): medians of the
 * runs' p50 and p99, the largest max, and every event counted. With `warmUp`, one untimed run
 * against each comes first, so the figures are of warmed-up watch paths (a first run's deliveries
 * start ~2 ms later while they compile), as the creates are timed after a warm-up.
 */
async function fanout(url, namespace, watchers, runs, warmUp) {
  const served = [];
  const floors = [];
  const bare = await bareFanoutServer();
  try {
    if (warmUp) {
      await createNamespace(url, `${namespace}-warm-up`);
      await load("watchFanout", { url, namespace: `${namespace}-warm-up`, watchers, events: WATCH_EVENTS, rate: WATCH_EVENT_RATE });
      await load("watchFanout", {
        url: bare.url,
        namespace: `${namespace}-warm-up`,
        watchers,
        events: WATCH_EVENTS,
        rate: WATCH_EVENT_RATE,
      });
    }
    for (let run = 0; run < runs; run++) {
      await createNamespace(url, `${namespace}-${run}`);
      served.push(
        await load("watchFanout", { url, namespace: `${namespace}-${run}`, watchers, events: WATCH_EVENTS, rate: WATCH_EVENT_RATE }),
      );
      floors.push(
        await load("watchFanout", {
          url: bare.url,
          namespace: `${namespace}-${run}`,
          watchers,
          events: WATCH_EVENTS,
          rate: WATCH_EVENT_RATE,
        }),
      );
    }
  } finally {
    await bare.close();
  }
  const of = (results, field) => median(results.map((result) => result[field]));
  return {
    p50: of(served, "p50"),
    p99: of(served, "p99"),
    max: Math.max(...served.map((result) => result.max)),
    delivered: served.reduce((sum, result) => sum + result.delivered, 0),
    expected: served.reduce((sum, result) => sum + result.expected, 0),
    timedOut: served.some((result) => result.timedOut),
    bareP50: of(floors, "p50"),
    bareP99: of(floors, "p99"),
    runs,
  };
}

const fanoutLine = (watchers, watched) =>
  `  watch delivery, ${watchers} watchers x ${WATCH_EVENTS} creates at ${WATCH_EVENT_RATE}/s${watched.runs > 1 ? `, median of ${watched.runs} runs` : ""}: p50 ${fmt(watched.p50, 1)} ms, p99 ${fmt(watched.p99, 1)} ms, max ${fmt(watched.max, 0)} ms` +
  ` (${watched.delivered}/${watched.expected} delivered${watched.timedOut ? ", TIMED OUT" : ""})` +
  ` | bare node:http fanning the same creates out: p50 ${fmt(watched.bareP50, 1)} ms, p99 ${fmt(watched.bareP99, 1)} ms | p99 ratio ${fmt(watched.p99 / watched.bareP99, 1)}`;

async function startToReady(backend) {
  const times = [];
  for (let i = 0; i < STARTS; i++) {
    const start = nowMs();
    const plane = await createControlPlane({ storage: await backend.newStorage("start"), port: 0, host: "127.0.0.1" });
    const ready = await fetch(`${plane.url}/readyz`);
    await ready.text();
    times.push(nowMs() - start);
    await plane.close();
    if (ready.status !== 200) throw new Error(`/readyz answered ${ready.status}`);
  }
  return { median: median(times), min: Math.min(...times) };
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
  return median(times);
}

/** Memory per 10,000 configmaps created, and the LIST of them against a bare server sending the same bytes. */
async function measureList(url) {
  const figures = {};
  await createNamespace(url, "list");
  const before = settledMemory();
  await creates(url, "list", LIST_SIZE, 32, "cm");
  const perTenThousand = settledMemory() - before;
  figures.memoryPer10k = perTenThousand;
  line(`  memory of the server process per ${LIST_SIZE} configmaps created (heap + external after GC): ${fmt(perTenThousand / 1e6, 1)} MB`);

  const list = await againstBare(url, "/api/v1/namespaces/list/configmaps", LIST_REPEATS);
  if (list.served.items !== LIST_SIZE) throw new Error(`LIST returned ${list.served.items} items, expected ${LIST_SIZE}`);
  const encode = stringifyMs(JSON.parse(list.body.toString("utf8")), LIST_REPEATS);
  figures.list = {
    p50: list.served.p50,
    bytes: list.body.length,
    bareP50: list.bare.p50,
    bareRatio: list.served.p50 / list.bare.p50,
    stringifyMs: encode,
    stringifyRatio: list.served.p50 / encode,
  };
  line(
    `  LIST ${LIST_SIZE} configmaps (JSON ${fmt(list.body.length / 1e6, 1)} MB, ${LIST_REPEATS} runs): p50 ${fmt(list.served.p50, 0)} ms` +
      ` | JSON.stringify of the same objects: ${fmt(encode, 1)} ms (ratio ${fmt(list.served.p50 / encode, 1)}) | bare node:http, same bytes: p50 ${fmt(list.bare.p50, 0)} ms (ratio ${fmt(list.served.p50 / list.bare.p50, 1)})`,
  );
  return figures;
}

/** The matrix row of one backend. */
async function measureBackend(backend) {
  const figures = {};
  const plane = await createControlPlane({ storage: await backend.newStorage("main"), port: 0, host: "127.0.0.1" });
  try {
    const url = plane.url;
    await createNamespace(url, "bench");
    await createNamespace(url, "warm-up");
    await creates(url, "warm-up", WARM_UP_CREATES, 32, "w");
    if (args["list-only"]) return { ...figures, ...(await measureList(url)) };
    figures.creates = {};
    for (const concurrency of [1, 32]) {
      const raws = [];
      const rates = [];
      const bareRates = [];
      const bare = await bareCreateServer();
      try {
        await creates(bare.url, "bench", CREATE_COUNTS[concurrency], concurrency, "warm-up");
        for (let run = 0; run < CREATE_RUNS; run++) {
          raws.push(await backend.rawWriteRate(RAW_WRITES[backend.kind], concurrency));
          rates.push(await creates(url, "bench", CREATE_COUNTS[concurrency], concurrency, `c${concurrency}-r${run}`));
          bareRates.push(await creates(bare.url, "bench", CREATE_COUNTS[concurrency], concurrency, `c${concurrency}-r${run}`));
        }
      } finally {
        await bare.close();
      }
      const [raw, perSecond, bareHttp] = [median(raws), median(rates), median(bareRates)];
      figures.creates[concurrency] = {
        perSecond,
        raw,
        ratio: perSecond / raw,
        bareHttp,
        bareHttpRatio: perSecond / bareHttp,
        runs: CREATE_RUNS,
      };
      let transactions = "";
      if (backend.rawCreateTransactionRate !== undefined) {
        const rate = await backend.rawCreateTransactionRate(RAW_WRITES[backend.kind], concurrency);
        figures.creates[concurrency].rawCreateTransactions = rate;
        figures.creates[concurrency].createTransactionRatio = perSecond / rate;
        transactions = ` | raw create transactions with a watch on the prefix: ${fmt(rate, 0)}/s (ratio ${fmt(perSecond / rate, 3)})`;
      }
      line(
        `  creates through HTTP, ${concurrency} client${concurrency > 1 ? "s" : ""}, median of ${CREATE_RUNS}: ${fmt(perSecond, 0)}/s | ${backend.baselineName}, same concurrency: ${fmt(raw, 0)}/s | ratio ${fmt(perSecond / raw, 3)}${transactions}` +
          ` | bare node:http answering the same POSTs: ${fmt(bareHttp, 0)}/s (ratio ${fmt(perSecond / bareHttp, 3)})`,
      );
    }

    const gets = await getsAgainstBare(url, "/api/v1/namespaces/bench/configmaps/c32-r0-7");
    figures.get = {
      p50: gets.served.p50,
      p99: gets.served.p99,
      achievedRate: gets.served.achievedRate,
      errors: gets.served.errors,
      bareP50: gets.bare.p50,
      bareP99: gets.bare.p99,
      p99Ratio: gets.served.p99 / gets.bare.p99,
    };
    line(
      `  GET a configmap at ${GET_RATE}/s for ${GET_SECONDS} s (achieved ${fmt(gets.served.achievedRate, 0)}/s, ${gets.served.errors} errors): p50 ${fmt(gets.served.p50, 2)} ms, p99 ${fmt(gets.served.p99, 2)} ms` +
        ` | bare node:http, same bytes: p50 ${fmt(gets.bare.p50, 2)} ms, p99 ${fmt(gets.bare.p99, 2)} ms | p99 ratio ${fmt(gets.served.p99 / gets.bare.p99, 1)}`,
    );
    if (args["creates-and-gets"]) return figures;

    Object.assign(figures, await measureList(url));

    const watched = await fanout(url, "fanout", FANOUT_WATCHERS, FANOUT_RUNS, true);
    figures.fanout = {
      watchers: FANOUT_WATCHERS,
      runs: FANOUT_RUNS,
      p50: watched.p50,
      p99: watched.p99,
      max: watched.max,
      delivered: watched.delivered,
      expected: watched.expected,
      bareP50: watched.bareP50,
      bareP99: watched.bareP99,
    };
    line(fanoutLine(FANOUT_WATCHERS, watched));
  } finally {
    await plane.close();
  }
  figures.startToReady = await startToReady(backend);
  line(
    `  in-process start to ready (createControlPlane → /readyz 200, ${STARTS} runs, fresh store each): median ${fmt(figures.startToReady.median, 1)} ms (min ${fmt(figures.startToReady.min, 1)})`,
  );
  return figures;
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

/** Figures of the default (SQLite) backend beyond the matrix: paging at scale and fan-out at 10,000 watchers. */
async function measureScale(backend) {
  const figures = {};
  const storage = await backend.newStorage("scale");
  const plane = await createControlPlane({ storage, port: 0, host: "127.0.0.1" });
  try {
    const url = plane.url;
    for (const size of SCALE_SIZES) await fillDirect(url, storage, `scale-${size}`, size);
    const pages = [];
    for (const size of SCALE_SIZES)
      pages.push({ size, ...(await againstBare(url, `/api/v1/namespaces/scale-${size}/configmaps?limit=500`, FIRST_PAGE_REPEATS)) });
    const [small, large] = [pages[0], pages.at(-1)];
    figures.firstPage = { sizes: SCALE_SIZES, p50: pages.map((p) => p.served.p50), bareP50: large.bare.p50 };
    line(
      `  LIST first page (limit=500, ${FIRST_PAGE_REPEATS} runs): ${small.size} objects p50 ${fmt(small.served.p50, 1)} ms | ${large.size} objects p50 ${fmt(large.served.p50, 1)} ms` +
        ` | ratio ${fmt(large.served.p50 / small.served.p50, 2)} | bare node:http, same bytes: p50 ${fmt(large.bare.p50, 1)} ms | ratio ${fmt(large.served.p50 / large.bare.p50, 1)}`,
    );
    const full = await againstBare(url, `/api/v1/namespaces/scale-${large.size}/configmaps`, FULL_LIST_REPEATS);
    if (full.served.items !== large.size) throw new Error(`full LIST returned ${full.served.items} items, expected ${large.size}`);
    figures.fullList = { size: large.size, bytes: full.body.length, p50: full.served.p50, bareP50: full.bare.p50 };
    line(
      `  full LIST ${large.size} configmaps (streamed, JSON ${fmt(full.body.length / 1e6, 1)} MB, ${FULL_LIST_REPEATS} runs): p50 ${fmt(full.served.p50, 0)} ms` +
        ` | bare node:http, same bytes: p50 ${fmt(full.bare.p50, 0)} ms | ratio ${fmt(full.served.p50 / full.bare.p50, 1)}`,
    );
    // The watch path is warm from the 1,000-watcher runs in this process.
    const watched = await fanout(url, "fanout-large", LARGE_FANOUT_WATCHERS, 1, false);
    figures.largeFanout = {
      watchers: LARGE_FANOUT_WATCHERS,
      p50: watched.p50,
      p99: watched.p99,
      max: watched.max,
      delivered: watched.delivered,
      expected: watched.expected,
      bareP50: watched.bareP50,
      bareP99: watched.bareP99,
      p99Ratio: watched.p99 / watched.bareP99,
    };
    line(fanoutLine(LARGE_FANOUT_WATCHERS, watched));
  } finally {
    await plane.close();
  }
  return figures;
}

/** Creates `count` secrets in `namespace`, owned by `owner` when given. */
async function createSecrets(url, namespace, prefix, count, owner) {
  for (let i = 0; i < count; i++) {
    const metadata = {
      name: `${prefix}-${i}`,
      ...(owner ? { ownerReferences: [{ apiVersion: "v1", kind: "ConfigMap", name: owner.metadata.name, uid: owner.metadata.uid }] } : {}),
    };
    const res = await fetch(`${url}/api/v1/namespaces/${namespace}/secrets`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ metadata }),
    });
    if (res.status !== 201) throw new Error(`create secret answered ${res.status}`);
  }
}

/** Whether any secret is left in `namespace` (one item asked for, with node:http). */
function anySecretLeft(url, namespace, agent) {
  return secretsPage(url, namespace, agent).then((list) => list.items.length > 0);
}

function secretsPage(url, namespace, agent) {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}/api/v1/namespaces/${namespace}/secrets?limit=1`, { agent }, (res) => {
      const chunks = [];
      res.on("data", (chunk) => chunks.push(chunk));
      res.on("end", () => {
        if (res.statusCode !== 200) reject(new Error(`listing secrets answered ${res.statusCode}`));
        else resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
      });
    });
    req.on("error", reject);
    req.end();
  });
}

/**
 * Watches the secrets of `namespace` from `resourceVersion` (node:http); once the stream is open,
 * resolves to `{ done }`, a promise of the moment the `count`th DELETED event arrives. The cascade is timed
 * until its last dependent is gone, and the observer runs in the process that serves it and runs
 * the collector, so its CPU is in what is timed: one watch event per dependent (a line read for
 * its type) costs a small part of what polling every 5 ms did (a LIST request each, about 250 µs
 * of CPU with node:http and 370 µs with fetch, a hundred or more of them in a loaded cascade).
 */
function deletionsSeen(url, namespace, resourceVersion, count) {
  return new Promise((opened, failed) => {
    const req = httpRequest(`${url}/api/v1/namespaces/${namespace}/secrets?watch=1&resourceVersion=${resourceVersion}`, (res) => {
      if (res.statusCode !== 200) {
        failed(new Error(`watching secrets answered ${res.statusCode}`));
        res.resume();
        return;
      }
      opened({
        done: new Promise((resolve, reject) => {
          const timer = setTimeout(() => {
            req.destroy();
            reject(new Error(`the garbage collector did not remove every dependent within 60 s (${seen} of ${count} seen)`));
          }, 60_000);
          let seen = 0;
          let buffered = "";
          res.setEncoding("utf8");
          res.on("data", (chunk) => {
            buffered += chunk;
            let newline;
            while ((newline = buffered.indexOf("\n")) >= 0) {
              if (buffered.startsWith('{"type":"DELETED"')) seen++;
              buffered = buffered.slice(newline + 1);
            }
            if (seen >= count) {
              clearTimeout(timer);
              resolve(nowMs());
              req.destroy();
            }
          });
          res.on("error", () => {});
        }),
      });
    });
    req.on("error", failed);
    req.end();
  });
}

/** CPU time of this process (server, collector and bench) since `start`, in ms. */
const cpuMsSince = (start) => {
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1e3;
};

/** Wall and CPU milliseconds of one deletecollection of `GC_DEPENDENTS` secrets in a new namespace. */
async function timedDeleteCollection(url, namespace, agent) {
  await createNamespace(url, namespace);
  await createSecrets(url, namespace, "direct", GC_DEPENDENTS);
  const cpuStart = process.cpuUsage();
  const start = nowMs();
  await (await fetch(`${url}/api/v1/namespaces/${namespace}/secrets`, { method: "DELETE" })).text();
  const ms = nowMs() - start;
  const cpuMs = cpuMsSince(cpuStart);
  if (await anySecretLeft(url, namespace, agent)) throw new Error("deletecollection left secrets behind");
  return { ms, cpuMs };
}

/** Wall and CPU milliseconds from the DELETE of an owner of `GC_DEPENDENTS` secrets until the collector has removed them all. */
async function timedCascade(url, namespace, agent) {
  await createNamespace(url, namespace);
  const ownerRes = await fetch(`${url}/api/v1/namespaces/${namespace}/configmaps`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ metadata: { name: "owner" } }),
  });
  const owner = await ownerRes.json();
  await createSecrets(url, namespace, "dep", GC_DEPENDENTS, owner);
  const { resourceVersion } = (await secretsPage(url, namespace, agent)).metadata;
  const allDeleted = await deletionsSeen(url, namespace, resourceVersion, GC_DEPENDENTS);
  // The collector's informer takes in each create as it comes; a pause keeps the last few out of the timed window.
  await new Promise((resolve) => setTimeout(resolve, 100));
  const cpuStart = process.cpuUsage();
  const start = nowMs();
  await (await fetch(`${url}/api/v1/namespaces/${namespace}/configmaps/owner`, { method: "DELETE" })).text();
  const end = await allDeleted.done;
  const timed = { ms: end - start, cpuMs: cpuMsSince(cpuStart) };
  if (await anySecretLeft(url, namespace, agent)) throw new Error("the collector's deletions were seen but secrets are left");
  return timed;
}

/**
 * Time until the garbage collector has removed every dependent of a deleted owner, against
 * deleting as many objects with one deletecollection. Each figure is the median of `GC_RUNS`
 * runs after a first one, as the creates are timed after a warm-up: the first runs compile the
 * paths (the first cascade costs about twice a later one) and are reported beside. The CPU time
 * of each (this process's, which serves, collects and observes) is reported too: on a shared
 * machine it moves far less than the wall time of a cascade, which waits for the scheduler at
 * each of its many hops where a deletecollection runs as one request.
 */
async function cascadeDeletion() {
  const gcPlane = await createControlPlane({
    port: 0,
    host: "127.0.0.1",
    controllers: { controllers: ["garbagecollector"], leaderElection: false },
  });
  // The same collector as a client of the server's URL (what in-process controllers were before
  // they were handed the server's handler), on a server of its own so the two never share work.
  const httpPlane = await createControlPlane({ port: 0, host: "127.0.0.1" });
  const httpClient = new KubeClient({ server: httpPlane.url, userAgent: "kube-controller-manager" });
  const httpCollector = new ControllerManager({ client: httpClient, controllers: ["garbagecollector"], leaderElection: false });
  httpCollector.start();
  const agent = new HttpAgent({ keepAlive: true });
  try {
    const url = gcPlane.url;
    const firstDirect = await timedDeleteCollection(url, "direct-first", agent);
    const firstGc = await timedCascade(url, "cascade-first", agent);
    await timedCascade(httpPlane.url, "cascade-first", agent);
    const [directRuns, gcRuns, httpRuns] = [[], [], []];
    for (let run = 0; run < GC_RUNS; run++) {
      directRuns.push(await timedDeleteCollection(url, `direct-${run}`, agent));
      gcRuns.push(await timedCascade(url, `cascade-${run}`, agent));
      httpRuns.push(await timedCascade(httpPlane.url, `cascade-${run}`, agent));
    }
    const bareRoundTripsMs = await bareDeleteRoundTripsMs(GC_DEPENDENTS, GC_WORKERS);
    const [gcMs, directMs] = [median(gcRuns.map((r) => r.ms)), median(directRuns.map((r) => r.ms))];
    const [gcCpuMs, directCpuMs] = [median(gcRuns.map((r) => r.cpuMs)), median(directRuns.map((r) => r.cpuMs))];
    const [httpGcMs, httpGcCpuMs] = [median(httpRuns.map((r) => r.ms)), median(httpRuns.map((r) => r.cpuMs))];
    return {
      httpGcMs,
      httpGcCpuMs,
      gcMs,
      directMs,
      ratio: gcMs / directMs,
      gcCpuMs,
      directCpuMs,
      cpuRatio: gcCpuMs / directCpuMs,
      firstGcMs: firstGc.ms,
      firstDirectMs: firstDirect.ms,
      firstRatio: firstGc.ms / firstDirect.ms,
      bareRoundTripsMs,
      bareRoundTripsRatio: bareRoundTripsMs / directMs,
    };
  } finally {
    agent.destroy();
    await httpCollector.stop();
    httpClient.close();
    await Promise.all([gcPlane.close(), httpPlane.close()]);
  }
}

/** Looks up a dotted path such as `backends.sqlite.creates.32.ratio` in the results. */
const figureAt = (results, path) => path.split(".").reduce((value, key) => value?.[key], results);

/** One line per goal, measured or not, so every run shows where each ratio stands. */
function checkGoals(results) {
  return GOALS.map((goal) => {
    const [value, us, floor] = [figureAt(results, goal.ratio), figureAt(results, goal.us), figureAt(results, goal.floor)];
    const target = goal.atLeast !== undefined ? `≥ ${goal.atLeast}` : `≤ ${goal.atMost}`;
    if (!Number.isFinite(value)) {
      line(`goal not measured in this run: ${goal.name} (${target})`);
      return { ...goal, value: null, met: null };
    }
    const met = goal.atLeast !== undefined ? value >= goal.atLeast : value <= goal.atMost;
    line(
      `goal ${met ? "met   " : "MISSED"}: ${goal.name}: ${fmt(value, 3)} (${target}) | ${fmt(us, goal.unit === "/s" ? 0 : 2)}${goal.unit} vs ${fmt(floor, goal.unit === "/s" ? 0 : 2)}${goal.unit}`,
    );
    return { ...goal, value, met };
  });
}

const results = { node: process.version, date: new Date().toISOString(), backends: {} };
try {
  line(`generic-controlplane bench (node ${process.version}, ${results.date})`);
  for (const kind of backends) {
    const backend = await openBackend(kind, dir);
    try {
      line(`${kind}:`);
      results.backends[kind] = await measureBackend(backend);
      if (args["creates-and-gets"] || args["list-only"]) continue;
      if (kind === "sqlite") Object.assign(results.backends[kind], await measureScale(backend));
    } finally {
      await backend.close();
    }
  }
  if (!args["creates-and-gets"] && !args["list-only"]) {
    results.bareStartToReady = await bareStartToReady();
    line(`bare node:http listen → first answer: ${fmt(results.bareStartToReady, 1)} ms (the floor of start to ready)`);
    results.garbageCollection = await cascadeDeletion();
    line(
      `garbage collection, background delete of an owner with ${GC_DEPENDENTS} dependent secrets (memory, controllers in-process): all gone in ${fmt(results.garbageCollection.gcMs, 0)} ms` +
        ` | deletecollection of ${GC_DEPENDENTS} secrets, same server: ${fmt(results.garbageCollection.directMs, 0)} ms | ratio ${fmt(results.garbageCollection.gcMs / results.garbageCollection.directMs, 1)}` +
        ` | CPU of this process: ${fmt(results.garbageCollection.gcCpuMs, 0)} ms vs ${fmt(results.garbageCollection.directCpuMs, 0)} ms (ratio ${fmt(results.garbageCollection.cpuRatio, 1)}, ${fmt((results.garbageCollection.gcCpuMs * 1e3) / GC_DEPENDENTS, 0)} µs per dependent)` +
        ` | the first of each in the process: ${fmt(results.garbageCollection.firstGcMs, 0)} ms vs ${fmt(results.garbageCollection.firstDirectMs, 0)} ms (ratio ${fmt(results.garbageCollection.firstRatio, 1)})` +
        ` | ${GC_DEPENDENTS} bare node:http DELETE round trips in one process, ${GC_WORKERS} in flight: ${fmt(results.garbageCollection.bareRoundTripsMs, 0)} ms (ratio ${fmt(results.garbageCollection.bareRoundTripsRatio, 1)}, what one request per dependent over HTTP costs at the least)` +
        ` | the same cascade with the collector a client of the server's URL (loopback HTTP): ${fmt(results.garbageCollection.httpGcMs, 0)} ms, CPU ${fmt(results.garbageCollection.httpGcCpuMs, 0)} ms (${fmt((results.garbageCollection.httpGcCpuMs * 1e3) / GC_DEPENDENTS, 0)} µs per dependent)`,
    );
  }
  results.goals = checkGoals(results);
  const jsonPath = resolve(args.json);
  writeFileSync(jsonPath, `${JSON.stringify(results, null, 2)}\n`);
  line(`figures written to ${jsonPath}`);
} finally {
  client.disconnect();
  rmSync(dir, { recursive: true, force: true });
}
