import { describe, expect, it } from "vitest";
import { deploymentConditions, pausedCondition, type DeploymentCondition } from "./deployment-progress.js";

const at = (iso: string) => Date.parse(iso);
const counts = (replicas: number, updated: number, available: number) => ({
  replicas,
  updatedReplicas: updated,
  readyReplicas: available,
  availableReplicas: available,
});
const progressing = (reason: string, lastUpdateTime: string, status = "True"): DeploymentCondition => ({
  type: "Progressing",
  status,
  reason,
  message: "",
  lastUpdateTime,
  lastTransitionTime: lastUpdateTime,
});
const base = { name: "d", newRSName: "d-abc", replicas: 3, maxUnavailable: 0, progressDeadlineSeconds: 10, rollout: true };

// After pkg/controller/deployment's TestSyncRolloutStatus and util's TestDeploymentTimedOut / TestDeploymentProgressing.
describe("deployment conditions", () => {
  it("refreshes Progressing on any progress, keeping its transition time", () => {
    const { conditions, deadlineInMs } = deploymentConditions({
      ...base,
      before: counts(3, 1, 2),
      after: counts(3, 2, 2),
      conditions: [progressing("ReplicaSetUpdated", "2020-01-01T00:00:00Z")],
      now: at("2020-01-01T00:00:20Z"),
    });
    expect(conditions.find((c) => c.type === "Progressing")).toEqual({
      type: "Progressing",
      status: "True",
      reason: "ReplicaSetUpdated",
      message: 'ReplicaSet "d-abc" is progressing.',
      lastUpdateTime: "2020-01-01T00:00:20Z",
      lastTransitionTime: "2020-01-01T00:00:00Z",
    });
    expect(deadlineInMs).toBe(10_000);
  });

  it("times out when nothing moved for progressDeadlineSeconds, not before", () => {
    const stuck = {
      ...base,
      before: counts(3, 1, 2),
      after: counts(3, 1, 2),
      conditions: [progressing("ReplicaSetUpdated", "2020-01-01T00:00:00Z")],
    };
    const waiting = deploymentConditions({ ...stuck, now: at("2020-01-01T00:00:05Z") });
    expect(waiting.deadlineInMs).toBe(5000);
    expect(waiting.conditions.find((c) => c.type === "Progressing")?.reason).toBe("ReplicaSetUpdated");
    const timedOut = deploymentConditions({ ...stuck, now: at("2020-01-01T00:00:11Z") });
    expect(timedOut.conditions.find((c) => c.type === "Progressing")).toMatchObject({
      status: "False",
      reason: "ProgressDeadlineExceeded",
      message: 'ReplicaSet "d-abc" has timed out progressing.',
    });
    expect(timedOut.deadlineInMs).toBeUndefined();
  });

  it("reports NewReplicaSetAvailable once complete, and Available by the minimum availability", () => {
    const { conditions } = deploymentConditions({
      ...base,
      before: counts(3, 2, 2),
      after: counts(3, 3, 3),
      conditions: [],
      now: at("2020-01-01T00:00:00Z"),
    });
    expect(conditions.map((c) => [c.type, c.status, c.reason])).toEqual([
      ["Available", "True", "MinimumReplicasAvailable"],
      ["Progressing", "True", "NewReplicaSetAvailable"],
    ]);
  });

  it("does not judge progress outside a rollout (paused or scaling)", () => {
    const paused = pausedCondition([], true, "2020-01-01T00:00:00Z");
    expect(paused).toEqual([
      {
        type: "Progressing",
        status: "Unknown",
        reason: "DeploymentPaused",
        message: "Deployment is paused",
        lastUpdateTime: "2020-01-01T00:00:00Z",
        lastTransitionTime: "2020-01-01T00:00:00Z",
      },
    ]);
    const { conditions } = deploymentConditions({
      ...base,
      rollout: false,
      before: counts(3, 0, 3),
      after: counts(3, 0, 3),
      conditions: paused,
      now: at("2020-01-02T00:00:00Z"),
    });
    expect(conditions.find((c) => c.type === "Progressing")?.reason).toBe("DeploymentPaused");
    expect(pausedCondition(paused, false, "2020-01-01T00:01:00Z").find((c) => c.type === "Progressing")).toMatchObject({
      status: "Unknown",
      reason: "DeploymentResumed",
      message: "Deployment is resumed",
    });
    // A timed-out condition stays when paused.
    expect(
      pausedCondition([progressing("ProgressDeadlineExceeded", "2020-01-01T00:00:00Z", "False")], true, "2020-01-01T00:01:00Z")[0]!.reason,
    ).toBe("ProgressDeadlineExceeded");
  });
});
