import type { Pod } from "@kubekit/client";
import { describe, expect, it } from "vitest";
import { parseResourceList } from "./resource-list.js";
import { resizeProgress } from "./resize-progress.js";

type Status = NonNullable<Pod["status"]>;
type Condition = NonNullable<Status["conditions"]>[number];

function balloon(status: {
  allocated?: Record<string, string>;
  actual?: Record<string, string>;
  conditions?: Condition[];
  observedGeneration?: number;
}): Pod {
  return {
    metadata: { name: "b", namespace: "kube-system", generation: 3 },
    spec: { containers: [{ name: "balloon", image: "pause", resources: { requests: { cpu: "4" } } }] },
    status: {
      phase: "Running",
      ...(status.observedGeneration !== undefined ? { observedGeneration: status.observedGeneration } : {}),
      ...(status.conditions ? { conditions: status.conditions } : {}),
      containerStatuses: [
        {
          name: "balloon",
          image: "pause",
          imageID: "",
          ready: true,
          restartCount: 0,
          ...(status.allocated ? { allocatedResources: status.allocated } : {}),
          ...(status.actual ? { resources: { requests: status.actual } } : {}),
        },
      ],
    },
  };
}

const planned = parseResourceList("cpu=4");

describe("resizeProgress", () => {
  it("is applied once allocated and actual equal the plan with no resize condition left", () => {
    expect(resizeProgress(balloon({ allocated: { cpu: "4" }, actual: { cpu: "4000m" } }), planned, 3)).toMatchObject({ state: "applied" });
    expect(resizeProgress(balloon({ allocated: { cpu: "4" } }), planned, 3).state).toBe("applied");
  });

  it("waits while allocated, actual or PodResizeInProgress lag behind", () => {
    expect(resizeProgress(balloon({ allocated: { cpu: "2" }, actual: { cpu: "2" } }), planned, 3)).toEqual({
      state: "waiting",
      message: "cpu allocated 2, asked 4",
    });
    expect(resizeProgress(balloon({ allocated: { cpu: "4" }, actual: { cpu: "2" } }), planned, 3)).toEqual({
      state: "waiting",
      message: "cpu actuated 2, allocated 4",
    });
    const inProgress: Condition = {
      type: "PodResizeInProgress",
      status: "True",
      reason: "Error",
      message: "memory usage above the new limit",
    };
    expect(resizeProgress(balloon({ allocated: { cpu: "4" }, conditions: [inProgress] }), planned, 3)).toEqual({
      state: "waiting",
      message: "in progress with an error: memory usage above the new limit",
    });
  });

  it("reports Deferred and Infeasible with the kubelet's message", () => {
    const deferred: Condition = {
      type: "PodResizePending",
      status: "True",
      reason: "Deferred",
      message: "Node didn't have enough resource: cpu",
      observedGeneration: 3,
    };
    expect(resizeProgress(balloon({ allocated: { cpu: "2" }, conditions: [deferred] }), planned, 3)).toEqual({
      state: "deferred",
      message: "Node didn't have enough resource: cpu",
    });
    const infeasible: Condition = {
      type: "PodResizePending",
      status: "True",
      reason: "Infeasible",
      message: "Node didn't have enough capacity: cpu, requested: 4000, capacity: 3000",
    };
    expect(resizeProgress(balloon({ allocated: { cpu: "2" }, conditions: [infeasible] }), planned, 3).state).toBe("infeasible");
  });

  it("does not trust a status written before the kubelet saw the submitted generation", () => {
    const oldDeferral: Condition = { type: "PodResizePending", status: "True", reason: "Deferred", observedGeneration: 2 };
    expect(resizeProgress(balloon({ allocated: { cpu: "2" }, conditions: [oldDeferral] }), planned, 3).state).toBe("waiting");
    expect(resizeProgress(balloon({ allocated: { cpu: "4" }, observedGeneration: 2 }), planned, 3)).toEqual({
      state: "waiting",
      message: "the kubelet has observed generation 2, not yet 3",
    });
    expect(resizeProgress(balloon({ allocated: { cpu: "4" }, observedGeneration: 3 }), planned, 3).state).toBe("applied");
  });
});
