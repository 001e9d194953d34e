import { ControllerManager, KubeClient } from "@kubekit/generic-controlplane/controllers";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { balloonAgentController } from "./controller.js";
import { AgentMetrics } from "./metrics.js";
import { startTestCluster, type TestCluster } from "./test-cluster.js";

function startAgent(sim: TestCluster, identity: string) {
  const client = new KubeClient(sim.cluster.url);
  const registry = new Registry();
  const manager = new ControllerManager({
    client,
    controllers: ["balloon"],
    extraControllers: [
      balloonAgentController({
        client,
        metrics: new AgentMetrics(registry),
        onShortfall: "defer",
        retryAfterMs: 500,
        resizeTimeoutMs: 1_000,
        pollIntervalMs: 20,
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
    async stop() {
      await manager.stop();
      client.close();
    },
  };
}

describe("the balloon agent with in-place resize (simulated kubelets)", () => {
  let sim: TestCluster;

  beforeAll(async () => {
    sim = await startTestCluster(["node-a", "node-b"], { cpu: "8", memory: "32Gi" });
    await sim.balloon("node-a", { cpu: "1m", memory: "1Mi" });
    await sim.balloon("node-b", { cpu: "1m", memory: "1Mi" });
    await sim.workload("node-b", "busy", { cpu: "5" });
  });

  afterAll(async () => {
    await sim?.close();
  });

  const allocatedCpu = async (name: string) => (await sim.pod("kube-system", name)).status?.containerStatuses?.[0]?.allocatedResources?.cpu;

  it("resizes a node to its annotation and restores the size after the balloon pod is recreated", async () => {
    const agent = startAgent(sim, "agent-a");
    try {
      await sim.target("node-a", "cpu=4,memory=16Gi");
      await sim.until("node-a's balloon at 4 cpus", async () => ((await allocatedCpu("node-balloon-node-a")) === "4" ? true : undefined));
      // The balloon goes (a reboot, a preemption, kubectl delete) and the DaemonSet brings it back at the template size.
      await sim.deletePod("kube-system", "node-balloon-node-a");
      await sim.until("the old balloon gone", async () => {
        const pods = await sim.pods("kube-system", "metadata.name=node-balloon-node-a");
        return pods.length === 0 ? true : undefined;
      });
      await sim.balloon("node-a", { cpu: "1m", memory: "1Mi" }, "node-balloon-node-a-2");
      await sim.until("the new balloon resized back to 4 cpus", async () =>
        (await allocatedCpu("node-balloon-node-a-2")) === "4" ? true : undefined,
      );
      const pod = await sim.pod("kube-system", "node-balloon-node-a-2");
      expect(pod.spec?.containers[0]?.resources?.requests).toEqual({ cpu: "4", memory: "16Gi" });
    } finally {
      await agent.stop();
    }
  });

  it("leaves alone a workload that carries the balloon label and a container named balloon", async () => {
    const agent = startAgent(sim, "agent-impostor");
    try {
      await sim.until("agent leading", () => Promise.resolve(agent.manager.running ? true : undefined));
      // Newer than the balloon (creation timestamps have whole seconds), as a pod created later is.
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      await sim.createPod("default", {
        metadata: { name: "workload-balloon", labels: { "balloon.kubekit.dev/balloon": "true" } },
        spec: {
          nodeName: "node-a",
          containers: [{ name: "balloon", image: "pause", resources: { requests: { cpu: "100m", memory: "64Mi" } } }],
        },
      });
      await sim.until("the impostor running", async () =>
        (await sim.pod("default", "workload-balloon")).status?.phase === "Running" ? true : undefined,
      );
      // Give the agent time to (wrongly) act on the new pod.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const impostor = await sim.pod("default", "workload-balloon");
      expect(impostor.metadata?.generation).toBe(1);
      expect(impostor.spec?.containers[0]?.resources?.requests).toEqual({ cpu: "100m", memory: "64Mi" });
      const allocated = (await agent.registry.getSingleMetric("balloon_node_balloon_allocated")?.get())?.values.find(
        (v) => v.labels.node === "node-a" && v.labels.resource === "cpu",
      );
      expect(allocated?.value).toBe(4);
    } finally {
      await agent.stop();
      await sim.deletePod("default", "workload-balloon", 0);
    }
  });

  it("keeps the node at its target across a capacity hot-plug up and down", async () => {
    const agent = startAgent(sim, "agent-hotplug");
    const balloonSize = async () => {
      const pod = await sim.pod("kube-system", "node-balloon-node-a-2");
      const allocated = pod.status?.containerStatuses?.[0]?.allocatedResources;
      return `${allocated?.cpu} ${allocated?.memory}`;
    };
    const effectiveCpu = async () =>
      (await agent.registry.getSingleMetric("balloon_node_effective")?.get())?.values.find(
        (v) => v.labels.node === "node-a" && v.labels.resource === "cpu",
      )?.value;
    try {
      await sim.until("agent leading", () => Promise.resolve(agent.manager.running ? true : undefined));
      expect(await balloonSize()).toBe("4 16Gi");
      // The machine doubles: the balloon takes the new room, the node still offers 4 CPUs and 16Gi.
      await sim.cluster.setNodeCapacity("node-a", { cpu: "16", memory: "64Gi" });
      await sim.until("the balloon grown to 12 cpus and 48Gi", async () => ((await balloonSize()) === "12 48Gi" ? true : undefined));
      await sim.until("effective cpu 4 after the hot-plug", async () => ((await effectiveCpu()) === 4 ? true : undefined));
      // And back: the balloon gives the room back before the kubelet would find it over the machine.
      await sim.cluster.setNodeCapacity("node-a", { cpu: "8", memory: "32Gi" });
      await sim.until("the balloon back at 4 cpus and 16Gi", async () => ((await balloonSize()) === "4 16Gi" ? true : undefined));
      const node = await sim.node("node-a");
      expect(node.status?.allocatable).toMatchObject({ cpu: "8", memory: "32Gi" });
      await sim.until("effective cpu 4 after the hot-unplug", async () => ((await effectiveCpu()) === 4 ? true : undefined));
    } finally {
      await agent.stop();
    }
  });

  it("restarted mid-resize, converges without submitting the resize again", async () => {
    const first = startAgent(sim, "agent-1");
    // node-b: 8 cpus, 5 used: a target of 2 needs a 6-cpu balloon, which waits Deferred.
    await sim.target("node-b", "cpu=2");
    const deferred = await sim.until("node-b's balloon Deferred", async () => {
      const pod = await sim.pod("kube-system", "node-balloon-node-b");
      return pod.status?.conditions?.some((c) => c.type === "PodResizePending" && c.reason === "Deferred") ? pod : undefined;
    });
    expect(deferred.spec?.containers[0]?.resources?.requests?.cpu).toBe("6");
    const generation = deferred.metadata?.generation;
    await first.stop();

    const second = startAgent(sim, "agent-2");
    try {
      await sim.until("agent-2 leading", () => Promise.resolve(second.manager.running ? true : undefined));
      // The room appears: the kubelet applies the resize agent-1 submitted.
      await sim.deletePod("default", "busy");
      await sim.until("node-b's balloon at 6 cpus", async () => ((await allocatedCpu("node-balloon-node-b")) === "6" ? true : undefined));
      const pod = await sim.pod("kube-system", "node-balloon-node-b");
      expect(pod.metadata?.generation).toBe(generation);
      await sim.until("agent-2's metrics at the target", async () => {
        const values = (await second.registry.getSingleMetric("balloon_node_effective")?.get())?.values;
        return values?.find((v) => v.labels.node === "node-b" && v.labels.resource === "cpu" && v.value === 2);
      });
    } finally {
      await second.stop();
    }
  });
});
