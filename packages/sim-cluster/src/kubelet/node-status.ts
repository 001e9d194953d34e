import type { NodeCondition } from "../resources/nodes.js";

/** A MicroTime: RFC 3339 with exactly six fractional digits. */
export function microTime(date = new Date()): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

/** Why a kubelet reports NotReady while its node boots (upstream's runtime check before the first successful relist). */
export const NOT_READY_MESSAGE = "container runtime status check may not have completed yet";

/** The conditions a kubelet posts: no pressure, and Ready or (while it boots) NotReady. */
export function nodeConditions(now: string, previous: NodeCondition[] | undefined, ready = true): NodeCondition[] {
  const make = (type: string, status: "True" | "False", reason: string, message: string): NodeCondition => {
    const before = previous?.find((c) => c.type === type);
    return {
      type,
      status,
      reason,
      message,
      lastHeartbeatTime: now,
      lastTransitionTime: before?.status === status && before.lastTransitionTime ? before.lastTransitionTime : now,
    };
  };
  return [
    make("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
    make("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
    make("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
    ready
      ? make("Ready", "True", "KubeletReady", "kubelet is posting ready status")
      : make("Ready", "False", "KubeletNotReady", NOT_READY_MESSAGE),
  ];
}
