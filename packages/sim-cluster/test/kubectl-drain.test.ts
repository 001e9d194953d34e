import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Informer, KubeClient } from "@kubekit/generic-controlplane/controllers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSimCluster, type SimCluster } from "../src/index.js";
import { eventually, kubectl } from "./kubectl.js";

let cluster: SimCluster;
let dir: string;
let kubeconfig: string;
const run = (...args: string[]) => kubectl(kubeconfig, args, 120_000);

beforeAll(async () => {
  cluster = await startSimCluster({ nodes: 2 });
  dir = await mkdtemp(join(tmpdir(), "sim-cluster-drain-"));
  kubeconfig = join(dir, "kubeconfig");
  await cluster.writeKubeconfig(kubeconfig);
});

afterAll(async () => {
  await cluster?.close();
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
});

interface PodList {
  items: Array<{
    metadata: { name: string; deletionTimestamp?: string };
    spec: { nodeName?: string };
    status: { conditions?: Array<{ type: string; status: string }> };
  }>;
}

const isReady = (pod: PodList["items"][number]) =>
  pod.metadata.deletionTimestamp === undefined && pod.status.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true;

describe("kubectl drain with a PodDisruptionBudget", () => {
  it("evicts a Deployment's pods from the node one at a time, as the budget allows, and completes", async () => {
    // All three replicas on sim-node-1: sim-node-2 is cordoned while they are placed.
    expect((await run("cordon", "sim-node-2")).code).toBe(0);
    expect((await run("create", "deployment", "web", "--image=x", "--replicas=3")).code).toBe(0);
    expect((await run("rollout", "status", "deployment/web", "--timeout=30s")).code).toBe(0);
    const before = JSON.parse((await run("get", "pods", "-l", "app=web", "-o", "json")).stdout) as PodList;
    expect(before.items.map((p) => p.spec.nodeName)).toEqual(["sim-node-1", "sim-node-1", "sim-node-1"]);

    const created = await run("create", "pdb", "web", "--selector=app=web", "--max-unavailable=1");
    expect(created).toEqual({ code: 0, stdout: "poddisruptionbudget.policy/web created\n", stderr: "" });
    await eventually("the budget to allow one disruption", async () =>
      (await run("get", "pdb", "web", "-o", "jsonpath={.status.disruptionsAllowed}")).stdout === "1" ? true : undefined,
    );
    const table = (await run("get", "pdb", "web")).stdout.split("\n");
    expect(table[0]).toMatch(/^NAME\s+MIN AVAILABLE\s+MAX UNAVAILABLE\s+ALLOWED DISRUPTIONS\s+AGE$/);
    expect(table[1]).toMatch(/^web\s+N\/A\s+1\s+1\s+\S+$/);
    expect((await run("uncordon", "sim-node-2")).code).toBe(0);

    // Watch the Deployment's pods throughout: never fewer than two ready (maxUnavailable 1).
    const client = new KubeClient({ server: cluster.url });
    const pods = new Informer(
      client,
      { group: "", version: "v1", resource: "pods", namespaced: true, kind: "Pod" },
      { labelSelector: "app=web" },
    );
    let fewestReady = Number.POSITIVE_INFINITY;
    let synced = false;
    // Counted from the synced cache on: while the first list fills it, it holds only some of the pods.
    const observe = () => {
      if (synced) fewestReady = Math.min(fewestReady, (pods.cache.list() as unknown as PodList["items"]).filter(isReady).length);
    };
    pods.addEventHandler({ add: observe, update: observe, delete: observe });
    pods.start();
    try {
      await pods.waitForSync();
      synced = true;
      observe();
      expect(fewestReady).toBe(3);
      const drain = await run("drain", "sim-node-1", "--ignore-daemonsets", "--delete-emptydir-data", "--timeout=90s");
      expect(drain.code).toBe(0);
      expect(drain.stdout).toContain("node/sim-node-1 cordoned");
      expect(drain.stdout).toContain("node/sim-node-1 drained");
      for (const pod of before.items) expect(drain.stdout).toContain(`pod/${pod.metadata.name} evicted`);
      // The budget held the second and third evictions back until a replacement was ready.
      expect(drain.stderr).toMatch(
        /error when evicting pods\/"web-[a-z0-9-]+" -n "default" \(will retry after 5s\): Cannot evict pod as it would violate the pod's disruption budget\./,
      );

      const after = await eventually("three ready replicas on sim-node-2", async () => {
        const list = JSON.parse((await run("get", "pods", "-l", "app=web", "-o", "json")).stdout) as PodList;
        return list.items.length === 3 && list.items.every((p) => isReady(p) && p.spec.nodeName === "sim-node-2") ? list : undefined;
      });
      expect(after.items.map((p) => p.metadata.name).filter((name) => before.items.some((b) => b.metadata.name === name))).toEqual([]);
      expect(fewestReady).toBeGreaterThanOrEqual(2);
      expect((await run("get", "node", "sim-node-1", "-o", "jsonpath={.spec.unschedulable}")).stdout).toBe("true");
    } finally {
      await pods.stop();
      client.close();
    }
  }, 150_000);
});
