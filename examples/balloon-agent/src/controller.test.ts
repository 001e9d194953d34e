import { ControllerManager, KubeClient } from "@kubekit/generic-controlplane/controllers";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { balloonAgentController } from "./controller.js";
import { AgentMetrics } from "./metrics.js";
import { startTestCluster, type TestCluster } from "./test-cluster.js";

interface Agent {
  readonly manager: ControllerManager;
  readonly registry: Registry;
  readonly client: KubeClient;
  stop(): Promise<void>;
}

function startAgent(sim: TestCluster, identity: string): Agent {
  const client = new KubeClient(sim.cluster.url);
  const registry = new Registry();
  const manager = new ControllerManager({
    client,
    controllers: ["balloon"],
    extraControllers: [
      balloonAgentController({
        client,
        metrics: new AgentMetrics(registry),
        retryAfterMs: 60_000,
        resizeTimeoutMs: 2_000,
        pollIntervalMs: 50,
      }),
    ],
    leaderElection: {
      namespace: "kube-system",
      name: "balloon-agent",
      identity,
      leaseDurationMs: 2_000,
      renewDeadlineMs: 1_500,
      retryPeriodMs: 200,
    },
    registry,
  });
  manager.start();
  return {
    manager,
    registry,
    client,
    async stop() {
      await manager.stop();
      client.close();
    },
  };
}

async function sample(registry: Registry, metric: string, labels: Record<string, string>): Promise<number | undefined> {
  const found = (await registry.getSingleMetric(metric)?.get())?.values.find((v) =>
    Object.entries(labels).every(([k, value]) => v.labels[k] === value),
  );
  return found?.value;
}

describe("the balloon agent on a simulated cluster (parts that need no kubelet resize)", () => {
  let sim: TestCluster;
  const agents: Agent[] = [];

  beforeAll(async () => {
    sim = await startTestCluster(["node-a", "node-b"], { cpu: "8", memory: "32Gi" });
    await sim.balloon("node-a", { cpu: "2", memory: "8Gi" });
    await sim.workload("node-a", "web", { cpu: "5", memory: "4Gi" });
    agents.push(startAgent(sim, "agent-1"), startAgent(sim, "agent-2"));
  });

  afterAll(async () => {
    await Promise.all(agents.map((a) => a.stop()));
    await sim?.close();
  });

  const leader = () => sim.until("a leader", () => Promise.resolve(agents.find((a) => a.manager.running)));

  it("elects one leader and exports real and effective node size per resource", async () => {
    const agent = await leader();
    expect(agents.filter((a) => a.manager.running)).toHaveLength(1);
    await sim.until("node-a's metrics", () => sample(agent.registry, "balloon_node_effective", { node: "node-a", resource: "cpu" }));
    const value = (metric: string, node: string, resource: string) => sample(agent.registry, metric, { node, resource });
    expect(await value("balloon_node_allocatable", "node-a", "cpu")).toBe(8);
    expect(await value("balloon_node_effective", "node-a", "cpu")).toBe(6);
    expect(await value("balloon_node_effective", "node-a", "memory")).toBe(24 * 2 ** 30);
    expect(await value("balloon_node_balloon_allocated", "node-a", "memory")).toBe(8 * 2 ** 30);
    expect(await value("balloon_node_effective", "node-b", "cpu")).toBe(8);
    const text = await agent.registry.metrics();
    expect(text).toContain('balloon_node_capacity{node="node-a",resource="memory"} 34359738368');
  });

  it("publishes the effective size where autoscalers look: an annotation on the Node and the metric with the node's labels", async () => {
    const agent = await leader();
    await sim.patchNode("node-a", {
      metadata: { labels: { "topology.kubernetes.io/zone": "zone-1", "node.kubernetes.io/instance-type": "sim.8x32" } },
    });
    const annotated = await sim.until("node-a's effective annotation", async () => {
      const value = (await sim.node("node-a")).metadata?.annotations?.["balloon.kubekit.dev/effective"];
      return value === "cpu=6,memory=24Gi" ? value : undefined;
    });
    expect(annotated).toBe("cpu=6,memory=24Gi");
    // A node without a balloon offers all of it.
    await sim.until("node-b's effective annotation", async () =>
      (await sim.node("node-b")).metadata?.annotations?.["balloon.kubekit.dev/effective"] === "cpu=8,memory=32Gi" ? true : undefined,
    );
    const labelled = await sim.until("the effective metric with the zone and instance type", async () =>
      (await agent.registry.getSingleMetric("balloon_node_effective")?.get())?.values.find(
        (v) => v.labels.node === "node-a" && v.labels.resource === "cpu" && v.labels.label_topology_kubernetes_io_zone === "zone-1",
      ),
    );
    expect(labelled.value).toBe(6);
    expect(labelled.labels.label_node_kubernetes_io_instance_type).toBe("sim.8x32");
    // One series per node and resource: the old, unlabelled one is gone.
    const series = (await agent.registry.getSingleMetric("balloon_node_effective")?.get())?.values.filter(
      (v) => v.labels.node === "node-a" && v.labels.resource === "cpu",
    );
    expect(series).toHaveLength(1);
  });

  it("refuses a target that would displace a running pod, records it on the Node and counts it", async () => {
    const agent = await leader();
    await sim.target("node-a", "cpu=2");
    await sim.until("a refused resize", () => sample(agent.registry, "balloon_resizes_total", { outcome: "refused" }));
    const events = await sim.events("node-a");
    const refused = events.find((e) => e.reason === "BalloonResizeRefused");
    expect(refused).toMatchObject({ type: "Warning", source: { component: "balloon-agent" } });
    expect(refused?.message).toContain("cpu: the balloon needs 6 but other pods request 5 of 8 allocatable, leaving 3");
    expect(await sample(agent.registry, "balloon_node_target", { node: "node-a", resource: "cpu" })).toBe(2);
    const balloon = await sim.pod("kube-system", "node-balloon-node-a");
    expect(balloon.spec?.containers[0]?.resources?.requests).toEqual({ cpu: "2", memory: "8Gi" });
    // The standby did nothing.
    const standby = agents.find((a) => a !== agent);
    expect(await sample(standby!.registry, "balloon_resizes_total", { outcome: "refused" })).toBeUndefined();
  });

  it("names a malformed target annotation in a Warning on the Node", async () => {
    await sim.target("node-b", "cpu=4Gi");
    const event = await sim.until("an InvalidBalloonTarget event", async () =>
      (await sim.events("node-b")).find((e) => e.reason === "InvalidBalloonTarget"),
    );
    expect(event.message).toBe(
      'balloon.kubekit.dev/target=cpu=4Gi: target cpu: "4Gi" uses a binary (byte) suffix; CPU is counted in cores, e.g. 4 or 500m',
    );
    // Another change to the node (a label) reconciles it again, but the same bad value is not reported twice.
    await sim.patchNode("node-b", { metadata: { labels: { touched: "1" } } });
    await sim.target("node-b", "memory=500m");
    await sim.until("the second bad value reported", async () => (await sim.events("node-b")).find((e) => e.message?.includes("500m")));
    const reports = (await sim.events("node-b")).filter((e) => e.reason === "InvalidBalloonTarget");
    expect(reports.map((e) => e.message?.split(":")[0])).toEqual([
      "balloon.kubekit.dev/target=cpu=4Gi",
      "balloon.kubekit.dev/target=memory=500m",
    ]);
  });
});
