import { parseMilli, quantityText } from "../quantity.js";
import type { Node } from "../resources/nodes.js";
import type { Container } from "../resources/pod-spec.js";
import type { Pod } from "../resources/pods.js";

function milliMap(list: Record<string, unknown> | undefined): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const [name, value] of Object.entries(list ?? {})) {
    const text = quantityText(value);
    const milli = text === undefined ? undefined : parseMilli(text);
    if (milli !== undefined) out.set(name, milli);
  }
  return out;
}

function maxInto(into: Map<string, bigint>, from: Map<string, bigint>): void {
  for (const [name, milli] of from) if (milli > (into.get(name) ?? 0n)) into.set(name, milli);
}

function addInto(into: Map<string, bigint>, from: Map<string, bigint>): void {
  for (const [name, milli] of from) into.set(name, (into.get(name) ?? 0n) + milli);
}

/** Sidecars: init containers that keep running beside the app containers (`restartPolicy: Always`). */
const isSidecar = (container: Container): boolean => container.restartPolicy === "Always";

/**
 * upstream's AggregateContainerRequests/Limits: app containers and sidecars add up; each other
 * init container runs alone beside the sidecars started before it; the pod asks the larger of
 * the two. `own` gives one container's amounts.
 */
function aggregate(pod: Pod, own: (container: Container) => Map<string, bigint>): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const container of pod.spec?.containers ?? []) addInto(out, own(container));
  const sidecars = new Map<string, bigint>();
  const init = new Map<string, bigint>();
  for (const container of pod.spec?.initContainers ?? []) {
    const amounts = own(container);
    if (isSidecar(container)) {
      addInto(out, amounts);
      addInto(sidecars, amounts);
      maxInto(init, sidecars);
    } else {
      const beside = new Map(sidecars);
      addInto(beside, amounts);
      maxInto(init, beside);
    }
  }
  maxInto(out, init);
  return out;
}

/**
 * What a pod asks of a node (upstream's PodRequests): app containers' and sidecars' requests
 * summed, or an init container's beside the sidecars before it when larger, plus
 * `spec.overhead`. With `useStatusResources` (the default, as the scheduler's
 * computePodResourceRequest and the quota evaluator with in-place resize) each app container and
 * sidecar counts max(desired, allocated, actual) while a resize is under way, so a pending upsize
 * already reserves its room; a resize reported Infeasible counts only what was allocated and actuated.
 */
export function podRequests(pod: Pod, options: { useStatusResources?: boolean } = {}): Map<string, bigint> {
  const phase = pod.status?.phase;
  const useStatus = (options.useStatusResources ?? true) && phase !== "Succeeded" && phase !== "Failed";
  const infeasible =
    pod.status?.conditions?.some((c) => c.type === "PodResizePending" && c.status === "True" && c.reason === "Infeasible") === true;
  const statuses = [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])];
  const initNames = new Set((pod.spec?.initContainers ?? []).filter((c) => !isSidecar(c)).map((c) => c.name));
  const requestsOf = (container: Container): Map<string, bigint> => {
    const desired = milliMap(container.resources?.requests);
    const status = useStatus && !initNames.has(container.name) ? statuses.find((s) => s.name === container.name) : undefined;
    if (status === undefined) return desired;
    const out = infeasible ? new Map<string, bigint>() : desired;
    maxInto(out, milliMap(status.allocatedResources));
    maxInto(out, milliMap(status.resources?.requests));
    return out;
  };
  const out = aggregate(pod, requestsOf);
  addInto(out, milliMap(pod.spec?.["overhead"]));
  return out;
}

/**
 * A pod's limits (upstream's PodLimits): aggregated as its requests are, with each container's
 * running limits counted while a resize is under way; the overhead adds to the limits that are set.
 */
export function podLimits(pod: Pod): Map<string, bigint> {
  const statuses = pod.status?.containerStatuses ?? [];
  const out = aggregate(pod, (container) => {
    const limits = milliMap(container.resources?.limits);
    maxInto(limits, milliMap(statuses.find((s) => s.name === container.name)?.resources?.limits));
    return limits;
  });
  for (const [name, milli] of milliMap(pod.spec?.["overhead"])) {
    const limit = out.get(name);
    if (limit !== undefined) out.set(name, limit + milli);
  }
  return out;
}

export function allocatableOf(node: Node): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const [name, value] of Object.entries(node.status?.allocatable ?? {})) {
    const milli = parseMilli(String(value));
    if (milli !== undefined) out.set(name, milli);
  }
  return out;
}

// A Node object is replaced, never changed, on every update: its allocatable is parsed once per
// object rather than once per pod and node at every scheduling attempt.
const allocatables = new WeakMap<Node, ReadonlyMap<string, bigint>>();

/** `allocatableOf`, parsed once per Node object; not to be changed. */
export function nodeAllocatable(node: Node): ReadonlyMap<string, bigint> {
  let allocatable = allocatables.get(node);
  if (allocatable === undefined) allocatables.set(node, (allocatable = allocatableOf(node)));
  return allocatable;
}

/**
 * The NodeResourcesFit filter (with the pod count): why `pod` does not fit `node` given what is
 * already placed there (`used`, by resource, and `podCount`), in upstream's words; empty when it fits.
 */
export function resourceFitReasons(
  pod: Pod,
  node: Node,
  used: ReadonlyMap<string, bigint>,
  podCount: number,
  requests: ReadonlyMap<string, bigint> = podRequests(pod),
): string[] {
  const reasons: string[] = [];
  const allocatable = nodeAllocatable(node);
  const maxPods = allocatable.get("pods");
  if (maxPods !== undefined && BigInt(podCount + 1) * 1000n > maxPods) reasons.push("Too many pods");
  for (const [name, request] of requests) {
    if (request === 0n) continue;
    const have = allocatable.get(name) ?? 0n;
    if ((used.get(name) ?? 0n) + request > have) reasons.push(`Insufficient ${name}`);
  }
  return reasons;
}

/** The FitError message: `0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match Pod's node affinity/selector.` */
export function fitErrorMessage(nodeCount: number, reasonsByNode: ReadonlyArray<readonly string[]>): string {
  const counts = new Map<string, number>();
  for (const reasons of reasonsByNode) for (const reason of reasons) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  const parts = [...counts].map(([reason, n]) => `${n} ${reason}`).sort();
  return `0/${nodeCount} nodes are available: ${parts.join(", ")}.`;
}
