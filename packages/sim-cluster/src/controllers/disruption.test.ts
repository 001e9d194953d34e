import type { KubeObject } from "@kubekit/generic-controlplane";
import { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { eventually } from "../../test/kubectl.js";
import { startSimCluster, type SimCluster } from "../cluster.js";
import { PDBS, type PodDisruptionBudget } from "../resources/pod-disruption-budgets.js";
import type { Pod } from "../resources/pods.js";
import { PODS, REPLICA_SETS } from "../refs.js";

// Ported from test/e2e/apps/disruption.go: the assertions that need no container runtime.

type Budget = PodDisruptionBudget & KubeObject;
interface EvictionAnswer {
  status: number;
  json: {
    reason?: string;
    message?: string;
    status?: string;
    details?: { causes?: Array<{ reason?: string; message?: string }>; retryAfterSeconds?: number };
  };
}

async function evict(url: string, ns: string, name: string): Promise<EvictionAnswer> {
  const response = await fetch(`${url}/api/v1/namespaces/${ns}/pods/${name}/eviction`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ apiVersion: "policy/v1", kind: "Eviction", metadata: { name, namespace: ns } }),
  });
  return { status: response.status, json: (await response.json()) as EvictionAnswer["json"] };
}

let namespaceCounter = 0;
async function namespace(client: KubeClient): Promise<string> {
  const name = `pdb-${++namespaceCounter}`;
  await client.create({ group: "", version: "v1", resource: "namespaces", namespaced: false }, undefined, { metadata: { name } });
  return name;
}

const podSpec = (extra: Record<string, unknown> = {}) => ({
  containers: [{ name: "donothing", image: "registry.k8s.io/pause" }],
  ...extra,
});

async function replicaSet(client: KubeClient, ns: string, replicas: number): Promise<void> {
  await client.create(REPLICA_SETS, ns, {
    metadata: { name: "rs" },
    spec: { replicas, selector: { matchLabels: { foo: "bar" } }, template: { metadata: { labels: { foo: "bar" } }, spec: podSpec() } },
  });
}

async function readyPods(client: KubeClient, ns: string, count: number): Promise<Pod[]> {
  return eventually(`${count} ready pods in ${ns}`, async () => {
    const pods = (await client.list<Pod & KubeObject>(PODS, ns)).items.filter((p) => p.metadata?.deletionTimestamp === undefined);
    return pods.length === count && pods.every((p) => p.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True"))
      ? pods
      : undefined;
  });
}

/** waitForPdbToBeProcessed plus the counts the test needs. */
async function budgetReaches(client: KubeClient, ns: string, want: Partial<NonNullable<PodDisruptionBudget["status"]>>): Promise<Budget> {
  return eventually(`pdb status ${JSON.stringify(want)}`, async () => {
    const pdb = await client.get<Budget>(PDBS, ns, "foo");
    const status = pdb.status ?? {};
    const processed = (status.observedGeneration ?? 0) >= (pdb.metadata?.generation ?? 1);
    return processed && Object.entries(want).every(([k, v]) => JSON.stringify(status[k]) === JSON.stringify(v)) ? pdb : undefined;
  });
}

describe("DisruptionController", () => {
  let cluster: SimCluster;
  let client: KubeClient;
  beforeAll(async () => {
    cluster = await startSimCluster({ nodes: 2 });
    client = new KubeClient({ server: cluster.url });
  });
  afterAll(async () => {
    client?.close();
    await cluster?.close();
  });

  it("should create a PodDisruptionBudget and observe its status updated", async () => {
    const ns = await namespace(client);
    await client.create(PDBS, ns, { metadata: { name: "foo" }, spec: { minAvailable: 1, selector: { matchLabels: { foo: "bar" } } } });
    await replicaSet(client, ns, 3);
    await readyPods(client, ns, 3);
    const pdb = await budgetReaches(client, ns, { currentHealthy: 3, desiredHealthy: 1, expectedPods: 3, disruptionsAllowed: 2 });
    expect(pdb.status?.observedGeneration).toBe(1);
    expect(pdb.status?.conditions).toEqual([
      expect.objectContaining({ type: "DisruptionAllowed", status: "True", reason: "SufficientPods", observedGeneration: 1 }),
    ]);
    // kubectl's columns.
    const table = (await (
      await fetch(`${cluster.url}/apis/policy/v1/namespaces/${ns}/poddisruptionbudgets`, {
        headers: { Accept: "application/json;as=Table;v=v1;g=meta.k8s.io" },
      })
    ).json()) as { columnDefinitions: Array<{ name: string }>; rows: Array<{ cells: unknown[] }> };
    expect(table.columnDefinitions.map((c) => c.name)).toEqual(["Name", "Min Available", "Max Unavailable", "Allowed Disruptions", "Age"]);
    expect(table.rows[0]!.cells.slice(0, 4)).toEqual(["foo", "1", "N/A", 2]);
  });

  it("should block an eviction until the PDB is updated to allow it", async () => {
    const ns = await namespace(client);
    await client.create(PDBS, ns, { metadata: { name: "foo" }, spec: { minAvailable: 3, selector: { matchLabels: { foo: "bar" } } } });
    await replicaSet(client, ns, 3);
    const [victim] = await readyPods(client, ns, 3);
    await budgetReaches(client, ns, { currentHealthy: 3, disruptionsAllowed: 0 });
    const denied = await evict(cluster.url, ns, victim!.metadata!.name!);
    expect(denied.status).toBe(429);
    expect(denied.json).toMatchObject({
      status: "Failure",
      reason: "TooManyRequests",
      message: "Cannot evict pod as it would violate the pod's disruption budget.",
    });
    expect(denied.json.details?.causes).toEqual([
      { reason: "DisruptionBudget", message: "The disruption budget foo needs 3 healthy pods and has 3 currently" },
    ]);

    await client.patch(PDBS, ns, "foo", { spec: { minAvailable: 2 } }, "application/merge-patch+json");
    await budgetReaches(client, ns, { observedGeneration: 2, disruptionsAllowed: 1 });
    const allowed = await evict(cluster.url, ns, victim!.metadata!.name!);
    expect(allowed).toMatchObject({ status: 201, json: { status: "Success" } });
    // The eviction took the one disruption: the next pod waits until the replacement is ready.
    const [, second] = (await client.list<Pod & KubeObject>(PODS, ns)).items.filter((p) => p.metadata?.name !== victim!.metadata!.name);
    expect((await evict(cluster.url, ns, second!.metadata!.name!)).status).toBe(429);
    await readyPods(client, ns, 3);
    await budgetReaches(client, ns, { currentHealthy: 3, disruptionsAllowed: 1 });
    expect((await evict(cluster.url, ns, second!.metadata!.name!)).status).toBe(201);
  });

  // The "evictions" table: whether the first eviction is denied.
  const table: Array<{ description: string; spec: Record<string, unknown>; pods: number; replicaSet?: boolean; shouldDeny: boolean }> = [
    { description: "no PDB", spec: {}, pods: 1, shouldDeny: false },
    { description: "too few pods, absolute", spec: { minAvailable: 2 }, pods: 2, shouldDeny: true },
    { description: "enough pods, absolute", spec: { minAvailable: 2 }, pods: 3, shouldDeny: false },
    { description: "enough pods, replicaSet, percentage", spec: { minAvailable: "90%" }, pods: 10, replicaSet: true, shouldDeny: false },
    { description: "too few pods, replicaSet, percentage", spec: { minAvailable: "100%" }, pods: 5, replicaSet: true, shouldDeny: true },
    {
      description: "maxUnavailable allow single eviction, percentage",
      spec: { maxUnavailable: "10%" },
      pods: 10,
      replicaSet: true,
      shouldDeny: false,
    },
    { description: "maxUnavailable deny evictions, integer", spec: { maxUnavailable: 0 }, pods: 5, replicaSet: true, shouldDeny: true },
  ];
  for (const { description, spec, pods, replicaSet: useRS, shouldDeny } of table) {
    it(`evictions: ${description} => should ${shouldDeny ? "not " : ""}allow an eviction`, async () => {
      const ns = await namespace(client);
      if (Object.keys(spec).length > 0)
        await client.create(PDBS, ns, { metadata: { name: "foo" }, spec: { ...spec, selector: { matchLabels: { foo: "bar" } } } });
      if (useRS === true) await replicaSet(client, ns, pods);
      else
        for (let i = 0; i < pods; i++)
          await client.create(PODS, ns, { metadata: { name: `pod-${i}`, labels: { foo: "bar" } }, spec: podSpec() });
      const [victim] = await readyPods(client, ns, pods);
      if (Object.keys(spec).length > 0) await budgetReaches(client, ns, { currentHealthy: pods });
      const answer = await evict(cluster.url, ns, victim!.metadata!.name!);
      expect(answer.status).toBe(shouldDeny ? 429 : 201);
      if (!shouldDeny && Object.keys(spec).length > 0) {
        // The budget records the eviction until the pod is gone.
        const after = await client.get<Budget>(PDBS, ns, "foo");
        expect(after.status?.disruptionsAllowed).toBe(0);
      }
    });
  }

  it("fails safe on a budget it cannot compute, and evictions wait while the budget's status is older than its spec", async () => {
    const ns = await namespace(client);
    // A pod controlled by something that has no scale (a ConfigMap here): the expected count cannot be had.
    const owner = await client.create({ group: "", version: "v1", resource: "configmaps", namespaced: true }, ns, {
      metadata: { name: "owner" },
    });
    const ownerReferences = [{ apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: owner.metadata?.uid ?? "", controller: true }];
    await client.create(PODS, ns, { metadata: { name: "p", labels: { foo: "bar" }, ownerReferences }, spec: podSpec() });
    await readyPods(client, ns, 1);
    await client.create(PDBS, ns, { metadata: { name: "foo" }, spec: { maxUnavailable: 1, selector: { matchLabels: { foo: "bar" } } } });
    const failed = await eventually("the SyncFailed condition", async () => {
      const pdb = await client.get<Budget>(PDBS, ns, "foo");
      return pdb.status?.conditions?.some((c) => c.reason === "SyncFailed") === true ? pdb : undefined;
    });
    expect(failed.status).toMatchObject({ disruptionsAllowed: 0 });
    expect(failed.status?.observedGeneration ?? 0).toBe(0);
    expect(failed.status?.conditions).toEqual([
      expect.objectContaining({
        type: "DisruptionAllowed",
        status: "False",
        reason: "SyncFailed",
        message: 'found no controllers for pod "p"',
      }),
    ]);
    const stale = await evict(cluster.url, ns, "p");
    expect(stale).toMatchObject({
      status: 429,
      json: { reason: "TooManyRequests", message: "Cannot evict pod as it would violate the pod's disruption budget." },
    });
    expect(stale.json.details).toEqual({
      causes: [{ reason: "DisruptionBudget", message: "The disruption budget foo is still being processed by the server." }],
      retryAfterSeconds: 10,
    });
  });

  it("answers 500 for a pod that two budgets select, as the eviction subresource supports one", async () => {
    const ns = await namespace(client);
    await client.create(PODS, ns, { metadata: { name: "p", labels: { foo: "bar" } }, spec: podSpec() });
    await readyPods(client, ns, 1);
    await client.create(PDBS, ns, { metadata: { name: "foo" }, spec: { minAvailable: 0, selector: { matchLabels: { foo: "bar" } } } });
    await client.create(PDBS, ns, {
      metadata: { name: "bar" },
      spec: { minAvailable: 0, selector: { matchExpressions: [{ key: "foo", operator: "Exists" }] } },
    });
    // An empty selector matches no pod here, as in the eviction handler upstream.
    await client.create(PDBS, ns, { metadata: { name: "everything" }, spec: { minAvailable: 5, selector: {} } });
    const two = await evict(cluster.url, ns, "p");
    expect(two).toMatchObject({
      status: 500,
      json: {
        status: "Failure",
        message: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
      },
    });
    await client.delete(PDBS, ns, "bar");
    await budgetReaches(client, ns, { disruptionsAllowed: 1 });
    expect((await evict(cluster.url, ns, "p")).status).toBe(201);
  });
});

describe("unhealthyPodEvictionPolicy", () => {
  let cluster: SimCluster;
  let client: KubeClient;
  afterEach(async () => {
    client?.close();
    await cluster?.close();
  });

  /** Three pods pinned to the node that is then stopped (so they go unready), and `healthy` more on the other. */
  async function unreadyPods(healthy: number, spec: Record<string, unknown>): Promise<string> {
    // The running node renews its Lease well within the grace period; only the stopped one goes unready.
    cluster = await startSimCluster({ nodes: 2, leaseRenewIntervalMs: 100, nodeMonitorGracePeriodMs: 1_000, nodeMonitorPeriodMs: 100 });
    client = new KubeClient({ server: cluster.url });
    const ns = await namespace(client);
    const [down, up] = cluster.nodes;
    for (let i = 0; i < 3; i++)
      await client.create(PODS, ns, { metadata: { name: `unready-${i}`, labels: { foo: "bar" } }, spec: podSpec({ nodeName: down }) });
    for (let i = 0; i < healthy; i++)
      await client.create(PODS, ns, { metadata: { name: `ready-${i}`, labels: { foo: "bar" } }, spec: podSpec({ nodeName: up }) });
    await readyPods(client, ns, 3 + healthy);
    await client.create(PDBS, ns, { metadata: { name: "foo" }, spec: { ...spec, selector: { matchLabels: { foo: "bar" } } } });
    await cluster.stopNode(down!);
    await budgetReaches(client, ns, { currentHealthy: healthy });
    return ns;
  }

  it("should not evict unready pods with IfHealthyBudget (or the default) while the budget is not met", async () => {
    const ns = await unreadyPods(0, { minAvailable: 1, unhealthyPodEvictionPolicy: "IfHealthyBudget" });
    expect((await evict(cluster.url, ns, "unready-0")).status).toBe(429);
    await client.patch(PDBS, ns, "foo", { spec: { unhealthyPodEvictionPolicy: null } }, "application/merge-patch+json");
    await budgetReaches(client, ns, { observedGeneration: 2 });
    expect((await evict(cluster.url, ns, "unready-0")).status).toBe(429);
  });

  it("should evict unready pods with AlwaysAllow, without taking from the budget", async () => {
    const ns = await unreadyPods(0, { minAvailable: 1, unhealthyPodEvictionPolicy: "AlwaysAllow" });
    expect((await evict(cluster.url, ns, "unready-0")).status).toBe(201);
    const pod = await client.get<Pod & KubeObject>(PODS, ns, "unready-0");
    expect(pod.metadata?.deletionTimestamp).toBeDefined();
    expect((await client.get<Budget>(PDBS, ns, "foo")).status?.disruptedPods).toBeUndefined();
  });

  it("should evict unready pods with IfHealthyBudget once the budget is met by the healthy ones", async () => {
    const ns = await unreadyPods(2, { minAvailable: 2 });
    const before = await budgetReaches(client, ns, { currentHealthy: 2, desiredHealthy: 2, disruptionsAllowed: 0 });
    const unreadyAnswer = await evict(cluster.url, ns, "unready-1");
    expect(unreadyAnswer).toMatchObject({ status: 201 });
    // A healthy pod is still guarded.
    expect((await evict(cluster.url, ns, "ready-0")).status).toBe(429);
    expect((await client.get<Budget>(PDBS, ns, "foo")).status?.disruptedPods ?? {}).toEqual(before.status?.disruptedPods ?? {});
  });
});
