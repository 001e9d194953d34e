import type { ClaimCondition, NetworkClaimStatus } from "./api.js";

/*
 * A claim's conditions, from its decided status: `Ready` (every record granted) and `Conflict`
 * (a record refused, with the first refusal's reason). As API conventions ask, a condition keeps
 * its lastTransitionTime while its status stays the same.
 */

type Outcome = Pick<ClaimCondition, "type" | "status" | "reason" | "message">;

function outcomes(status: NetworkClaimStatus): Outcome[] {
  if (status.phase === "Invalid") {
    const message = status.message ?? "the spec cannot be decided";
    return [
      { type: "Ready", status: "False", reason: "Invalid", message },
      { type: "Conflict", status: "Unknown", reason: "Invalid", message },
    ];
  }
  const refused = (status.addressSpace ?? []).filter((r) => r.conflict !== undefined);
  if (refused.length === 0) {
    return [
      { type: "Ready", status: "True", reason: "Allocated", message: `granted ${status.allocatedPrefixes ?? "nothing"}` },
      { type: "Conflict", status: "False", reason: "NoConflict", message: "no record is refused" },
    ];
  }
  const messages = refused.map((r) => r.conflict!.message).join("; ");
  return [
    { type: "Ready", status: "False", reason: "Conflict", message: `${refused.length} of ${status.addressSpace!.length} records refused` },
    { type: "Conflict", status: "True", reason: refused[0]!.conflict!.reason, message: messages },
  ];
}

/** The conditions for `status`, keeping each stored condition's transition time while its status is unchanged. */
export function claimConditions(status: NetworkClaimStatus, stored: readonly ClaimCondition[] | undefined, now: string): ClaimCondition[] {
  return outcomes(status).map((outcome) => {
    const previous = stored?.find((c) => c.type === outcome.type);
    const lastTransitionTime = previous !== undefined && previous.status === outcome.status ? previous.lastTransitionTime : now;
    return {
      ...outcome,
      lastTransitionTime,
      ...(status.observedGeneration !== undefined ? { observedGeneration: status.observedGeneration } : {}),
    };
  });
}

/** Now, at the seconds precision of a Kubernetes timestamp. */
export function conditionTime(date = new Date()): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}
