import { describe, expect, it } from "vitest";
import type { Pod } from "../resources/pods.js";
import { checkResize } from "./allocation.js";

const allocatable = new Map([
  ["cpu", 4000n],
  ["memory", 4n * 2n ** 30n * 1000n],
  ["pods", 3000n],
]);
const pod = (cpu: string, memory: string): Pod => ({ spec: { containers: [{ name: "c", resources: { requests: { cpu, memory } } }] } });

describe("checkResize (the kubelet's canResizePod)", () => {
  it("fits what the node has room for beside the other pods", () => {
    expect(checkResize(pod("2", "1Gi"), allocatable, [pod("2", "1Gi")])).toEqual({ fits: true });
  });

  it("names cpu before memory when neither fits beside the others (Deferred)", () => {
    expect(checkResize(pod("3", "4Gi"), allocatable, [pod("2", "1Gi")])).toEqual({
      fits: false,
      reason: "Deferred",
      message: "Node didn't have enough resource: cpu, requested: 3000, used: 2000, capacity: 4000",
    });
    expect(checkResize(pod("1", "4Gi"), allocatable, [pod("2", "1Gi")])).toEqual({
      fits: false,
      reason: "Deferred",
      message: `Node didn't have enough resource: memory, requested: ${4 * 2 ** 30}, used: ${2 ** 30}, capacity: ${4 * 2 ** 30}`,
    });
  });

  it("names memory before cpu when the pod alone exceeds allocatable (Infeasible)", () => {
    expect(checkResize(pod("5", "5Gi"), allocatable, [])).toMatchObject({
      reason: "Infeasible",
      message: `Node didn't have enough capacity: memory, requested: ${5 * 2 ** 30}, capacity: ${4 * 2 ** 30}`,
    });
    expect(checkResize(pod("4500m", "1Gi"), allocatable, [])).toMatchObject({
      reason: "Infeasible",
      message: "Node didn't have enough capacity: cpu, requested: 4500, capacity: 4000",
    });
  });

  it("counts each other pod at max(allocated, actuated)", () => {
    const shrinking: Pod = {
      ...pod("1", "1Gi"),
      status: {
        containerStatuses: [
          {
            name: "c",
            ready: true,
            restartCount: 0,
            image: "",
            imageID: "",
            allocatedResources: { cpu: "1" },
            resources: { requests: { cpu: "3" } },
          },
        ],
      },
    };
    expect(checkResize(pod("2", "1Gi"), allocatable, [shrinking])).toMatchObject({
      reason: "Deferred",
      message: "Node didn't have enough resource: cpu, requested: 2000, used: 3000, capacity: 4000",
    });
  });
});
