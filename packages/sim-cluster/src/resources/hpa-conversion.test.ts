import { describe, expect, it } from "vitest";
import { hpaV1ToV2, hpaV2ToV1, type HorizontalPodAutoscaler } from "./hpa-conversion.js";

const ref = { apiVersion: "apps/v1", kind: "Deployment", name: "web" };

describe("autoscaling/v1 ⇄ v2 HorizontalPodAutoscaler conversion", () => {
  it("v1's CPU target and current CPU are v2's cpu Utilization metric and status", () => {
    const v2 = hpaV1ToV2({
      apiVersion: "autoscaling/v1",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "h" },
      spec: { scaleTargetRef: ref, minReplicas: 1, maxReplicas: 5, targetCPUUtilizationPercentage: 80 },
      status: { currentReplicas: 2, desiredReplicas: 3, currentCPUUtilizationPercentage: 40 },
    });
    expect(v2).toEqual({
      apiVersion: "autoscaling/v2",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "h" },
      spec: {
        scaleTargetRef: ref,
        minReplicas: 1,
        maxReplicas: 5,
        metrics: [{ type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 80 } } }],
      },
      status: {
        currentReplicas: 2,
        desiredReplicas: 3,
        currentMetrics: [{ type: "Resource", resource: { name: "cpu", current: { averageUtilization: 40 } } }],
      },
    });
  });

  it("round-trips what v1 cannot say through its annotations, leaving the user's annotations alone", () => {
    const original: HorizontalPodAutoscaler = {
      apiVersion: "autoscaling/v2",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "h", annotations: { owner: "me" } },
      spec: {
        scaleTargetRef: ref,
        minReplicas: 2,
        maxReplicas: 9,
        metrics: [
          { type: "Pods", pods: { metric: { name: "qps" }, target: { type: "AverageValue", averageValue: "10" } } },
          { type: "Resource", resource: { name: "cpu", target: { type: "Utilization", averageUtilization: 60 } } },
        ],
        behavior: { scaleDown: { stabilizationWindowSeconds: 30 } },
      },
      status: { desiredReplicas: 2, conditions: [{ type: "AbleToScale", status: "True" }] },
    };
    const v1 = hpaV2ToV1(structuredClone(original));
    expect(v1.spec?.targetCPUUtilizationPercentage).toBe(60);
    expect(v1.metadata?.annotations?.["owner"]).toBe("me");
    expect(Object.keys(v1.metadata?.annotations ?? {}).sort()).toEqual([
      "autoscaling.alpha.kubernetes.io/behavior",
      "autoscaling.alpha.kubernetes.io/conditions",
      "autoscaling.alpha.kubernetes.io/metrics",
      "owner",
    ]);
    expect(v1.status).toEqual({ currentReplicas: 0, desiredReplicas: 2 });
    const back = hpaV1ToV2(v1);
    // The CPU metric comes back first, as upstream's conversion puts it.
    expect(back.spec?.metrics).toEqual([original.spec?.metrics?.[1], original.spec?.metrics?.[0]]);
    expect(back.spec?.behavior).toEqual(original.spec?.behavior);
    expect(back.status?.conditions).toEqual(original.status?.conditions);
    expect(back.metadata?.annotations).toEqual({ owner: "me" });
  });

  it("leaves v2's omitempty currentReplicas out when v1 says 0, keeping desiredReplicas (never omitted)", () => {
    const v2 = hpaV1ToV2({
      apiVersion: "autoscaling/v1",
      kind: "HorizontalPodAutoscaler",
      metadata: { name: "h" },
      spec: { scaleTargetRef: ref, maxReplicas: 5 },
      status: { currentReplicas: 0, desiredReplicas: 0 },
    });
    expect(v2.status).toEqual({ desiredReplicas: 0 });
  });
});
