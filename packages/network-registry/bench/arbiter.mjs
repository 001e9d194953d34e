import { Informer, KubeClient } from "@kubekit/generic-controlplane/controllers";
import { startTestPlane } from "@kubekit/generic-controlplane/testing";
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
  for (let i = 0; i < CLAIMS; i++) registry.claim({ metadata: { name: `component-${i}` }, spec: { addressSpace: [{ reference: pods, prefix: prefixOf(i, refusing) }] } });
  registry.claim({ metadata: { name: "node-pool" }, spec: { addressSpace: [{ reference: nodes, prefix: POOL, delegateTo: ["*"] }] } });
  for (let i = 0; i < ALLOCATIONS; i++) registry.allocate({ claim: "kubelet", reference: { ...nodes, name: `node-${i}` }, from: POOL, prefixLength: 26 });
  return performance.now() - started;
}

/** Runs `count` creations with a few requests in flight, as many components would. */
async function createAll(count, make, inFlight = 16) {
  let next = 0;
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (next < count) await make(next++);
  }));
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

async function throughApiMs(refusing) {
  const plane = await startTestPlane();
  const client = new KubeClient(plane.url);
  try {
    await install(client, { clusterRoles: false });
    const arbiter = await runArbiter({ config: plane.url });
    const claimsDecided = decided(client, NETWORK_CLAIMS, CLAIMS + 1);
    const allocationsDecided = decided(client, NETWORK_ALLOCATIONS, ALLOCATIONS);
    const started = performance.now();
    const claims = createAll(CLAIMS, (i) => client.create(NETWORK_CLAIMS, undefined, {
      apiVersion: "kana.kubekit.io/v1alpha1", kind: "NetworkClaim", metadata: { name: `component-${i}` },
      spec: { addressSpace: [{ reference: pods, prefix: prefixOf(i, refusing) }] },
    }));
    await client.create(NETWORK_CLAIMS, undefined, {
      apiVersion: "kana.kubekit.io/v1alpha1", kind: "NetworkClaim", metadata: { name: "node-pool" },
      spec: { addressSpace: [{ reference: nodes, prefix: POOL, delegateTo: ["*"] }] },
    });
    const allocations = createAll(ALLOCATIONS, (i) => client.create(NETWORK_ALLOCATIONS, undefined, {
      apiVersion: "kana.kubekit.io/v1alpha1", kind: "NetworkAllocation", metadata: { name: `node-${i}` },
      spec: { claim: "kubelet", pool: POOL, prefixLength: 26, reference: { ...nodes, name: `node-${i}` } },
    }));
    await Promise.all([claims, allocations]);
    const created = performance.now() - started;
    const [claimPhases, allocationPhases] = await Promise.all([claimsDecided, allocationsDecided]);
    const elapsed = performance.now() - started;
    const refused = [...claimPhases.values()].filter((phase) => phase === "Conflict").length;
    const failed = [...allocationPhases.values()].filter((phase) => phase !== "Allocated").length;
    await arbiter.stop();
    return { elapsed, created, refused, failed };
  } finally {
    client.close();
    await plane.close();
  }
}

/** Rows for the summary table: the arbiter's wall time through the API next to the pure registry's. */
export async function arbiterRows({ quick = false } = {}) {
  // --quick does a fifth of the work, as the rest of the benchmark.
  CLAIMS = quick ? 400 : 2_000;
  ALLOCATIONS = quick ? 1_000 : 5_000;
  const rows = [];
  for (const refusing of [false, true]) {
    const pure = pureRegistryMs(refusing);
    const { elapsed, created, refused, failed } = await throughApiMs(refusing);
    rows.push([
      `${CLAIMS} claims (${refused} refused) + ${ALLOCATIONS} allocations${failed > 0 ? ` (${failed} undecided or failed)` : ""}`,
      `${(elapsed / 1000).toFixed(1)} s`, `${(created / 1000).toFixed(1)} s`, `${(pure / 1000).toFixed(2)} s`, `${((pure * 1000) / (CLAIMS + ALLOCATIONS)).toFixed(0)} µs`,
    ]);
  }
  return rows;
}
