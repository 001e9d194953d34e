import { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import type { Node } from "../src/resources/nodes.js";
import type { Pod } from "../src/resources/pods.js";
import { NODES, PODS } from "../src/refs.js";
import { useSimClusterPerTest } from "./fixture.js";
import { eventually } from "./kubectl.js";
import { httpFailure, httpGet } from "./traffic-client.js";

// The simulated kubelets in worker threads (`nodeThreads`): every node operation of the cluster
// reaches the thread that runs the node's kubelet, over the real HTTP API as with kubelets in the
// main thread.

const sim = useSimClusterPerTest();

const ready = (node: Node) => node.status?.conditions?.find((c) => c.type === "Ready")?.status;

/** Whether the IPv4 address `ip` lies in the /24 `cidr` (the ranges nodes get by default). */
function inCidr24(ip: string, cidr: string): boolean {
  const [network] = cidr.split("/");
  return cidr.endsWith("/24") && ip.split(".").slice(0, 3).join(".") === network!.split(".").slice(0, 3).join(".");
}

/** Waits for the node to report Ready: on a loaded machine a late Lease renewal can make it Unknown for a moment. */
async function readyNode(c: KubeClient, name: string): Promise<Node> {
  return eventually(`${name} Ready`, async () => {
    const node = await c.get<Node>(NODES, undefined, name);
    return ready(node) === "True" ? node : undefined;
  });
}

async function runPodOn(c: KubeClient, name: string, node: string): Promise<Pod> {
  await c.create(PODS, "default", {
    metadata: { name },
    spec: { nodeSelector: { "kubernetes.io/hostname": node }, containers: [{ name: "c1", image: "x" }] },
  });
  return eventually(`${name} Running`, async () => {
    const pod = await c.get<Pod>(PODS, "default", name);
    return pod.status?.phase === "Running" ? pod : undefined;
  });
}

describe("startSimCluster({ nodeThreads })", { timeout: 60_000 }, () => {
  it("runs the kubelets in worker threads: pods Running on their node's range, every node operation, close ends the threads", async () => {
    const cluster = await sim.start({
      nodes: 4,
      nodeThreads: 2,
      leaseRenewIntervalMs: 100,
      nodeMonitorGracePeriodMs: 2000,
      nodeMonitorPeriodMs: 100,
    });
    const c = sim.client;
    const threads = cluster.nodeThreads;
    expect(threads).toHaveLength(2);
    expect(threads.map((t) => t.nodes.length)).toEqual([2, 2]);
    expect(threads.flatMap((t) => t.nodes).sort()).toEqual(["sim-node-1", "sim-node-2", "sim-node-3", "sim-node-4"]);
    expect(threads.every((t) => t.running && t.threadId > 0)).toBe(true);
    const threadIds = threads.map((t) => t.threadId);

    for (const name of cluster.nodes) {
      const pod = await runPodOn(c, `p-${name}`, name);
      const node = await readyNode(c, name);
      expect(pod.spec?.nodeName).toBe(name);
      expect(inCidr24(pod.status?.podIP ?? "", node.spec?.podCIDR ?? "")).toBe(true);
    }
    expect(threads.every((t) => t.eventLoopUtilization().active > 0)).toBe(true);
    // Each thread's own heap (its kubelets, watches and clients), apart from this thread's.
    const heaps = await Promise.all(threads.map((t) => t.heapUsed()));
    expect(heaps.every((bytes) => bytes > 2 ** 20 && bytes < process.memoryUsage().heapUsed)).toBe(true);

    // A stopped node's kubelet no longer posts: the node lifecycle controller marks it, then it comes back.
    await cluster.stopNode("sim-node-2");
    expect(cluster.nodes).not.toContain("sim-node-2");
    await eventually("sim-node-2 Unknown", async () =>
      ready(await c.get<Node>(NODES, undefined, "sim-node-2")) === "Unknown" ? true : undefined,
    );
    await cluster.startNode("sim-node-2");
    await readyNode(c, "sim-node-2");
    await eventually("sim-node-2 untainted", async () =>
      ((await c.get<Node>(NODES, undefined, "sim-node-2")).spec?.taints ?? []).length === 0 ? true : undefined,
    );

    const bootID = (await c.get<Node>(NODES, undefined, "sim-node-3")).status?.nodeInfo?.["bootID"];
    await cluster.rebootNode("sim-node-3");
    const rebooted = await c.get<Node>(NODES, undefined, "sim-node-3");
    expect(rebooted.status?.nodeInfo?.["bootID"]).not.toBe(bootID);
    await eventually("p-sim-node-3 restarted", async () =>
      (await c.get<Pod>(PODS, "default", "p-sim-node-3")).status?.containerStatuses?.[0]?.restartCount === 1 ? true : undefined,
    );

    await cluster.setNodeCapacity("sim-node-1", { cpu: "16" });
    expect((await c.get<Node>(NODES, undefined, "sim-node-1")).status?.capacity?.["cpu"]).toBe("16");
    // The capacity a node was given stays with it when it is stopped and started in its thread.
    await cluster.stopNode("sim-node-1");
    await cluster.startNode("sim-node-1");
    expect((await c.get<Node>(NODES, undefined, "sim-node-1")).status?.capacity?.["cpu"]).toBe("16");

    await cluster.upgradeNode("sim-node-4", "v1.33.1");
    expect((await c.get<Node>(NODES, undefined, "sim-node-4")).status?.nodeInfo?.["kubeletVersion"]).toBe("v1.33.1");

    // Errors of a node's thread come back as errors.
    await expect(cluster.setNodeCapacity("sim-node-1", { cpu: "lots" })).rejects.toThrow('invalid quantity "lots" for cpu');
    await expect(cluster.stopNode("sim-node-9")).rejects.toThrow("no node sim-node-9 in this cluster");

    await cluster.removeNode("sim-node-2");
    await expect(c.get(NODES, undefined, "sim-node-2")).rejects.toMatchObject({ code: 404 });
    expect(threads.flatMap((t) => t.nodes)).not.toContain("sim-node-2");
    // A new node goes to the thread that hosts the fewest.
    const added = await cluster.addNode();
    expect(threads.map((t) => t.nodes.length)).toEqual([2, 2]);
    await runPodOn(c, "p-added", added);

    await cluster.close();
    expect(threads.map((t) => t.running)).toEqual([false, false]);
    expect(threads.map((t) => t.threadId)).toEqual(threadIds);
  });

  it("serves traffic mode from the main thread while the kubelets run in a thread", async () => {
    const cluster = await sim.start({ nodes: 1, nodeThreads: 1, traffic: true });
    const c = sim.client;
    const pod = await runPodOn(c, "web", "sim-node-1");
    expect(pod.status?.podIP).toMatch(/^127\./);
    const ip = pod.status!.podIP!;
    expect(await eventually("the pod answering", () => httpGet(ip, 8080, "/hostname").then((r) => r.body))).toBe("web");
    await cluster.stopNode("sim-node-1");
    expect(await httpFailure(ip, 8080, "/hostname")).toBe("ECONNREFUSED");
  });

  it("refuses what cannot be sent to a thread, and a number of threads that is not one", async () => {
    await expect(sim.start({ nodeThreads: 1, imagePullFails: () => false })).rejects.toThrow(
      "imagePullFails cannot be used with nodeThreads",
    );
    await expect(sim.start({ nodeThreads: 1.5 })).rejects.toThrow("invalid nodeThreads 1.5");
    await expect(sim.start({ nodeThreads: -1 })).rejects.toThrow("invalid nodeThreads -1");
  });

  it("keeps every kubelet in the main thread by default", async () => {
    const cluster = await sim.start({ nodes: 1 });
    expect(cluster.nodeThreads).toEqual([]);
  });
});

describe("the built package's node threads", { timeout: 60_000 }, () => {
  // The worker is a file of its own in dist/: both entries must find it.
  const run = async (format: "esm" | "cjs") => {
    const load = format === "esm" ? `await import("@kubekit/sim-cluster")` : `require("@kubekit/sim-cluster")`;
    const script = `(async () => {
      const { startSimCluster } = ${load};
      const cluster = await startSimCluster({ nodes: 2, nodeThreads: 1 });
      const nodes = cluster.nodeThreads.map((t) => t.nodes);
      await cluster.close();
      console.log(JSON.stringify({ nodes, running: cluster.nodeThreads.map((t) => t.running) }));
    })().catch((error) => { console.error(error); process.exit(1); });`;
    // A CommonJS script either way: `import()` loads the ESM entry, `require` the CJS one.
    const { stdout } = await promisify(execFile)(process.execPath, ["-e", script], { cwd: join(import.meta.dirname, "..") });
    return JSON.parse(stdout) as unknown;
  };
  it.each(["esm", "cjs"] as const)("runs the kubelets in a thread from the %s entry", async (format) => {
    expect(await run(format)).toEqual({ nodes: [["sim-node-1", "sim-node-2"]], running: [false] });
  });
});
