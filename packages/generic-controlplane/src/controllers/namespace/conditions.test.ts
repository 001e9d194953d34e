import { describe, expect, it } from "vitest";
import type { NamespaceCondition } from "../../resources/namespaces.js";
import { GroupDiscoveryFailedError } from "../discovery.js";
import { NAMESPACE_DELETION_CONDITION_TYPES, NamespaceConditionUpdater } from "./conditions.js";

// After upstream pkg/controller/namespace/deletion/status_condition_utils_test.go (TestUpdateConditions).

const OLD = "2020-01-01T00:00:00Z";

function okConditions(): NamespaceCondition[] {
  const status = { conditions: [] as NamespaceCondition[] };
  new NamespaceConditionUpdater().update(status);
  return status.conditions.map((c) => ({ ...c, lastTransitionTime: OLD }));
}

describe("NamespaceConditionUpdater", () => {
  it("with nothing failing, sets every owned condition to its ok form, after conditions it does not own", () => {
    const status = { conditions: [{ type: "Foreign", status: "True", reason: "Mine", message: "kept" }] as NamespaceCondition[] };
    expect(new NamespaceConditionUpdater().update(status)).toBe(true);
    expect(status.conditions.map((c) => [c.type, c.status, c.reason, c.message])).toEqual([
      ["Foreign", "True", "Mine", "kept"],
      ["NamespaceDeletionDiscoveryFailure", "False", "ResourcesDiscovered", "All resources successfully discovered"],
      ["NamespaceDeletionGroupVersionParsingFailure", "False", "ParsedGroupVersions", "All legacy kube types successfully parsed"],
      ["NamespaceDeletionContentFailure", "False", "ContentDeleted", "All content successfully deleted, may be waiting on finalization"],
      ["NamespaceContentRemaining", "False", "ContentRemoved", "All content successfully removed"],
      ["NamespaceFinalizersRemaining", "False", "ContentHasNoFinalizers", "All content-preserving finalizers finished"],
    ]);
  });

  it("reports nothing changed when the conditions already say the same", () => {
    const status = { conditions: okConditions() };
    expect(new NamespaceConditionUpdater().update(status)).toBe(false);
    expect(status.conditions.every((c) => c.lastTransitionTime === OLD)).toBe(true);
  });

  it("moves lastTransitionTime only when the status flips", () => {
    const status = { conditions: okConditions() };
    const updater = new NamespaceConditionUpdater();
    updater.processDeleteContentError(new Error("b failed"));
    updater.processDeleteContentError(new Error("a failed"));
    updater.processContentTotals({
      remainingByResource: new Map([
        ["widgets.example.com", 2],
        ["configmaps.", 1],
      ]),
      remainingByFinalizer: new Map([["example.com/x", 3]]),
    });
    expect(updater.update(status)).toBe(true);
    const byType = new Map(status.conditions.map((c) => [c.type, c]));
    expect(byType.get("NamespaceDeletionContentFailure")).toMatchObject({
      status: "True",
      reason: "ContentDeletionFailed",
      message: "Failed to delete all resource types, 2 remaining: a failed, b failed",
    });
    expect(byType.get("NamespaceContentRemaining")).toMatchObject({
      status: "True",
      reason: "SomeResourcesRemain",
      message: "Some resources are remaining: configmaps. has 1 resource instances, widgets.example.com has 2 resource instances",
    });
    expect(byType.get("NamespaceFinalizersRemaining")).toMatchObject({
      status: "True",
      reason: "SomeFinalizersRemain",
      message: "Some content in the namespace has finalizers remaining: example.com/x in 3 resource instances",
    });
    expect(byType.get("NamespaceDeletionContentFailure")!.lastTransitionTime).not.toBe(OLD);
    expect(byType.get("NamespaceDeletionDiscoveryFailure")!.lastTransitionTime).toBe(OLD);

    // Same status, new message: the time stays.
    const flipped = "2021-06-01T00:00:00Z";
    status.conditions.find((c) => c.type === "NamespaceContentRemaining")!.lastTransitionTime = flipped;
    const again = new NamespaceConditionUpdater();
    again.processContentTotals({ remainingByResource: new Map([["configmaps.", 5]]), remainingByFinalizer: new Map() });
    expect(again.update(status)).toBe(true);
    expect(status.conditions.find((c) => c.type === "NamespaceContentRemaining")).toMatchObject({
      message: "Some resources are remaining: configmaps. has 5 resource instances",
      lastTransitionTime: flipped,
    });
  });

  it("names the failing groups of a partial discovery", () => {
    const status = { conditions: [] as NamespaceCondition[] };
    const updater = new NamespaceConditionUpdater();
    updater.processDiscoveryError(
      new GroupDiscoveryFailedError(new Map([["metrics.k8s.io/v1beta1", new Error("stale GroupVersion discovery")]]), []),
    );
    updater.update(status);
    expect(status.conditions.find((c) => c.type === "NamespaceDeletionDiscoveryFailure")).toMatchObject({
      status: "True",
      reason: "DiscoveryFailed",
      message:
        "Discovery failed for some groups, 1 failing: unable to retrieve the complete list of server APIs: metrics.k8s.io/v1beta1: stale GroupVersion discovery",
    });
    expect(status.conditions).toHaveLength(NAMESPACE_DELETION_CONDITION_TYPES.length);
  });
});
