import type { Container as V1Container, ContainerStatus as V1ContainerStatus, Pod as V1Pod } from "@kubekit/client";
import { BALLOON_LABEL, BALLOON_LABEL_VALUE } from "./names.js";
import { maxResourceLists, resourceList, sumResourceLists, type ResourceList } from "./resource-list.js";

// Upstream's pod predicates: a finished pod (terminal) holds no requests; an active one also is not being deleted.
export { isPodActive, isPodTerminal } from "@kubekit/apimachinery";

type StatusByName = ReadonlyMap<string, V1ContainerStatus>;

function statusesByName(statuses: readonly V1ContainerStatus[] | undefined): StatusByName {
  return new Map((statuses ?? []).map((status) => [status.name, status]));
}

function containerRequests(pod: V1Pod, container: V1Container, statuses: StatusByName): ResourceList {
  const context = `pod ${pod.metadata?.namespace ?? "default"}/${pod.metadata?.name ?? "?"} container ${container.name}`;
  // The API server defaults a missing request to the limit.
  const desired = resourceList({ ...container.resources?.limits, ...container.resources?.requests }, context);
  const status = statuses.get(container.name);
  // Upstream's determineContainerReqs applies only once the kubelet reports the container's resources.
  if (!status?.resources) return desired;
  const allocated = resourceList(status.allocatedResources ?? {}, `${context} allocatedResources`);
  const actual = resourceList(status.resources.requests ?? {}, `${context} status.resources`);
  // An Infeasible resize will never be applied, so it holds only what is allocated and actuated;
  // any other resize in flight counts at max(desired, actual, allocated).
  if (podResizeState(pod).pending === "Infeasible") return maxResourceLists(actual, allocated);
  return maxResourceLists(desired, actual, allocated);
}

/**
 * The requests a pod holds on its node, the way the scheduler adds them up
 * (`computePodResourceRequest` with status resources): containers summed (an in-flight resize
 * counts as max of desired, allocated and actual, an Infeasible one without desired), sidecars
 * (init containers with `restartPolicy: Always`) added, the largest ordinary init container taken
 * if bigger, pod-level `spec.resources.requests` winning where set, and pod overhead added.
 */
export function podRequests(pod: V1Pod): ResourceList {
  const spec = pod.spec;
  if (!spec) return {};
  const statuses = statusesByName(pod.status?.containerStatuses);
  const initStatuses = statusesByName(pod.status?.initContainerStatuses);

  let total = sumResourceLists(...spec.containers.map((c) => containerRequests(pod, c, statuses)));
  let sidecars: ResourceList = {};
  let initPeak: ResourceList = {};
  for (const container of spec.initContainers ?? []) {
    const requests = containerRequests(pod, container, initStatuses);
    if (container.restartPolicy === "Always") {
      total = sumResourceLists(total, requests);
      sidecars = sumResourceLists(sidecars, requests);
      initPeak = maxResourceLists(initPeak, sidecars);
    } else {
      initPeak = maxResourceLists(initPeak, sumResourceLists(requests, sidecars));
    }
  }
  total = maxResourceLists(total, initPeak);
  if (spec.resources?.requests) total = { ...total, ...resourceList(spec.resources.requests, "pod-level resources") };
  if (spec.overhead) total = sumResourceLists(total, resourceList(spec.overhead, "pod overhead"));
  return total;
}

/** True for a pod carrying the well-known balloon label. */
export function isBalloonPod(pod: V1Pod): boolean {
  return pod.metadata?.labels?.[BALLOON_LABEL] === BALLOON_LABEL_VALUE;
}

/** The in-place resize conditions of a pod (KEP-1287), as the kubelet reports them. */
export interface PodResizeState {
  /** `PodResizePending`'s reason: the kubelet has not allocated the spec yet. */
  readonly pending?: "Deferred" | "Infeasible";
  readonly pendingMessage?: string;
  /** `PodResizeInProgress`: allocated but not yet actuated. */
  readonly inProgress: boolean;
  /** `PodResizeInProgress` with reason `Error`: actuation failed, with the kubelet's message. */
  readonly inProgressError?: string;
}

/** Reads `PodResizePending` and `PodResizeInProgress` from `status.conditions`. */
export function podResizeState(pod: V1Pod): PodResizeState {
  const conditions = pod.status?.conditions ?? [];
  const pending = conditions.find((c) => c.type === "PodResizePending" && c.status === "True");
  const progress = conditions.find((c) => c.type === "PodResizeInProgress" && c.status === "True");
  const reason = pending?.reason === "Deferred" || pending?.reason === "Infeasible" ? pending.reason : undefined;
  return {
    ...(reason ? { pending: reason } : {}),
    ...(pending?.message ? { pendingMessage: pending.message } : {}),
    inProgress: progress !== undefined,
    ...(progress?.reason === "Error" ? { inProgressError: progress.message ?? "" } : {}),
  };
}

/** True once a pod is being deleted: it still holds its requests until the kubelet has stopped it. */
export function isPodTerminating(pod: V1Pod): boolean {
  return Boolean(pod.metadata?.deletionTimestamp);
}

/** The pod's QoS class: `status.qosClass` when the API server has set it, else computed as upstream's `GetPodQOS`. */
export function podQOSClass(pod: V1Pod): "Guaranteed" | "Burstable" | "BestEffort" {
  const reported = pod.status?.qosClass;
  if (reported === "Guaranteed" || reported === "Burstable" || reported === "BestEffort") return reported;
  const containers = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])];
  let any = false;
  let guaranteed = containers.length > 0;
  for (const container of containers) {
    const requests = resourceList(container.resources?.requests ?? {}, "requests");
    const limits = resourceList(container.resources?.limits ?? {}, "limits");
    for (const name of ["cpu", "memory"]) {
      const request = requests[name];
      const limit = limits[name];
      if ((request && request.sign() > 0) || (limit && limit.sign() > 0)) any = true;
      // A missing request defaults to the limit; Guaranteed needs both limits, each equal to its request.
      if (!limit || (request && !request.equals(limit))) guaranteed = false;
    }
  }
  if (!any) return "BestEffort";
  return guaranteed ? "Guaranteed" : "Burstable";
}
