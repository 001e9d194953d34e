import { describe, expect, it } from "vitest";
import type { ReplicaSet } from "../resources/replicasets.js";
import { activeOrLatest, isScalingEvent, proportionalSizes } from "./deployment-scale.js";

const rs = (name: string, replicas: number, created: string, maxReplicas?: number, desired?: number): ReplicaSet => ({
  metadata: {
    name,
    creationTimestamp: created,
    annotations: {
      ...(maxReplicas !== undefined ? { "deployment.kubernetes.io/max-replicas": String(maxReplicas) } : {}),
      ...(desired !== undefined ? { "deployment.kubernetes.io/desired-replicas": String(desired) } : {}),
    },
  },
  spec: { replicas },
});
const sizes = (result: Map<ReplicaSet, number>): Record<string, number> =>
  Object.fromEntries([...result].map(([r, n]) => [r.metadata?.name ?? "", n]));

// After pkg/controller/deployment's TestScale and TestDeploymentController_cleanupDeployment's neighbours in sync_test.go.
describe("proportional scaling", () => {
  it("scales up the active ReplicaSets in proportion (TestScale: proportional scaling: 5 -> 10)", () => {
    // replicas 10, maxSurge 0, was 5 (max-replicas 5): 2 and 3 become 4 and 6.
    expect(sizes(proportionalSizes(10, 0, 5, [rs("new", 2, "2020-01-02T00:00:00Z", 5), rs("old", 3, "2020-01-01T00:00:00Z", 5)]))).toEqual({
      old: 6,
      new: 4,
    });
  });

  it("scales down in proportion (TestScale: proportional scaling: 5 -> 3)", () => {
    expect(sizes(proportionalSizes(3, 0, 5, [rs("new", 2, "2020-01-02T00:00:00Z", 5), rs("old", 3, "2020-01-01T00:00:00Z", 5)]))).toEqual({
      old: 2,
      new: 1,
    });
  });

  it("gives leftovers to the largest ReplicaSet, the newer one when scaling up equal sizes (TestScale: leftover distribution)", () => {
    // 10 -> 13 with maxSurge 0: two ReplicaSets of 5 each get 6.5 rounded; the leftover goes to the first.
    const result = proportionalSizes(13, 0, 10, [rs("older", 5, "2020-01-01T00:00:00Z", 10), rs("newer", 5, "2020-01-02T00:00:00Z", 10)]);
    expect(sizes(result)).toEqual({ newer: 7, older: 6 });
    expect([...result.values()].reduce((a, b) => a + b, 0)).toBe(13);
  });

  it("scales everything to zero when the Deployment goes to zero", () => {
    expect(sizes(proportionalSizes(0, 1, 6, [rs("a", 4, "2020-01-02T00:00:00Z", 6), rs("b", 2, "2020-01-01T00:00:00Z", 6)]))).toEqual({
      a: 0,
      b: 0,
    });
  });

  it("the e2e case: 10 replicas, maxSurge 3, maxUnavailable 2, mid-rollout scaled to 30", () => {
    // testProportionalScalingDeployment: first RS 8, second (stuck) 5, scaled 10 -> 30: 20 extra over 13 (max 13).
    const result = proportionalSizes(30, 3, 13, [rs("first", 8, "2020-01-01T00:00:00Z", 13), rs("second", 5, "2020-01-02T00:00:00Z", 13)]);
    expect(sizes(result)).toEqual({ first: 20, second: 13 });
  });
});

describe("scaling events", () => {
  it("is one when an active ReplicaSet was sized for another count", () => {
    expect(isScalingEvent(5, [rs("a", 3, "2020-01-01T00:00:00Z", 4, 3)])).toBe(true);
    expect(isScalingEvent(3, [rs("a", 3, "2020-01-01T00:00:00Z", 4, 3)])).toBe(false);
    // Inactive ReplicaSets do not count.
    expect(isScalingEvent(5, [rs("a", 0, "2020-01-01T00:00:00Z", 4, 3)])).toBe(false);
  });

  it("finds the only active ReplicaSet, or the newest", () => {
    const a = rs("a", 0, "2020-01-01T00:00:00Z");
    const b = rs("b", 0, "2020-01-02T00:00:00Z");
    expect(activeOrLatest(undefined, [a, b])).toBe(b);
    expect(activeOrLatest(a, [b])).toBe(a);
    expect(activeOrLatest(undefined, [a, rs("c", 2, "2020-01-01T00:00:00Z")])?.metadata?.name).toBe("c");
    expect(activeOrLatest(undefined, [rs("c", 2, "2020-01-01T00:00:00Z"), rs("d", 1, "2020-01-01T00:00:00Z")])).toBeUndefined();
  });
});
