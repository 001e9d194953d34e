import { describe, expect, it } from "vitest";
import type { PodDisruptionBudget } from "../resources/pod-disruption-budgets.js";
import type { Pod } from "../resources/pods.js";
import {
  budgetStatus,
  countHealthy,
  disruptedPodMap,
  DELETION_TIMEOUT_MS,
  expectedAndDesired,
  type ScaleFinder,
} from "./disruption-status.js";

// Upstream: pkg/controller/disruption/disruption_test.go (TestNoSelector, TestUnavailable,
// TestIntegerMaxUnavailable, TestReplicaSet, TestMultipleController, TestTotallyUnmanagedPods ...).

const NOW = Date.parse("2026-01-01T00:00:00Z");
const at = (ms: number) => new Date(ms).toISOString().replace(/\.\d+Z$/, "Z");

function pod(name: string, options: { ready?: boolean; owner?: string; deleting?: boolean } = {}): Pod {
  return {
    metadata: {
      name,
      namespace: "default",
      labels: { app: "web" },
      ...(options.owner !== undefined
        ? {
            ownerReferences: [
              { apiVersion: "apps/v1", kind: "ReplicaSet", name: options.owner, uid: `uid-${options.owner}`, controller: true },
            ],
          }
        : {}),
      ...(options.deleting === true ? { deletionTimestamp: at(NOW) } : {}),
    },
    status: { phase: "Running", conditions: [{ type: "Ready", status: options.ready === false ? "False" : "True" }] },
  };
}

const pdb = (spec: PodDisruptionBudget["spec"], status: PodDisruptionBudget["status"] = {}): PodDisruptionBudget => ({
  metadata: { name: "pdb", namespace: "default", generation: 2 },
  spec: { selector: { matchLabels: { app: "web" } }, ...spec },
  status,
});
const scales =
  (table: Record<string, number>): ScaleFinder =>
  (ref) =>
    ref.name in table ? { uid: ref.uid, scale: table[ref.name]! } : undefined;

describe("the disruption controller's arithmetic", () => {
  it("counts the pods themselves for an integer minAvailable, and the controllers' scale otherwise (each controller once)", () => {
    const pods = [pod("a", { owner: "rs" }), pod("b", { owner: "rs" }), pod("c", { owner: "other" })];
    const find = scales({ rs: 4, other: 2 });
    expect(expectedAndDesired(pdb({ minAvailable: 2 }), pods, find)).toEqual({ expected: 3, desired: 2 });
    expect(expectedAndDesired(pdb({ minAvailable: "50%" }), pods, find)).toEqual({ expected: 6, desired: 3 });
    // maxUnavailable rounds up (GetScaledValueFromIntOrPercent with roundUp): 10% of 6 is 1.
    expect(expectedAndDesired(pdb({ maxUnavailable: "10%" }), pods, find)).toEqual({ expected: 6, desired: 5 });
    expect(expectedAndDesired(pdb({ maxUnavailable: 10 }), pods, find)).toEqual({ expected: 6, desired: 0 });
    expect(() => expectedAndDesired(pdb({ maxUnavailable: 1 }), [pod("d", { owner: "gone" })], find)).toThrow(
      'found no controllers for pod "d"',
    );
    // Pods without a controller add nothing to a scale-based count.
    expect(expectedAndDesired(pdb({ maxUnavailable: 1 }), [pod("e")], find)).toEqual({ expected: 0, desired: 0 });
  });

  it("counts ready pods that are neither being deleted nor evicted within the last two minutes", () => {
    const pods = [pod("a"), pod("b", { ready: false }), pod("c", { deleting: true }), pod("d"), pod("e")];
    const budget = pdb(
      { minAvailable: 1 },
      { disruptedPods: { d: at(NOW - 1000), e: at(NOW - DELETION_TIMEOUT_MS - 1000), gone: at(NOW) } },
    );
    const { disrupted, recheckAt } = disruptedPodMap(budget, pods, NOW);
    // e was expected to be deleted by now but was not: it counts again; gone is no longer a pod.
    expect(disrupted).toEqual({ d: at(NOW - 1000) });
    expect(recheckAt).toBe(NOW - 1000 + DELETION_TIMEOUT_MS);
    expect(countHealthy(pods, disrupted, NOW)).toBe(2);
  });

  it("allows currentHealthy - desiredHealthy disruptions, none when it expects no pods, with the DisruptionAllowed condition", () => {
    const three = [pod("a", { owner: "rs" }), pod("b", { owner: "rs" }), pod("c", { owner: "rs" })];
    const sufficient = budgetStatus(pdb({ maxUnavailable: 1 }), three, scales({ rs: 3 }), NOW).status;
    expect(sufficient).toMatchObject({
      observedGeneration: 2,
      currentHealthy: 3,
      desiredHealthy: 2,
      expectedPods: 3,
      disruptionsAllowed: 1,
    });
    expect(sufficient.conditions).toEqual([
      {
        type: "DisruptionAllowed",
        status: "True",
        reason: "SufficientPods",
        message: "",
        observedGeneration: 2,
        lastTransitionTime: at(NOW),
      },
    ]);

    const insufficient = budgetStatus(
      pdb({ minAvailable: 3 }, { conditions: sufficient.conditions! }),
      three,
      scales({}),
      NOW + 5000,
    ).status;
    expect(insufficient).toMatchObject({ disruptionsAllowed: 0, currentHealthy: 3, desiredHealthy: 3 });
    expect(insufficient.conditions?.[0]).toMatchObject({ status: "False", reason: "InsufficientPods", lastTransitionTime: at(NOW + 5000) });

    const none = budgetStatus(pdb({ minAvailable: 0 }), [], scales({}), NOW).status;
    expect(none).toMatchObject({ expectedPods: 0, disruptionsAllowed: 0 });
  });
});
