import { createControlPlane } from "@kubekit/generic-controlplane";
import { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { parseArgs } from "node:util";
import { startSimCluster } from "../dist/index.js";
import { GET_RATE, KWOK, LATE_MARGIN_MS, LEASE_RENEW_MS, scaleBench } from "./scale.mjs";

/*
 * Benchmarks for @kubekit/sim-cluster, each next to a baseline measured in the same run:
 * - start to ready of a 3-node cluster in-process (target ≤ 300 ms), against a bare control
 *   plane's start (the generic control plane with its built-ins and controllers, no nodes);
 * - 1,000 pods of one Deployment Running and Ready on 10 nodes (its status says so), against creating 1,000 ConfigMaps through
 *   the same API (the write path without scheduling, binding and kubelets);
 * - 100 Jobs of 10 completions each (parallelism 5, containers that exit 0 at once) all Complete on 10 nodes, against
 *   creating the same 1,000 pods directly through the same API (the Job controller's pod creates, the scheduler, the kubelets
 *   running each pod to Succeeded and the status it counts are what the ratio adds);
 * - the cluster at kwok's scale (bench/scale.mjs): `--nodes` nodes (1,000) and `--pods` bare pods
 *   (100,000) Running, held `--hold` seconds (60), printed against kwok's figures with goal lines.
 *   `--scale-only` skips the rows above, `--no-scale` the scale run. `--node-threads` (1) runs the
 *   simulated kubelets in that many worker threads (0: all in the main thread); `--scheduler-thread`
 *   (the default) runs the scheduler in a worker thread, `--no-scheduler-thread` in the main thread.
 */

const { values: args } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    nodes: { type: "string", default: "1000" },
    pods: { type: "string", default: "100000" },
    hold: { type: "string", default: "60" },
    "node-threads": { type: "string", default: "1" },
    "scheduler-thread": { type: "boolean", default: false },
    "no-scheduler-thread": { type: "boolean", default: false },
    "scale-only": { type: "boolean", default: false },
    "no-scale": { type: "boolean", default: false },
  },
});
const QUICK = args.quick;
/** Whether the scale run puts the scheduler in a thread of its own unless told: it takes a quarter of the main thread's CPU per pod off it. */
const SCHEDULER_THREAD = true;
const ROUNDS = QUICK ? 3 : 7;
const PODS = QUICK ? 200 : 1000;
const JOBS = QUICK ? 20 : 100;
const COMPLETIONS = 10;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function timeStart(start) {
  const times = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t0 = performance.now();
    const running = await start();
    times.push(performance.now() - t0);
    await running.close();
  }
  return median(times);
}

async function podsRunning() {
  const cluster = await startSimCluster({ nodes: 10 });
  const client = new KubeClient({ server: cluster.url });
  const deployments = { group: "apps", version: "v1", resource: "deployments", namespaced: true };
  const t0 = performance.now();
  await client.create(deployments, "default", {
    metadata: { name: "load" },
    spec: {
      replicas: PODS,
      selector: { matchLabels: { app: "load" } },
      template: { metadata: { labels: { app: "load" } }, spec: { containers: [{ name: "c", image: "x" }] } },
    },
  });
  // Watching the Deployment's status (as `kubectl rollout status` does) costs one GET per poll;
  // listing the pods would load the server with the observer's own work.
  const deadline = t0 + 120_000;
  for (;;) {
    const status = (await client.get(deployments, "default", "load")).status ?? {};
    if (status.availableReplicas === PODS && status.updatedReplicas === PODS) break;
    if (performance.now() > deadline) throw new Error(`only ${status.availableReplicas ?? 0} of ${PODS} pods available after 120 s`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const elapsed = performance.now() - t0;
  client.close();
  await cluster.close();
  return elapsed;
}

async function configMaps() {
  const plane = await createControlPlane({ controllers: true });
  const client = new KubeClient({ server: plane.url });
  const ref = { group: "", version: "v1", resource: "configmaps", namespaced: true };
  const t0 = performance.now();
  for (let i = 0; i < PODS; i += 16) {
    await Promise.all(
      Array.from({ length: Math.min(16, PODS - i) }, (_, j) =>
        client.create(ref, "default", { metadata: { name: `cm-${i + j}` }, data: { a: "b" } }),
      ),
    );
  }
  const elapsed = performance.now() - t0;
  client.close();
  await plane.close();
  return elapsed;
}

const JOBS_REF = { group: "batch", version: "v1", resource: "jobs", namespaced: true };
const PODS_REF = { group: "", version: "v1", resource: "pods", namespaced: true };
const EXITING_CONTAINER = { name: "c", image: "busybox", command: ["sh", "-c", "exit 0"] };

async function jobsComplete() {
  const cluster = await startSimCluster({ nodes: 10 });
  const client = new KubeClient({ server: cluster.url });
  const t0 = performance.now();
  for (let i = 0; i < JOBS; i += 16) {
    await Promise.all(
      Array.from({ length: Math.min(16, JOBS - i) }, (_, j) =>
        client.create(JOBS_REF, "default", {
          metadata: { name: `job-${i + j}` },
          spec: {
            completions: COMPLETIONS,
            parallelism: 5,
            template: { spec: { restartPolicy: "Never", containers: [EXITING_CONTAINER] } },
          },
        }),
      ),
    );
  }
  // One list per poll, as `kubectl wait --for=condition=complete` over every Job would watch them.
  const deadline = t0 + 300_000;
  for (;;) {
    const jobs = (await client.list(JOBS_REF, "default")).items;
    const complete = jobs.filter((job) => (job.status?.conditions ?? []).some((c) => c.type === "Complete" && c.status === "True")).length;
    if (complete === JOBS) break;
    if (performance.now() > deadline) throw new Error(`only ${complete} of ${JOBS} Jobs complete after 300 s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const elapsed = performance.now() - t0;
  client.close();
  await cluster.close();
  return elapsed;
}

async function plainPodCreates() {
  const cluster = await startSimCluster({ nodes: 10 });
  const client = new KubeClient({ server: cluster.url });
  const count = JOBS * COMPLETIONS;
  const t0 = performance.now();
  for (let i = 0; i < count; i += 16) {
    await Promise.all(
      Array.from({ length: Math.min(16, count - i) }, (_, j) =>
        client.create(PODS_REF, "default", {
          metadata: { name: `pod-${i + j}` },
          spec: { restartPolicy: "Never", containers: [EXITING_CONTAINER] },
        }),
      ),
    );
  }
  const elapsed = performance.now() - t0;
  client.close();
  await cluster.close();
  return elapsed;
}

if (!args["scale-only"]) {
  const bare = await timeStart(() => createControlPlane({ controllers: true }));
  const sim = await timeStart(() => startSimCluster({ nodes: 3 }));
  const baselineWrites = await configMaps();
  const running = await podsRunning();
  const podCreates = await plainPodCreates();
  const jobs = await jobsComplete();

  const rows = [
    [
      "3-node cluster start to ready (median of " + ROUNDS + ")",
      `${sim.toFixed(1)} ms`,
      `bare control plane start: ${bare.toFixed(1)} ms`,
      (sim / bare).toFixed(2),
    ],
    [
      `${PODS} pods Running on 10 nodes`,
      `${running.toFixed(0)} ms`,
      `${PODS} ConfigMap creates, 16 in flight: ${baselineWrites.toFixed(0)} ms`,
      (running / baselineWrites).toFixed(2),
    ],
    [
      `${JOBS} Jobs × ${COMPLETIONS} completions Complete on 10 nodes`,
      `${jobs.toFixed(0)} ms`,
      `${JOBS * COMPLETIONS} plain pod creates, 16 in flight: ${podCreates.toFixed(0)} ms`,
      (jobs / podCreates).toFixed(2),
    ],
  ];
  console.log("| figure | result | baseline in the same run | ratio |\n|---|---|---|---|");
  for (const row of rows) console.log(`| ${row.join(" | ")} |`);
}

if (!args["no-scale"]) {
  const nodes = Number(args.nodes);
  const pods = Number(args.pods);
  const holdSeconds = Number(args.hold);
  const nodeThreads = Number(args["node-threads"]);
  const schedulerThread = args["no-scheduler-thread"] ? false : args["scheduler-thread"] || SCHEDULER_THREAD;
  console.log(
    `\nscale: ${nodes} nodes, ${pods} bare pods created 64 in flight, held ${holdSeconds} s, kubelets in ${nodeThreads === 0 ? "the main thread" : `${nodeThreads} node thread(s)`}, the scheduler in ${schedulerThread ? "a thread of its own" : "the main thread"} (node ${process.version})`,
  );
  const r = await scaleBench({ nodes, pods, holdSeconds, nodeThreads, schedulerThread, line: (text) => console.log(text) });
  const fmt = (n, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : String(n));
  console.log("| figure | us | kwok's published figure |\n|---|---|---|");
  const rows = [
    [
      "nodes Ready",
      `${r.readyNodes} of ${nodes} (all Ready in ${fmt(r.nodesReadyMs / 1000)} s)`,
      `${KWOK.nodes} nodes "reliably maintained"`,
    ],
    ["pods Running", `${r.running} of ${pods}`, `${KWOK.pods} pods`],
    [
      "pods created to Running, overall",
      `${fmt(r.runningRate, 0)}/s (${fmt(r.runningMs / 1000)} s; creates alone ${fmt(r.createMs / 1000)} s, ${r.createErrors} retried)`,
      `${KWOK.rate}/s by default`,
    ],
    ["pods to Running, steady seconds (worst / best)", `${fmt(r.steadyMinRate, 0)}/s / ${fmt(r.steadyMaxRate, 0)}/s`, `${KWOK.rate}/s`],
    [
      `Lease renewals later than ${(LEASE_RENEW_MS + LATE_MARGIN_MS) / 1000} s apart`,
      `${r.leases.late} of ${r.leases.renewals} over ${r.leases.leases} Leases (longest gap ${fmt(r.leases.maxGap / 1000, 2)} s)`,
      "none (a node is NotReady after 40 s)",
    ],
    [
      `GET p99 at ${GET_RATE}/s as ${r.getProbe.user} (${r.getProbe.groups.join(", ")}; flow schema ${r.getProbe.flowSchema}, priority level ${r.getProbe.priorityLevel}): idle / pods going Running / held`,
      `${fmt(r.idleGetP99, 2)} ms / ${fmt(r.runGetP99, 2)} ms / ${fmt(r.holdGetP99, 2)} ms`,
      "-",
    ],
    [
      "CPU per pod Running (this process, every thread: server, scheduler, kubelets, controllers, bench clients)",
      `${fmt(r.cpuMsPerPod, 2)} ms, ${fmt(r.cpuShare * 100, 0)}% of one core over the run: the rate's ceiling on one core is ${fmt(1000 / r.cpuMsPerPod, 0)}/s`,
      "-",
    ],
    [
      "CPU per pod Running of the main thread (all but the node threads' kubelets and the scheduler thread's scheduler)",
      `${fmt(r.mainCpuMsPerPod, 2)} ms, ${fmt(r.mainCpuShare * 100, 0)}% of one core over the run: its ceiling on one core is ${fmt(1000 / r.mainCpuMsPerPod, 0)}/s; other threads ${fmt(r.cpuMsPerPod - r.mainCpuMsPerPod, 2)} ms`,
      "-",
    ],
    ...r.nodeThreadsBusyShare.map((share, i) => [`node thread ${i + 1}'s event loop busy`, `${fmt(share * 100, 0)}% of the run`, "-"]),
    ...(r.schedulerThreadBusyShare !== undefined
      ? [["scheduler thread's event loop busy", `${fmt(r.schedulerThreadBusyShare * 100, 0)}% of the run`, "-"]]
      : []),
    [
      "event loop delay of the main thread while pods went Running (p99 / max)",
      `${fmt(r.loopDelayP99, 0)} ms / ${fmt(r.loopDelayMax, 0)} ms`,
      "-",
    ],
    [
      "memory per Running pod: main thread's heap + its Buffers + the worker threads' heaps (kubelets, scheduler)",
      `${fmt(r.memoryPerPodKb.all)} KiB = ${fmt(r.memoryPerPodKb.heap)} + ${fmt(r.memoryPerPodKb.external)} + ${fmt(r.memoryPerPodKb.threads)} KiB`,
      "-",
    ],
    [
      "memory per node, the same parts",
      `${fmt(r.memoryPerNodeKb.all)} KiB = ${fmt(r.memoryPerNodeKb.heap)} + ${fmt(r.memoryPerNodeKb.external)} + ${fmt(r.memoryPerNodeKb.threads)} KiB; RSS at the end ${fmt(r.rssGb, 2)} GiB`,
      "-",
    ],
  ];
  for (const row of rows) console.log(`| ${row.join(" | ")} |`);
  const goals = [
    [`${nodes} nodes Ready at the end (≥ ${KWOK.nodes})`, r.readyNodes === nodes && nodes >= KWOK.nodes],
    [`${pods} pods Running (≥ ${KWOK.pods})`, r.running === pods && pods >= KWOK.pods],
    ["every Lease renewed on time", r.leases.late === 0 && r.leases.leases === nodes],
    [
      `pods to Running ≥ 1000/s sustained (50× kwok's ${KWOK.rate}/s): ${fmt(r.runningRate, 0)}/s, worst second ${fmt(r.steadyMinRate, 0)}/s`,
      r.runningRate >= 1000 && r.steadyMinRate >= 1000,
    ],
    [`GET p99 during the run ≤ 3× idle: ${fmt(r.runGetP99 / r.idleGetP99, 2)}×`, r.runGetP99 <= 3 * r.idleGetP99],
  ];
  for (const [name, met] of goals) console.log(`goal ${met ? "met   " : "MISSED"}: ${name}`);
}
