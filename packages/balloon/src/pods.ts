import type { V1Container, V1ContainerStatus, V1Pod } from "@kubernetes/client-node";
import { BALLOON_LABEL, BALLOON_LABEL_VALUE } from "./names.js";
import { maxResourceLists, resourceList, sumResourceLists, type ResourceList } from "./resource-list.js";

type StatusByName = ReadonlyMap<string, V1ContainerStatus>;

function statusesByName(statuses: readonly V1ContainerStatus[] | undefined): StatusByName {
  return new Map((statuses ?? []).map((status) => [status.name, status]));
}

function containerRequests(pod: V1Pod, container: V1Container, statuses: StatusByName): ResourceList {
  const context = `pod ${pod.metadata?.namespace ?? "default"}/${pod.metadata?.name ?? "?"} container ${container.name}`;
  // The API server defaults a missing request to the limit.
  const desired = resourceList({ ...container.resources?.limits, ...container.resources?.requests }, context);
  const status = statuses.get(container.name);
  if (!status) return desired;
  // The scheduler counts max(desired, allocated, actual) while a resize is in flight.
  const allocated = resourceList(status.allocatedResources ?? {}, `${context} allocatedResources`);
  const actual = resourceList(status.resources?.requests ?? {}, `${context} status.resources`);
  return maxResourceLists(desired, allocated, actual);
}

/**
 * The requests a pod holds on its node, the way the scheduler and kubelet add them up:
 * containers summed (counting in-flight resizes as max of desired, allocated and actual), sidecars
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

/** False for pods that finished (`Succeeded` or `Failed`): they no longer hold requests. */
export function isPodActive(pod: V1Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== "Succeeded" && phase !== "Failed";
}

/** True for a pod carrying the well-known balloon label. */
export function isBalloonPod(pod: V1Pod): boolean {
  return pod.metadata?.labels?.[BALLOON_LABEL] === BALLOON_LABEL_VALUE;
}
