import { Informer, KubeClient } from "@kubekit/generic-controlplane/controllers";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import { pathToFileURL } from "node:url";
import { NetworkRegistry } from "../dist/index.js";
import { NETWORK_ALLOCATIONS, NETWORK_CLAIMS, install, runArbiter } from "../dist/kube/index.js";

/*
 * The arbiter through the API: 2,000 claims (without refusals, and with every 10th overlapping
 * the one before) and 5,000 allocations created against a control plane on 127.0.0.1, timed until
 * every object carries its decision; next to the pure registry's time for the same decisions.
 */

const POOL = "10.128.0.0/9";
const pods = { group: "", resource: "pods" };
const nodes = { group: "", resource: "nodes" };

let CLAIMS = 2_000;
let ALLOCATIONS = 5_000;

const prefixOf = (i, refusing) => {
  const n = refusing && i % 10 === 9 ? i - 1 : i;
  return `10.${n >> 8}.${n & 255}.0/24`;
};

function pureRegistryMs(refusing) {
  const registry = new NetworkRegistry();
  const started = performance.now();
  for (let i = 0; i < CLAIMS; i++)
    registry.claim({ metadata: { name: `component-${i}` }, spec: { addressSpace: [{ reference: pods, prefix: prefixOf(i, refusing) }] } });
  registry.claim({ metadata: { name: "node-pool" }, spec: { addressSpace: [{ reference: nodes, prefix: POOL, delegateTo: ["*"] }] } });
  for (let i = 0; i < ALLOCATIONS; i++)
    registry.allocate({ claim: "kubelet", reference: { ...nodes, name: `node-${i}` }, from: POOL, prefixLength: 26 });
  return performance.now() - started;
}

/**
 * Runs `count` creations as the components would: `clients` separate API clients (each its own
 * connections), each with a few requests in flight.
 */
async function createAll(url, count, make, { clients = 8, inFlight = 2 } = {}) {
  let next = 0;
  const connections = Array.from({ length: clients }, () => new KubeClient(url));
  try {
    await Promise.all(
      connections.flatMap((client) =>
        Array.from({ length: inFlight }, async () => {
          while (next < count) await make(client, next++);
        }),
      ),
    );
  } finally {
    for (const client of connections) client.close();
  }
}

/** An API client counting the writes made through it, by verb and resource. */
class CountingClient extends KubeClient {
  writes = new Map();

  #count(verb, ref, subresource) {
    const key = `${verb} ${ref.resource}${subresource ? `/${subresource}` : ""}`;
    this.writes.set(key, (this.writes.get(key) ?? 0) + 1);
  }

  create(ref, namespace, object, signal) {
    this.#count("create", ref);
    return super.create(ref, namespace, object, signal);
  }

  update(ref, namespace, object, subresource, signal) {
    this.#count("update", ref, subresource);
    return super.update(ref, namespace, object, subresource, signal);
  }

  patch(ref, namespace, name, patch, contentType, subresource) {
    this.#count("patch", ref, subresource);
    return super.patch(ref, namespace, name, patch, contentType, subresource);
  }

  get total() {
    return [...this.writes.values()].reduce((a, b) => a + b, 0);
  }
}

/**
 * The API server's own pace for the same work: a bare client rewrites the status of every object
 * (a changed sequence, so each is a real write), as many in flight as the arbiter keeps. The
 * arbiter's time is read against this floor, which moves with the machine's load.
 */
async function statusWriteFloorMs(url) {
  const client = new KubeClient(url);
  try {
    const objects = [
      ...(await client.list(NETWORK_CLAIMS)).items.map((object) => [NETWORK_CLAIMS, object]),
      ...(await client.list(NETWORK_ALLOCATIONS)).items.map((object) => [NETWORK_ALLOCATIONS, object]),
    ];
    let next = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 24 }, async () => {
        while (next < objects.length) {
          const [resource, object] = objects[next++];
          await client.update(
            resource,
            undefined,
            { ...object, status: { ...object.status, sequence: object.status.sequence + 1_000_000 } },
            "status",
          );
        }
      }),
    );
    return { ms: performance.now() - started, writes: objects.length };
  } finally {
    client.close();
  }
}

/** Watches a resource and resolves once `count` of its objects carry a decision (a phase). */
function decided(client, resource, count) {
  const informer = new Informer(client, resource, {});
  const phases = new Map();
  return new Promise((resolve) => {
    const seen = (object) => {
      if (object.status?.phase !== undefined) phases.set(object.metadata.name, object.status.phase);
      if (phases.size === count) void informer.stop().then(() => resolve(phases));
    };
    informer.addEventHandler({ add: seen, update: (_old, object) => seen(object) });
    informer.start();
  });
}

/** Creates the claims (and the node pool) and the allocations, all at once, from concurrent clients. */
async function createObjects(url, refusing) {
  const claims = createAll(url, CLAIMS, (client, i) =>
    client.create(NETWORK_CLAIMS, undefined, {
      apiVersion: "kana.kubekit.io/v1alpha1",
      kind: "NetworkClaim",
      metadata: { name: `component-${i}` },
      spec: { addressSpace: [{ reference: pods, prefix: prefixOf(i, refusing) }] },
    }),
  );
  const client = new KubeClient(url);
  await client.create(NETWORK_CLAIMS, undefined, {
    apiVersion: "kana.kubekit.io/v1alpha1",
    kind: "NetworkClaim",
    metadata: { name: "node-pool" },
    spec: { addressSpace: [{ reference: nodes, prefix: POOL, delegateTo: ["*"] }] },
  });
  client.close();
  const allocations = createAll(url, ALLOCATIONS, (client, i) =>
    client.create(NETWORK_ALLOCATIONS, undefined, {
      apiVersion: "kana.kubekit.io/v1alpha1",
      kind: "NetworkAllocation",
      metadata: { name: `node-${i}` },
      spec: { claim: "kubelet", pool: POOL, prefixLength: 26, reference: { ...nodes, name: `node-${i}` } },
    }),
  );
  await Promise.all([claims, allocations]);
}

/**
 * Through the API, served by a control plane in its own process: `live` starts the arbiter before the components create their objects (timed
 * from the first creation); otherwise the objects are all stored first and a newly started
 * arbiter decides them (timed from its start: the arbiter's own work through the API).
 */
async function throughApiMs(refusing, live) {
  const plane = await startPlaneProcess();
  const client = new KubeClient(plane.url);
  const arbiterClient = new CountingClient(plane.url);
  let arbiter;
  try {
    await install(client, { clusterRoles: false });
    const claimsDecided = decided(client, NETWORK_CLAIMS, CLAIMS + 1);
    const allocationsDecided = decided(client, NETWORK_ALLOCATIONS, ALLOCATIONS);
    if (live) arbiter = await runArbiter({ config: arbiterClient });
    let started = performance.now();
    await createObjects(plane.url, refusing);
    const created = performance.now() - started;
    if (!live) {
      started = performance.now();
      arbiter = await runArbiter({ config: arbiterClient });
    }
    const [claimPhases, allocationPhases] = await Promise.all([claimsDecided, allocationsDecided]);
    const elapsed = performance.now() - started;
    const refused = [...claimPhases.values()].filter((phase) => phase === "Conflict").length;
    const failed = [...allocationPhases.values()].filter((phase) => phase !== "Allocated").length;
    await arbiter.stop();
    arbiter = undefined;
    const writes = Object.fromEntries(arbiterClient.writes);
    const total = arbiterClient.total;
    const floor = live ? undefined : await statusWriteFloorMs(plane.url);
    return { elapsed, created, refused, failed, writes, total, floor };
  } finally {
    await arbiter?.stop();
    arbiterClient.close();
    client.close();
    await plane.close();
  }
}

/** Starts bench/plane-process.mjs; resolves with its URL and a close function. */
async function startPlaneProcess() {
  const child = spawn(process.execPath, [new URL("./plane-process.mjs", import.meta.url).pathname], { stdio: ["pipe", "pipe", "inherit"] });
  const [url] = await once(createInterface({ input: child.stdout }), "line");
  return {
    url,
    async close() {
      const exited = once(child, "exit");
      child.stdin.end();
      await exited;
    },
  };
}

const GOAL_MS = 10_000;
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

/**
 * Rows for the summary table (the arbiter deciding the stored objects, the same objects decided
 * while components create them, the pure registry deciding the same), and the goal lines.
 */
export async function arbiterRows({ quick = false } = {}) {
  // --quick does a fifth of the work, as the rest of the benchmark.
  CLAIMS = quick ? 400 : 2_000;
  ALLOCATIONS = quick ? 1_000 : 5_000;
  const rows = [];
  const goals = [];
  for (const refusing of [false, true]) {
    const pure = pureRegistryMs(refusing);
    const stored = await throughApiMs(refusing, false);
    const live = await throughApiMs(refusing, true);
    const work = `${CLAIMS} claims (${stored.refused} refused) + ${ALLOCATIONS} allocations`;
    const undecided = stored.failed + live.failed;
    rows.push([
      `${work}${undecided > 0 ? ` (${undecided} failed)` : ""}`,
      seconds(stored.elapsed),
      seconds(live.elapsed),
      seconds(live.created),
      seconds(live.elapsed - live.created),
      `${(pure / 1000).toFixed(2)} s`,
      `${((pure * 1000) / (CLAIMS + ALLOCATIONS)).toFixed(0)} µs`,
    ]);
    goals.push(
      `  ${stored.elapsed <= GOAL_MS && undecided === 0 ? "goal met   " : "goal MISSED"}  ${work} decided by the arbiter through the API: ${seconds(stored.elapsed)} (target ≤ ${seconds(GOAL_MS)})`,
    );
    goals.push(
      `               the API server's floor in the same run: ${stored.floor.writes} plain status writes by a bare client (24 in flight) took ${seconds(stored.floor.ms)}; the arbiter took ${(stored.elapsed / stored.floor.ms).toFixed(2)}× that`,
    );
    goals.push(
      `               the arbiter's writes once stored: ${stored.total} (${Object.entries(stored.writes)
        .map(([k, v]) => `${k} ${v}`)
        .join(", ")}); while being created: ${live.total}`,
    );
  }
  return { rows, goals };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { execFileSync } = await import("node:child_process");
  console.log(`uptime before: ${execFileSync("uptime").toString().trim()}`);
  const { rows, goals } = await arbiterRows({ quick: process.argv.includes("--quick") });
  for (const row of rows) console.log(row.join(" | "));
  for (const line of goals) console.log(line);
  console.log(`uptime after: ${execFileSync("uptime").toString().trim()}`);
}
