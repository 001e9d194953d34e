import type { KubeObject } from "@kubekit/generic-controlplane";
import { EVENTS } from "@kubekit/generic-controlplane/controllers";
import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import type { Pod } from "../src/resources/pods.js";
import { PODS } from "../src/refs.js";
import { useSimClusterPerTest } from "./fixture.js";
import { eventually } from "./kubectl.js";

// The scheduler in a worker thread (`schedulerThread`), as kube-scheduler beside kube-apiserver:
// it binds pods, reports those that fit nowhere and writes its events over the real HTTP API, as
// `system:kube-scheduler`.

const sim = useSimClusterPerTest();

type Event = KubeObject & { reason?: string; message?: string; source?: { component?: string }; involvedObject?: { name?: string } };

const scheduledCondition = (pod: Pod) => pod.status?.conditions?.find((c) => c.type === "PodScheduled");

/** Requests flow control dispatched per priority level and flow schema (`apiserver_flowcontrol_dispatched_requests_total`). */
async function dispatched(url: string, levelAndSchema: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  let total = 0;
  for (const line of text.split("\n")) {
    if (!line.startsWith("apiserver_flowcontrol_dispatched_requests_total{")) continue;
    const level = /priority_level="([^"]*)"/.exec(line)?.[1];
    const schema = /flow_schema="([^"]*)"/.exec(line)?.[1];
    if (`${level}/${schema}` === levelAndSchema) total += Number(line.split(" ").pop());
  }
  return total;
}

async function eventsAbout(namespace: string, pod: string): Promise<Event[]> {
  const events = await sim.client.list(EVENTS, namespace, { fieldSelector: `involvedObject.name=${pod}` });
  return events.items as Event[];
}

describe("startSimCluster({ schedulerThread: true })", { timeout: 60_000 }, () => {
  it("schedules from its own thread as system:kube-scheduler, reports a pod that fits nowhere until a node has room, and close ends the thread", async () => {
    const cluster = await sim.start({ nodes: 3, schedulerThread: true });
    const thread = cluster.schedulerThread!;
    expect(thread.running).toBe(true);
    expect(thread.threadId).toBeGreaterThan(0);
    const namespace = await sim.newNamespace();

    for (const name of ["a", "b", "c"])
      await sim.client.create(PODS, namespace, {
        metadata: { name },
        spec: { containers: [{ name: "c", image: "x", resources: { requests: { cpu: "1" } } }] },
      });
    for (const name of ["a", "b", "c"]) {
      const pod = await eventually(`${name} Running`, async () => {
        const pod = await sim.client.get<Pod>(PODS, namespace, name);
        return pod.status?.phase === "Running" ? pod : undefined;
      });
      expect(cluster.nodes).toContain(pod.spec?.nodeName);
      expect(scheduledCondition(pod)?.status).toBe("True");
      const scheduled = await eventually(`${name}'s Scheduled event`, async () =>
        (await eventsAbout(namespace, name)).find((e) => e.reason === "Scheduled"),
      );
      expect(scheduled.source?.component).toBe("default-scheduler");
      expect(scheduled.message).toBe(`Successfully assigned ${namespace}/${name} to ${pod.spec?.nodeName}`);
    }
    // Its list, watches and bindings: kube-scheduler's flow schema, not the controllers' or anonymous ones.
    expect(await dispatched(cluster.url, "workload-high/kube-scheduler")).toBeGreaterThan(0);
    expect(thread.eventLoopUtilization().active).toBeGreaterThan(0);

    await sim.client.create(PODS, namespace, {
      metadata: { name: "big" },
      spec: { containers: [{ name: "c", image: "x", resources: { requests: { cpu: "8" } } }] },
    });
    const pending = await eventually("big Unschedulable", async () => {
      const pod = await sim.client.get<Pod>(PODS, namespace, "big");
      return scheduledCondition(pod)?.status === "False" ? pod : undefined;
    });
    expect(pending.spec?.nodeName).toBeUndefined();
    expect(scheduledCondition(pending)).toMatchObject({
      reason: "Unschedulable",
      message: "0/3 nodes are available: 3 Insufficient cpu.",
    });
    const failed = await eventually("big's FailedScheduling event", async () =>
      (await eventsAbout(namespace, "big")).find((e) => e.reason === "FailedScheduling"),
    );
    expect(failed.message).toBe("0/3 nodes are available: 3 Insufficient cpu.");

    // A node with room is a cluster event: the pod is attempted again and bound there.
    const roomy = await cluster.addNode({ capacity: { cpu: "16" } });
    const bound = await eventually("big Running", async () => {
      const pod = await sim.client.get<Pod>(PODS, namespace, "big");
      return pod.status?.phase === "Running" ? pod : undefined;
    });
    expect(bound.spec?.nodeName).toBe(roomy);
    expect(scheduledCondition(bound)?.status).toBe("True");
    // Its heap holds at least the informers' caches; a closed thread measures nothing.
    expect(await thread.heapUsed()).toBeGreaterThan(1_000_000);

    await cluster.close();
    expect(thread.running).toBe(false);
    expect(await thread.heapUsed()).toBe(0);
    expect(thread.error).toBeUndefined();
  });

  it("keeps the scheduler among the controllers by default, and refuses a setting that is not a boolean", async () => {
    await expect(sim.start({ schedulerThread: "yes" as unknown as boolean })).rejects.toThrow('invalid schedulerThread "yes"');
    const cluster = await sim.start({ nodes: 1 });
    expect(cluster.schedulerThread).toBeUndefined();
  });
});

describe("the built package's scheduler thread", { timeout: 60_000 }, () => {
  // The worker is a file of its own in dist/: both entries must find it.
  const run = async (format: "esm" | "cjs") => {
    const load = format === "esm" ? `await import("@kubekit/sim-cluster")` : `require("@kubekit/sim-cluster")`;
    const script = `(async () => {
      const { startSimCluster } = ${load};
      const cluster = await startSimCluster({ nodes: 1, schedulerThread: true });
      const headers = { "content-type": "application/json" };
      const pod = { metadata: { name: "p" }, spec: { containers: [{ name: "c", image: "x" }] } };
      await fetch(cluster.url + "/api/v1/namespaces/default/pods", { method: "POST", headers, body: JSON.stringify(pod) });
      let nodeName;
      for (let i = 0; i < 200 && !nodeName; i++) {
        nodeName = (await (await fetch(cluster.url + "/api/v1/namespaces/default/pods/p")).json()).spec.nodeName;
        if (!nodeName) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await cluster.close();
      console.log(JSON.stringify({ nodeName, running: cluster.schedulerThread.running }));
    })().catch((error) => { console.error(error); process.exit(1); });`;
    // A CommonJS script either way: `import()` loads the ESM entry, `require` the CJS one.
    const { stdout } = await promisify(execFile)(process.execPath, ["-e", script], { cwd: join(import.meta.dirname, "..") });
    return JSON.parse(stdout) as unknown;
  };
  it.each(["esm", "cjs"] as const)("schedules from a thread from the %s entry", async (format) => {
    expect(await run(format)).toEqual({ nodeName: "sim-node-1", running: false });
  });
});
