import { describe, expect, it } from "vitest";
import type { Pod } from "../resources/pods.js";
import { podStatus, startContainer, type PodRecord } from "./pod-status.js";

// After pkg/kubelet/status's TestGeneratePodReadyCondition (readiness gates).
const now = "2024-01-01T00:00:00Z";
const record = (): PodRecord => ({
  uid: "u",
  podIP: "10.244.0.5",
  startTime: now,
  containers: [startContainer({ name: "c", image: "x" }, {}, now)],
  inProgress: false,
  terminating: false,
  generation: 1,
});

const gated = (condition?: "True" | "False"): Pod => ({
  metadata: { name: "p", uid: "u", generation: 1 },
  spec: { containers: [{ name: "c", image: "x" }], readinessGates: [{ conditionType: "example.com/feature-1" }] },
  status: { phase: "Running", conditions: condition === undefined ? [] : [{ type: "example.com/feature-1", status: condition }] },
});

const readyOf = (pod: Pod) => podStatus(pod, record(), { address: "172.18.0.2" }, now).conditions?.find((c) => c.type === "Ready");

describe("readiness gates", () => {
  it("keep a pod whose containers run unready until every gate's condition is True", () => {
    expect(readyOf(gated())).toMatchObject({
      status: "False",
      reason: "ReadinessGatesNotReady",
      message: 'corresponding condition of pod readiness gate "example.com/feature-1" does not exist.',
    });
    expect(readyOf(gated("False"))).toMatchObject({
      status: "False",
      reason: "ReadinessGatesNotReady",
      message: 'the status of pod readiness gate "example.com/feature-1" is not "True", but False',
    });
    expect(readyOf(gated("True"))?.status).toBe("True");
  });

  it("leave ContainersReady to the containers alone, and keep the gate's condition", () => {
    const status = podStatus(gated("False"), record(), { address: "172.18.0.2" }, now);
    expect(status.conditions?.find((c) => c.type === "ContainersReady")?.status).toBe("True");
    expect(status.conditions?.find((c) => c.type === "example.com/feature-1")?.status).toBe("False");
  });
});
