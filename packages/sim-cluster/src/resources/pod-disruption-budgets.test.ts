import { isControlPlaneError, type KubeObject } from "@kubekit/generic-controlplane";
import { createResourceStore } from "@kubekit/generic-controlplane/registry";
import { createMemoryStorage } from "@kubekit/generic-controlplane/storage";
import { afterEach, describe, expect, it } from "vitest";
import { podDisruptionBudgetsResource, type PodDisruptionBudget } from "./pod-disruption-budgets.js";

// Upstream: pkg/apis/policy/validation/validation_test.go (TestValidateMinAvailablePodDisruptionBudgetSpec,
// TestValidateUnhealthyPodEvictionPolicyDisruptionBudgetSpec, TestValidatePodDisruptionBudgetStatus).

const storages: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(storages.splice(0).map((s) => s.close()));
});

function budgets() {
  const storage = createMemoryStorage({ compactInterval: 0 });
  storages.push(storage);
  return createResourceStore(podDisruptionBudgetsResource, storage);
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    if (isControlPlaneError(error) && error.code === "Invalid") return error.message;
    throw error;
  }
  throw new Error("expected the write to be refused as invalid");
}

const budget = (spec: Record<string, unknown>) => ({
  metadata: { name: "pdb" },
  spec: { selector: { matchLabels: { app: "web" } }, ...spec },
});

describe("policy/v1 PodDisruptionBudgets", () => {
  it("refuses what upstream's validation refuses, with its messages", async () => {
    const store = budgets();
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ minAvailable: 1, maxUnavailable: 1 }, "minAvailable and maxUnavailable cannot be both set"],
      [{ minAvailable: -1 }, "spec.minAvailable: Invalid value: -1: must be greater than or equal to 0"],
      [{ maxUnavailable: "101%" }, 'spec.maxUnavailable: Invalid value: "101%": must not be greater than 100%'],
      [{ minAvailable: "ten" }, "a valid percent string must be a numeric string followed by an ending '%'"],
      [
        { unhealthyPodEvictionPolicy: "Never" },
        'spec.unhealthyPodEvictionPolicy: Unsupported value: "Never": supported values: "AlwaysAllow", "IfHealthyBudget"',
      ],
      [
        { selector: { matchExpressions: [{ key: "app", operator: "In" }] } },
        "spec.selector.matchExpressions[0].values: Required value: must be specified when `operator` is 'In' or 'NotIn'",
      ],
      [
        { selector: { matchExpressions: [{ key: "app", operator: "Exists", values: ["x"] }] } },
        "spec.selector.matchExpressions[0].values: Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
      ],
      [
        { selector: { matchExpressions: [{ key: "app", operator: "Near", values: ["x"] }] } },
        'spec.selector.matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator',
      ],
    ];
    for (const [spec, message] of cases) expect(await refusal(store.create("default", budget(spec)))).toContain(message);
    expect((await store.list("default")).items).toHaveLength(0);
  });

  it("starts with a status that allows nothing, bumps the generation on spec changes, and keeps status counts non-negative", async () => {
    const store = budgets();
    const created = (await store.create(
      "default",
      budget({ minAvailable: "50%", unhealthyPodEvictionPolicy: "AlwaysAllow" }),
    )) as PodDisruptionBudget;
    expect(created.status).toEqual({ disruptionsAllowed: 0, currentHealthy: 0, desiredHealthy: 0, expectedPods: 0 });
    expect(created.metadata?.generation).toBe(1);
    const changed = (await store.guaranteedUpdate("default", "pdb", (p) => ({
      ...p,
      spec: { ...(p as PodDisruptionBudget).spec, minAvailable: 2 },
    }))) as PodDisruptionBudget;
    expect(changed.metadata?.generation).toBe(2);
    const negative = { ...changed, status: { ...changed.status, disruptionsAllowed: -1 } } as KubeObject;
    expect(await refusal(store.update("default", "pdb", negative, { subresource: "status" }))).toContain(
      "status.disruptionsAllowed: Invalid value: -1: must be greater than or equal to 0",
    );
  });
});
