import type { Pod } from "@kubekit/client";
import { BALLOON_CONTAINER } from "./names.js";
import { podResizeState } from "./pods.js";
import { resourceList, type ResourceList } from "./resource-list.js";

/** Where a submitted balloon resize stands, as the kubelet reports it on the pod. */
export type ResizeProgress =
  | { readonly state: "applied"; readonly allocated: ResourceList }
  | { readonly state: "deferred" | "infeasible"; readonly message: string }
  /** Allocated but not actuated yet, or the kubelet has not looked at this generation yet. */
  | { readonly state: "waiting"; readonly message: string };

/**
 * Reads the balloon pod's status after a resize to `planned` (the balloon container's requests)
 * submitted at pod `generation`. A status the kubelet wrote before it saw that generation
 * (`status.observedGeneration` or the condition's `observedGeneration` below it) is not trusted.
 * Applied means: allocated equals the spec for every planned resource, no `PodResizePending`, no
 * `PodResizeInProgress`, and the runtime's `status.resources` (when reported) caught up.
 */
export function resizeProgress(pod: Pod, planned: ResourceList, generation?: number): ResizeProgress {
  const status = pod.status;
  const observed = status?.observedGeneration;
  if (generation !== undefined && observed !== undefined && observed < generation) {
    return { state: "waiting", message: `the kubelet has observed generation ${observed}, not yet ${generation}` };
  }
  const conditions = status?.conditions ?? [];
  const pendingCondition = conditions.find((c) => c.type === "PodResizePending" && c.status === "True");
  const stale =
    generation !== undefined && pendingCondition?.observedGeneration !== undefined && pendingCondition.observedGeneration < generation;
  const resize = podResizeState(pod);
  if (resize.pending && !stale) {
    const message = resize.pendingMessage ?? `resize ${resize.pending.toLowerCase()}`;
    return { state: resize.pending === "Deferred" ? "deferred" : "infeasible", message };
  }
  const container = status?.containerStatuses?.find((c) => c.name === BALLOON_CONTAINER);
  const allocated = resourceList(container?.allocatedResources ?? {}, "balloon allocatedResources");
  const actual = container?.resources?.requests ? resourceList(container.resources.requests, "balloon status.resources") : undefined;
  for (const [name, quantity] of Object.entries(planned)) {
    const have = allocated[name];
    if (!have?.equals(quantity)) {
      return { state: "waiting", message: `${name} allocated ${have?.toString() ?? "none"}, asked ${quantity.toString()}` };
    }
    const running = actual?.[name];
    if (actual && !running?.equals(quantity)) {
      return { state: "waiting", message: `${name} actuated ${running?.toString() ?? "none"}, allocated ${quantity.toString()}` };
    }
  }
  if (resize.inProgress) {
    return { state: "waiting", message: resize.inProgressError ? `in progress with an error: ${resize.inProgressError}` : "in progress" };
  }
  return { state: "applied", allocated };
}
