import type { Pod } from "@kubekit/client";
import { describe, expect, it } from "vitest";
import { isBalloonPod, isPodActive, isPodTerminal, podRequests } from "./pods.js";
import { resourceListStrings } from "./resource-list.js";

function pod(spec: Partial<NonNullable<Pod["spec"]>>, status?: Pod["status"]): Pod {
  return { metadata: { name: "p", namespace: "ns" }, spec: { containers: [], ...spec }, ...(status ? { status } : {}) };
}

describe("podRequests", () => {
  it("sums containers and defaults a missing request to the limit", () => {
    const p = pod({
      containers: [
        { name: "a", resources: { requests: { cpu: "250m", memory: "64Mi" } } },
        { name: "b", resources: { limits: { cpu: "1", memory: "1Gi" } } },
      ],
    });
    expect(resourceListStrings(podRequests(p))).toEqual({ cpu: "1250m", memory: "1088Mi" });
  });

  it("counts sidecars, the largest init container, overhead and pod-level requests like the scheduler", () => {
    const p = pod({
      containers: [{ name: "app", resources: { requests: { cpu: "1", memory: "1Gi" } } }],
      initContainers: [
        { name: "proxy", restartPolicy: "Always", resources: { requests: { cpu: "100m", memory: "128Mi" } } },
        { name: "migrate", resources: { requests: { cpu: "2", memory: "256Mi" } } },
      ],
      overhead: { cpu: "10m" },
    });
    // containers + sidecar = 1100m; init peak = 2 + 100m sidecar = 2100m → max 2100m, + 10m overhead.
    expect(resourceListStrings(podRequests(p))).toEqual({ cpu: "2110m", memory: "1152Mi" });
    const podLevel = pod({ ...p.spec, resources: { requests: { memory: "4Gi" } } });
    expect(resourceListStrings(podRequests(podLevel))).toEqual({ cpu: "2110m", memory: "4Gi" });
  });

  it("counts an in-flight resize at the larger of desired, allocated and actual", () => {
    const p = pod(
      { containers: [{ name: "a", resources: { requests: { cpu: "500m", memory: "1Gi" } } }] },
      {
        containerStatuses: [
          {
            name: "a",
            image: "x",
            imageID: "",
            ready: true,
            restartCount: 0,
            allocatedResources: { cpu: "2" },
            resources: { requests: { cpu: "1", memory: "2Gi" } },
          },
        ],
      },
    );
    expect(resourceListStrings(podRequests(p))).toEqual({ cpu: "2", memory: "2Gi" });
  });

  it("names the pod and container when a quantity is bad", () => {
    const p = pod({ containers: [{ name: "a", resources: { requests: { cpu: "two" } } }] });
    expect(() => podRequests(p)).toThrow(/pod ns\/p container a: resource "cpu": invalid quantity "two"/);
  });

  it("recognises finished pods and balloon pods", () => {
    expect(isPodActive(pod({}, { phase: "Succeeded" }))).toBe(false);
    expect(isPodActive(pod({}, { phase: "Running" }))).toBe(true);
    expect(isBalloonPod({ metadata: { labels: { "balloon.kubekit.dev/balloon": "true" } } })).toBe(true);
    expect(isBalloonPod({ metadata: { labels: { app: "x" } } })).toBe(false);
  });

  it("means by active and terminal what upstream's controller.IsPodActive and IsPodTerminal mean", () => {
    const deleting: Pod = {
      ...pod({}, { phase: "Running" }),
      metadata: { name: "p", namespace: "ns", deletionTimestamp: "1970-01-01T00:00:00Z" },
    };
    // Being deleted, the pod no longer counts for its controller but still holds its node's resources.
    expect(isPodActive(deleting)).toBe(false);
    expect(isPodTerminal(deleting)).toBe(false);
    expect(isPodTerminal(pod({}, { phase: "Failed" }))).toBe(true);
  });
});
