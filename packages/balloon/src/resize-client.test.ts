import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBalloonSim, type BalloonSim } from "../test/sim.js";
import { parseResourceList, resourceListStrings } from "./resource-list.js";
import { resizeNode } from "./resize-client.js";

describe("resizeNode on a simulated cluster (the parts that need no kubelet resize)", () => {
  let sim: BalloonSim;

  beforeAll(async () => {
    sim = await startBalloonSim([{ name: "node-a" }, { name: "node-b" }], { cpu: "4", memory: "16Gi" });
    await sim.balloon("node-a", { cpu: "1", memory: "1Gi" });
    await sim.workload("node-a", "web", { cpu: "3", memory: "4Gi" });
  }, 30_000);

  afterAll(async () => {
    await sim?.close();
  });

  const nodeEvents = async (node: string) => (await sim.nodeEvents(node)).filter((event) => event.involvedObject.kind === "Node");

  it("refuses an upsize that does not fit beside running pods, patches nothing and says why on the Node", async () => {
    const result = await resizeNode(sim.client, "node-a", parseResourceList("cpu=500m"), { timeoutMs: 5_000 });
    expect(result).toMatchObject({ outcome: "refused", node: "node-a", patched: false });
    if (result.outcome !== "refused") return;
    expect(result.reason).toContain("cpu: the balloon needs 3500m but other pods request 3 of 4 allocatable, leaving 1");
    const balloon = await sim.pod("kube-system", "node-balloon-node-a");
    expect(balloon.spec?.containers[0]?.resources?.requests).toEqual({ cpu: "1", memory: "1Gi" });
    const events = await nodeEvents("node-a");
    expect(events.map((e) => [e.type, e.reason, e.source?.component])).toContainEqual([
      "Warning",
      "BalloonResizeRefused",
      "balloon-resizer",
    ]);
    expect(events.find((e) => e.reason === "BalloonResizeRefused")?.message).toContain("leaving 1");
  });

  it("reports a node without a balloon as refused, and throws on a bad target instead of reading the cluster into it", async () => {
    const result = await resizeNode(sim.client, "node-b", parseResourceList("cpu=2"), { events: false });
    expect(result).toMatchObject({ outcome: "refused", patched: false, reason: "node node-b has no running balloon pod" });
    await expect(resizeNode(sim.client, "node-a", parseResourceList("memory=500m"))).rejects.toThrow(/fractional byte value "500m"/);
    await expect(resizeNode(sim.client, "node-z", parseResourceList("cpu=2"))).rejects.toThrow(/404|not found/i);
  });

  it("plans from what the API serves: the pods bound to the node, through a field selector", async () => {
    const result = await resizeNode(sim.client, "node-a", parseResourceList("cpu=3,memory=12Gi"), { onShortfall: "partial", timeoutMs: 1 });
    // 4 − 3 (web) = 1 cpu of room: already the balloon's size, so nothing grows; memory fits (16Gi − 12Gi = 4Gi).
    expect(result.plan && resourceListStrings(result.plan.balloon)).toEqual({ cpu: "1", memory: "4Gi" });
  });
});
