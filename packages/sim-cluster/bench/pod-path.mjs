import { writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { parseArgs } from "node:util";

/*
 * The server-side cost of one pod's writes: a sim cluster of `--nodes` nodes, `--pods` bare pods
 * created 64 in flight (as bench/scale.mjs does), timed until every pod is Running. Prints the
 * process's CPU time per pod; with `--profile file`, also takes a CPU profile of that phase (50 µs
 * sampling) and prints the functions with the most inclusive time.
 * `--dist dir` loads another build of sim-cluster (its dist/index.js) to compare builds in turn.
 */

const { values } = parseArgs({
  options: {
    nodes: { type: "string", default: "20" },
    pods: { type: "string", default: "2000" },
    profile: { type: "string" },
    top: { type: "string", default: "60" },
    dist: { type: "string", default: new URL("../dist/index.js", import.meta.url).href },
  },
});
const nodes = Number(values.nodes);
const pods = Number(values.pods);
const { startSimCluster } = await import(values.dist);
const { KubeClient } = await import(new URL("../../generic-controlplane/dist/controllers/index.js", values.dist).href).catch(
  () => import("@kubekit/generic-controlplane/controllers"),
);
const PODS_REF = { group: "", version: "v1", resource: "pods", namespaced: true };

async function pool(count, concurrency, one) {
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await one(next++);
    }),
  );
}

/** Sums each function's inclusive (self plus callees, once per stack) and self time in a profile. */
function summarize(profile) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const selfUs = new Map();
  const deltas = profile.timeDeltas;
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    selfUs.set(id, (selfUs.get(id) ?? 0) + (deltas[i + 1] ?? 0));
  }
  const inclusive = new Map();
  const self = new Map();
  const key = (node) => {
    const frame = node.callFrame;
    const file = frame.url.replace(/^.*\/(packages|node_modules)\//, "");
    return `${frame.functionName || "(anonymous)"} ${file}:${frame.lineNumber + 1}`;
  };
  let total = 0;
  for (const [id, us] of selfUs) {
    total += us;
    const leaf = byId.get(id);
    self.set(key(leaf), (self.get(key(leaf)) ?? 0) + us);
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const name = key(byId.get(at));
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + us);
    }
  }
  return { total, inclusive, self };
}

const cluster = await startSimCluster({ nodes });
const client = new KubeClient({ server: cluster.url, userAgent: "pod-path" });
let session;
try {
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const running = new Set();
  let resolveAll;
  const all = new Promise((resolve) => (resolveAll = resolve));
  const watch = await client.watch("/api/v1/pods", { fieldSelector: "status.phase=Running" }, (event) => {
    if (event.type !== "ADDED" && event.type !== "MODIFIED") return;
    running.add(event.object.metadata.name);
    if (running.size >= pods) resolveAll();
  });
  if (values.profile) {
    session = new Session();
    session.connect();
    await session.post("Profiler.enable");
    await session.post("Profiler.setSamplingInterval", { interval: 50 });
    await session.post("Profiler.start");
  }
  const cpuBefore = process.cpuUsage();
  const t0 = performance.now();
  await pool(pods, 64, async (i) => {
    const pod = { metadata: { name: `p-${i}`, labels: { app: "pod-path" } }, spec: { containers: [{ name: "c", image: "x" }] } };
    await client.create(PODS_REF, "default", pod);
  });
  // A run that stalls is reported with what reached Running, not waited on for ever.
  await Promise.race([all, new Promise((resolve) => setTimeout(resolve, Math.max(120_000, pods * 30)).unref())]);
  const wallMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpuBefore);
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const done = running.size;
  console.log(
    JSON.stringify({
      nodes,
      pods,
      running: done,
      wallMs: Math.round(wallMs),
      cpuMs: Math.round(cpuMs),
      cpuMsPerPod: +(cpuMs / Math.max(1, done)).toFixed(3),
    }),
  );
  watch.stop();
  if (session) {
    const { profile } = await session.post("Profiler.stop");
    writeFileSync(values.profile, JSON.stringify(profile));
    const { total, inclusive, self } = summarize(profile);
    const top = Number(values.top);
    const show = (map, title) => {
      console.log(`${title} (ms per pod, % of ${(total / 1000 / pods).toFixed(2)} ms sampled per pod)`);
      for (const [name, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top))
        console.log(`${(us / 1000 / pods).toFixed(3).padStart(8)} ${((us / total) * 100).toFixed(1).padStart(5)}%  ${name}`);
    };
    show(inclusive, "inclusive");
    show(self, "self");
  }
} finally {
  session?.disconnect();
  client.close();
  await cluster.close();
}
