import { ControllerManager, KubeClient } from "@kubekit/generic-controlplane/controllers";
import { Registry } from "prom-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { balloonAgentController } from "./controller.js";
import { AgentMetrics } from "./metrics.js";
import { startTestCluster, type TestCluster } from "./test-cluster.js";

describe("the balloon agent when the kubelet finds a resize Infeasible", () => {
  let sim: TestCluster;
  let client: KubeClient;
  let manager: ControllerManager;
  const registry = new Registry();

  beforeAll(async () => {
    // The kubelet puts its measured size back into the Node's status after a Lease renewal and in its
    // full status report, the first of each at a random point of its interval: with an hour each, a
    // wrong size patched into the status stays for the test (with 2 and 5 minutes one of them came
    // within the test's seconds about one run in ten).
    sim = await startTestCluster(
      ["node-a"],
      { cpu: "8", memory: "32Gi" },
      { leaseRenewIntervalMs: 3_600_000, statusReportIntervalMs: 3_600_000 },
    );
    await sim.balloon("node-a", { cpu: "1m", memory: "1Mi" });
    client = new KubeClient(sim.cluster.url);
    manager = new ControllerManager({
      client,
      controllers: ["balloon"],
      extraControllers: [
        balloonAgentController({
          client,
          metrics: new AgentMetrics(registry),
          retryAfterMs: 60_000,
          resizeTimeoutMs: 2_000,
          pollIntervalMs: 20,
        }),
      ],
      leaderElection: false,
      registry,
    });
    manager.start();
  });

  afterAll(async () => {
    await manager?.stop();
    client?.close();
    await sim?.close();
  });

  const infeasibleCount = async () =>
    (await registry.getSingleMetric("balloon_resizes_total")?.get())?.values.find((v) => v.labels.outcome === "infeasible")?.value ?? 0;
  const warnings = async () => (await sim.events("node-a")).filter((e) => e.reason === "BalloonResizeInfeasible").length;

  it("does not retry while nothing changed, and retries at once when the node does", async () => {
    // The Node claims 16 CPUs, the kubelet measures 8: a 14-CPU balloon is Infeasible.
    await client.patch(
      { group: "", version: "v1", resource: "nodes", namespaced: false },
      undefined,
      "node-a",
      { status: { capacity: { cpu: "16" }, allocatable: { cpu: "16" } } },
      "application/merge-patch+json",
      "status",
    );
    await sim.target("node-a", "cpu=2");
    await sim.until("an Infeasible resize", async () => ((await infeasibleCount()) >= 1 ? true : undefined));
    // Putting the spec back changes the balloon, which must not start the same resize again.
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(await infeasibleCount()).toBe(1);
    expect(await warnings()).toBe(1);
    const balloon = await sim.pod("kube-system", "node-balloon-node-a");
    expect(balloon.spec?.containers[0]?.resources?.requests?.cpu).toBe("1m");

    // The machine gets 12 CPUs: the node changed, so the agent tries again at once and the kubelet applies a 10-CPU balloon.
    await sim.cluster.setNodeCapacity("node-a", { cpu: "12" });
    await sim.until("the balloon at 10 cpus", async () => {
      const pod = await sim.pod("kube-system", "node-balloon-node-a");
      return pod.status?.containerStatuses?.[0]?.allocatedResources?.cpu === "10" ? true : undefined;
    });
    expect(await infeasibleCount()).toBe(1);
  });
});
