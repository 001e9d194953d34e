import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBalloonSim, type BalloonSim } from "../test/sim.js";
import { NODE_TARGET_ANNOTATION } from "./names.js";
import { readNodeBalloonStatus } from "./node-status.js";
import { resourceListStrings } from "./resource-list.js";

describe("readNodeBalloonStatus on a simulated cluster", () => {
  let sim: BalloonSim;

  beforeAll(async () => {
    sim = await startBalloonSim([{ name: "node-a" }, { name: "node-b" }], { cpu: "8", memory: "32Gi" });
    await sim.balloon("node-a", { cpu: "2", memory: "8Gi" });
    await sim.patchNode("node-a", { metadata: { annotations: { [NODE_TARGET_ANNOTATION]: "cpu=6,memory=24Gi" } } });
  }, 120_000);

  afterAll(async () => {
    await sim?.close();
  });

  it("reads every node with its balloon and the effective size", async () => {
    const rows = await readNodeBalloonStatus(sim.client);
    expect(rows.map((r) => [r.node, r.balloonPod, resourceListStrings(r.effective), r.target])).toEqual([
      ["node-a", "node-balloon-node-a", { cpu: "6", memory: "24Gi" }, "cpu=6,memory=24Gi"],
      ["node-b", undefined, { cpu: "8", memory: "32Gi" }, undefined],
    ]);
  });
});
