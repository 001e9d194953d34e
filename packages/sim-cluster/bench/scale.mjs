import { monitorEventLoopDelay } from "node:perf_hooks";
import { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { startSimCluster } from "../dist/index.js";

/*
 * The cluster at kwok's scale and beyond, against kwok's published figures (its README: "reliably
 * maintain 1k nodes and 100k pods", "create 20 nodes or pods per second" by default):
 * - nodes added 32 at a time until every one is Ready, then their Leases watched for the rest of the
 *   run: a renewal that comes more than LATE_MARGIN_MS after the renew interval counts as late;
 * - bare pods (no controller: the scheduler and kubelets are what is measured) created 64 in
 *   flight; the rate at which they reach Running, overall and over the best and worst seconds in
 *   the steady middle of the run;
 * - GET p99 of one small object at a fixed rate while the pods go Running, against the same GETs on
 *   the same server before any node or pod existed; the GETs are the cluster admin's (system:masters,
 *   which flow control exempts, as an operator's kubectl in kwokctl's cluster), the creates an
 *   anonymous client's, so the probe measures the server rather than the creates' queue;
 * - the heap held per Running pod (control plane and simulated nodes share this process);
 * - the main thread's own CPU time per pod (`process.threadCpuUsage`; the process's counts every
 *   thread) and, with `nodeThreads` (the kubelets in worker threads) and `schedulerThread`, how busy
 *   each node thread's and the scheduler thread's event loop was;
 * - the cluster then held at its size for `hold` seconds, every Lease still counted.
 */

const NODES_REF = { group: "", version: "v1", resource: "nodes", namespaced: false };
const PODS_REF = { group: "", version: "v1", resource: "pods", namespaced: true };
const KWOK_NODES = 1_000;
const KWOK_PODS = 100_000;
const KWOK_RATE = 20;
const LEASE_RENEW_MS = 10_000;
/** How far past the renew interval a renewal may come before it counts as late. */
const LATE_MARGIN_MS = 2_000;
const GET_RATE = 100;

const nowMs = () => performance.now();
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const p99 = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? NaN;
};
const heapMb = () => {
  globalThis.gc?.();
  return process.memoryUsage().heapUsed / 2 ** 20;
};
/**
 * What the cluster holds, in MiB, each after a full collection: the main thread's heap, its
 * memory outside the heap (Buffers: the watch events and responses kept as bytes), and the worker
 * threads' heaps (the kubelets, their watches and clients; the scheduler's informers).
 */
const memoryMb = async (threads) => {
  const heap = heapMb();
  const external = process.memoryUsage().external / 2 ** 20;
  const threadsMb = (await Promise.all(threads.map((t) => t.heapUsed()))).reduce((sum, bytes) => sum + bytes, 0) / 2 ** 20;
  return { heap, external, threads: threadsMb };
};
/** KiB per item between two `memoryMb` readings, and their sum. */
const perItemKb = (after, before, count) => {
  const kb = (key) => ((after[key] - before[key]) * 1024) / Math.max(1, count);
  return {
    heap: kb("heap"),
    external: kb("external"),
    threads: kb("threads"),
    all: kb("heap") + kb("external") + kb("threads"),
  };
};

/** GETs `path` at GET_RATE/s until `stop()`, each timed from when it was due (no coordinated omission). */
function getLoad(client, path) {
  const times = [];
  let errors = 0;
  let running = true;
  const loop = (async () => {
    const start = nowMs();
    const inFlight = new Map();
    for (let i = 0; running; i++) {
      const due = start + (i * 1000) / GET_RATE;
      const wait = due - nowMs();
      if (wait > 0) await sleep(wait);
      const request = client.request("GET", path).then(
        () => times.push(nowMs() - due),
        () => errors++,
      );
      inFlight.set(request, due);
      void request.finally(() => inFlight.delete(request));
    }
    // A GET not answered 10 s after the load stopped counts with the time it has waited so far.
    await Promise.race([Promise.all(inFlight.keys()), sleep(10_000)]);
    for (const due of inFlight.values()) times.push(nowMs() - due);
  })();
  return {
    async stop() {
      running = false;
      await loop;
      if (errors > 0) times.errors = errors;
      return times;
    },
  };
}

/**
 * Who the GET probe is to the server and where flow control put it: the user a SelfSubjectReview
 * names, and the flow schema and priority level whose UIDs answer the probe's GET.
 */
async function probeClassification(url, token, path) {
  const headers = { authorization: `Bearer ${token}`, "content-type": "application/json" };
  const review = await (
    await fetch(`${url}/apis/authentication.k8s.io/v1/selfsubjectreviews`, {
      method: "POST",
      headers,
      body: JSON.stringify({ apiVersion: "authentication.k8s.io/v1", kind: "SelfSubjectReview" }),
    })
  ).json();
  const answer = await fetch(`${url}${path}`, { headers });
  await answer.arrayBuffer();
  const nameOf = async (plural, uid) => {
    const list = await (await fetch(`${url}/apis/flowcontrol.apiserver.k8s.io/v1/${plural}`, { headers })).json();
    return list.items?.find((item) => item.metadata.uid === uid)?.metadata.name ?? `uid ${uid}`;
  };
  return {
    user: review.status?.userInfo?.username,
    groups: review.status?.userInfo?.groups ?? [],
    flowSchema: await nameOf("flowschemas", answer.headers.get("x-kubernetes-pf-flowschema-uid")),
    priorityLevel: await nameOf("prioritylevelconfigurations", answer.headers.get("x-kubernetes-pf-prioritylevel-uid")),
  };
}

/** Watches the node Leases; every renewal later than the interval plus the margin is counted. */
async function leaseWatch(client) {
  const last = new Map();
  let late = 0;
  let renewals = 0;
  let maxGap = 0;
  const handle = await client.watch("/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", {}, (event) => {
    if (event.type !== "ADDED" && event.type !== "MODIFIED") return;
    const name = event.object?.metadata?.name;
    const at = nowMs();
    const previous = last.get(name);
    last.set(name, at);
    if (previous === undefined || event.type === "ADDED") return;
    renewals++;
    const gap = at - previous;
    maxGap = Math.max(maxGap, gap);
    if (gap > LEASE_RENEW_MS + LATE_MARGIN_MS) late++;
  });
  return {
    stop() {
      handle.stop();
      // A Lease not renewed at all by now is late too.
      const at = nowMs();
      for (const seen of last.values()) {
        const gap = at - seen;
        maxGap = Math.max(maxGap, gap);
        if (gap > LEASE_RENEW_MS + LATE_MARGIN_MS) late++;
      }
      return { late, renewals, maxGap, leases: last.size };
    },
  };
}

/** Counts pods reaching Running, by the second they did. */
async function runningWatch(client) {
  const seen = new Set();
  const at = [];
  let resolveAll;
  let want = Infinity;
  const all = new Promise((resolve) => (resolveAll = resolve));
  const handle = await client.watch("/api/v1/pods", { fieldSelector: "status.phase=Running" }, (event) => {
    if (event.type !== "ADDED" && event.type !== "MODIFIED") return;
    const key = `${event.object.metadata.namespace}/${event.object.metadata.name}`;
    if (seen.has(key)) return;
    seen.add(key);
    at.push(nowMs());
    if (seen.size >= want) resolveAll();
  });
  return {
    at,
    count: () => seen.size,
    until(count) {
      want = count;
      if (seen.size >= want) resolveAll();
      return all;
    },
    stop: () => handle.stop(),
  };
}

/** Runs `count` calls of `one(i)` with `concurrency` in flight. */
async function pool(count, concurrency, one) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await one(next++);
    }),
  );
}

/** Per-second Running counts over the middle 80% of the run: the worst and best second. */
function steadyRates(times, t0) {
  if (times.length === 0) return { min: 0, max: 0 };
  const end = times[times.length - 1];
  const first = times[0];
  const span = end - first;
  const from = first + span * 0.1;
  const to = end - span * 0.1;
  const buckets = new Map();
  for (const t of times)
    if (t >= from && t < to) buckets.set(Math.floor((t - t0) / 1000), (buckets.get(Math.floor((t - t0) / 1000)) ?? 0) + 1);
  // Whole seconds only: the first and last of the window are partial.
  const counts = [...buckets.entries()]
    .filter(([second]) => second * 1000 >= from - t0 && (second + 1) * 1000 <= to - t0)
    .map(([, count]) => count);
  if (counts.length === 0) return { min: NaN, max: NaN };
  return { min: Math.min(...counts), max: Math.max(...counts) };
}

/**
 * From now on: the main thread's CPU time (ms) and each node thread's event loop busy time (ms).
 * Event loop busy time counts the time a thread waits for a core while it runs, so on a loaded
 * machine it exceeds its CPU time; `process.threadCpuUsage` (Node 23.9+) counts the CPU alone.
 */
function threadUsage(threads) {
  const cpu = () => {
    const usage = process.threadCpuUsage?.() ?? process.cpuUsage();
    return (usage.user + usage.system) / 1000;
  };
  const mainCpu = cpu();
  const workers = threads.map((t) => t.eventLoopUtilization());
  return () => ({
    mainCpuMs: cpu() - mainCpu,
    nodeThreadsBusyMs: threads.map((t, i) => t.eventLoopUtilization(workers[i]).active),
  });
}

/** From now on: how long `thread`'s event loop was busy (ms); undefined without the thread. */
function busySince(thread) {
  if (thread === undefined) return undefined;
  const start = thread.eventLoopUtilization();
  return () => thread.eventLoopUtilization(start).active;
}

export async function scaleBench({ nodes, pods, holdSeconds, nodeThreads = 0, schedulerThread = false, line }) {
  const memoryBefore = await memoryMb([]);
  const podsPerNode = Math.ceil(pods / nodes);
  const cluster = await startSimCluster({
    nodes: 0,
    // Room for the pods whatever the ratio: upstream's 110 per node, or more for a denser bench.
    nodeCapacity: { pods: String(Math.max(110, Math.ceil(podsPerNode * 1.25))), cpu: "64", memory: "256Gi" },
    leaseRenewIntervalMs: LEASE_RENEW_MS,
    nodeThreads,
    schedulerThread,
  });
  const client = new KubeClient({ server: cluster.url, userAgent: "bench" });
  // The probe is the cluster's admin, as an operator's kubectl; the creates above stay anonymous.
  const getter = new KubeClient({ server: cluster.url, userAgent: "bench-get", token: cluster.adminToken });
  const results = { nodes, pods, holdSeconds, nodeThreads, schedulerThread };
  try {
    results.getProbe = await probeClassification(cluster.url, cluster.adminToken, "/api/v1/namespaces/default");
    // The idle server: no nodes, no pods, nothing but its own controllers.
    await sleep(500);
    let load = getLoad(getter, "/api/v1/namespaces/default");
    await sleep(5000);
    results.idleGetP99 = p99(await load.stop());

    let t0 = nowMs();
    await pool(nodes, 32, () => cluster.addNode());
    results.nodesReadyMs = nowMs() - t0;
    line(`${nodes} nodes Ready in ${(results.nodesReadyMs / 1000).toFixed(1)} s`);
    const leases = await leaseWatch(client);
    const running = await runningWatch(client);
    const workerThreads = [...cluster.nodeThreads, ...(cluster.schedulerThread ? [cluster.schedulerThread] : [])];
    const memoryNodes = await memoryMb(workerThreads);

    load = getLoad(getter, "/api/v1/namespaces/default");
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    const cpuBefore = process.cpuUsage();
    const usage = threadUsage(cluster.nodeThreads);
    const schedulerBusy = busySince(cluster.schedulerThread);
    t0 = nowMs();
    let created = 0;
    let createErrors = 0;
    const creating = pool(pods, 64, async (i) => {
      const pod = { metadata: { name: `p-${i}`, labels: { app: "scale" } }, spec: { containers: [{ name: "c", image: "x" }] } };
      for (let attempt = 0; ; attempt++) {
        try {
          await client.create(PODS_REF, "default", pod);
          break;
        } catch (error) {
          // A connection reset (a keep-alive socket the server closed) is retried; 409 means the retried create went through.
          if (error?.code === 409) break;
          createErrors++;
          if (attempt >= 3) throw error;
        }
      }
      created++;
    });
    const progress = setInterval(
      // The heap as it stands, not after a full collection: forcing one every 10 s would stop the
      // process for seconds once the heap holds tens of thousands of pods.
      () => line(`  ${created} created, ${running.count()} Running, ${(process.memoryUsage().heapUsed / 2 ** 30).toFixed(2)} GiB heap`),
      10_000,
    );
    await creating;
    results.createMs = nowMs() - t0;
    results.createErrors = createErrors;
    const deadline = sleep(Math.max(120_000, pods * 5)).then(() => "timeout");
    const outcome = await Promise.race([running.until(pods), deadline]);
    clearInterval(progress);
    results.runningMs = nowMs() - t0;
    const cpu = process.cpuUsage(cpuBefore);
    const { mainCpuMs, nodeThreadsBusyMs } = usage();
    // The process's CPU time (server, scheduler, kubelets, controllers and this bench's clients) per pod.
    results.cpuMsPerPod = (cpu.user + cpu.system) / 1000 / Math.max(1, running.count());
    results.cpuShare = (cpu.user + cpu.system) / 1000 / results.runningMs;
    // The main thread runs the server, scheduler, controllers and bench clients (and the kubelets without node threads).
    results.mainCpuMsPerPod = mainCpuMs / Math.max(1, running.count());
    results.mainCpuShare = mainCpuMs / results.runningMs;
    results.nodeThreadsBusyShare = nodeThreadsBusyMs.map((ms) => ms / results.runningMs);
    if (schedulerBusy !== undefined) results.schedulerThreadBusyShare = schedulerBusy() / results.runningMs;
    loopDelay.disable();
    results.loopDelayP99 = loopDelay.percentile(99) / 1e6;
    results.loopDelayMax = loopDelay.max / 1e6;
    results.runGetP99 = p99(await load.stop());
    results.running = running.count();
    if (outcome === "timeout") line(`only ${running.count()} of ${pods} pods Running in time`);
    results.runningRate = (running.count() / results.runningMs) * 1000;
    const steady = steadyRates(running.at, t0);
    results.steadyMinRate = steady.min;
    results.steadyMaxRate = steady.max;
    running.stop();
    results.memoryPerPodKb = perItemKb(await memoryMb(workerThreads), memoryNodes, results.running);
    results.memoryPerNodeKb = perItemKb(memoryNodes, memoryBefore, nodes);

    line(`${results.running} pods Running in ${(results.runningMs / 1000).toFixed(1)} s; holding for ${holdSeconds} s`);
    load = getLoad(getter, "/api/v1/namespaces/default");
    await sleep(holdSeconds * 1000);
    results.holdGetP99 = p99(await load.stop());
    Object.assign(results, { leases: leases.stop() });
    const nodeList = await client.list(NODES_REF);
    results.readyNodes = nodeList.items.filter((n) =>
      (n.status?.conditions ?? []).some((c) => c.type === "Ready" && c.status === "True"),
    ).length;
    results.rssGb = process.memoryUsage().rss / 2 ** 30;
  } finally {
    client.close();
    getter.close();
    await cluster.close();
  }
  return results;
}

export const KWOK = { nodes: KWOK_NODES, pods: KWOK_PODS, rate: KWOK_RATE };
export { LEASE_RENEW_MS, LATE_MARGIN_MS, GET_RATE };
