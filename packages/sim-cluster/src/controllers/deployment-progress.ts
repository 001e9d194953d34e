/** A Deployment condition (apps/v1 DeploymentCondition). */
export interface DeploymentCondition {
  type: string;
  status: string;
  reason: string;
  message: string;
  lastUpdateTime: string;
  lastTransitionTime: string;
}

/** The counts of a Deployment's status that progress is judged by. */
export interface DeploymentCounts {
  replicas: number;
  updatedReplicas: number;
  readyReplicas: number;
  availableReplicas: number;
}

export const PROGRESSING = "Progressing";
export const AVAILABLE = "Available";
export const NEW_RS_AVAILABLE_REASON = "NewReplicaSetAvailable";
export const TIMED_OUT_REASON = "ProgressDeadlineExceeded";
export const PAUSED_REASON = "DeploymentPaused";
export const RESUMED_REASON = "DeploymentResumed";

export function newCondition(type: string, status: string, reason: string, message: string, now: string): DeploymentCondition {
  return { type, status, reason, message, lastUpdateTime: now, lastTransitionTime: now };
}

/**
 * `SetDeploymentCondition`: a condition of the same status and reason is kept as it is; one of
 * the same status keeps its lastTransitionTime; otherwise it is replaced.
 */
export function setCondition(conditions: readonly DeploymentCondition[], condition: DeploymentCondition): DeploymentCondition[] {
  const current = conditions.find((c) => c.type === condition.type);
  if (current !== undefined && current.status === condition.status && current.reason === condition.reason) return [...conditions];
  const next =
    current !== undefined && current.status === condition.status
      ? { ...condition, lastTransitionTime: current.lastTransitionTime }
      : condition;
  return [...conditions.filter((c) => c.type !== condition.type), next];
}

/** `checkPausedConditions`: Progressing Unknown while paused, `DeploymentResumed` once resumed; a timed-out condition stays. */
export function pausedCondition(conditions: readonly DeploymentCondition[], paused: boolean, now: string): DeploymentCondition[] {
  const current = conditions.find((c) => c.type === PROGRESSING);
  if (current?.reason === TIMED_OUT_REASON) return [...conditions];
  const pausedBefore = current?.reason === PAUSED_REASON;
  if (paused && !pausedBefore)
    return setCondition(conditions, newCondition(PROGRESSING, "Unknown", PAUSED_REASON, "Deployment is paused", now));
  if (!paused && pausedBefore)
    return setCondition(conditions, newCondition(PROGRESSING, "Unknown", RESUMED_REASON, "Deployment is resumed", now));
  return [...conditions];
}

/** `DeploymentComplete`: every replica updated and available, and the latest spec observed. */
export function deploymentComplete(replicas: number, status: DeploymentCounts): boolean {
  return status.updatedReplicas === replicas && status.replicas === replicas && status.availableReplicas === replicas;
}

/** `DeploymentProgressing`: more updated, ready or available pods than before, or fewer old ones. */
export function deploymentProgressing(before: DeploymentCounts, after: DeploymentCounts): boolean {
  return (
    after.updatedReplicas > before.updatedReplicas ||
    after.replicas - after.updatedReplicas < before.replicas - before.updatedReplicas ||
    after.readyReplicas > before.readyReplicas ||
    after.availableReplicas > before.availableReplicas
  );
}

/**
 * The conditions a sync leaves (upstream `calculateStatus` and, during a rollout,
 * `syncRolloutStatus`): Available by the minimum availability; Progressing True while pods move
 * (its lastUpdateTime the last sign of progress), `NewReplicaSetAvailable` once complete, False
 * `ProgressDeadlineExceeded` when nothing moved for `progressDeadlineSeconds`. With the time
 * until the deadline passes, for a sync then.
 */
export function deploymentConditions(input: {
  name: string;
  newRSName: string | undefined;
  replicas: number;
  maxUnavailable: number;
  progressDeadlineSeconds: number | undefined;
  before: DeploymentCounts;
  after: DeploymentCounts;
  conditions: readonly DeploymentCondition[];
  rollout: boolean;
  now: number;
}): { conditions: DeploymentCondition[]; deadlineInMs?: number } {
  const now = new Date(input.now).toISOString().replace(/\.\d+Z$/, "Z");
  let conditions =
    input.after.availableReplicas >= input.replicas - input.maxUnavailable
      ? setCondition(
          input.conditions,
          newCondition(AVAILABLE, "True", "MinimumReplicasAvailable", "Deployment has minimum availability.", now),
        )
      : setCondition(
          input.conditions,
          newCondition(AVAILABLE, "False", "MinimumReplicasUnavailable", "Deployment does not have minimum availability.", now),
        );
  if (!input.rollout) return { conditions };
  const deadline = input.progressDeadlineSeconds;
  if (deadline === undefined) return { conditions: conditions.filter((c) => c.type !== PROGRESSING) };
  const subject = input.newRSName !== undefined ? `ReplicaSet "${input.newRSName}"` : `Deployment "${input.name}"`;
  const current = conditions.find((c) => c.type === PROGRESSING);
  const complete = deploymentComplete(input.replicas, input.after);
  const settled = input.after.replicas === input.after.updatedReplicas && current?.reason === NEW_RS_AVAILABLE_REASON;
  if (!settled) {
    if (complete) {
      conditions = setCondition(
        conditions,
        newCondition(PROGRESSING, "True", NEW_RS_AVAILABLE_REASON, `${subject} has successfully progressed.`, now),
      );
    } else if (deploymentProgressing(input.before, input.after)) {
      const next = newCondition(PROGRESSING, "True", "ReplicaSetUpdated", `${subject} is progressing.`, now);
      if (current?.status === "True") next.lastTransitionTime = current.lastTransitionTime;
      conditions = [...conditions.filter((c) => c.type !== PROGRESSING), next];
    } else if (
      current !== undefined &&
      current.reason !== NEW_RS_AVAILABLE_REASON &&
      (current.reason === TIMED_OUT_REASON || Date.parse(current.lastUpdateTime) + deadline * 1000 < input.now)
    ) {
      conditions = setCondition(
        conditions,
        newCondition(PROGRESSING, "False", TIMED_OUT_REASON, `${subject} has timed out progressing.`, now),
      );
    }
  }
  // requeueStuckDeployment: look again when the deadline passes.
  const progressing = conditions.find((c) => c.type === PROGRESSING);
  if (progressing === undefined || complete || progressing.reason === TIMED_OUT_REASON) return { conditions };
  return { conditions, deadlineInMs: Math.max(0, Date.parse(progressing.lastUpdateTime) + deadline * 1000 - input.now) };
}
