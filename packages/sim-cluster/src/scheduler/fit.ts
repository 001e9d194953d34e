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

/**
 * What a pod asks of a node: the larger of its containers' summed requests and its largest init
 * container's, plus its RuntimeClass overhead (upstream's PodRequests). With `useStatusResources` (the default, as the scheduler's
 * computePodResourceRequest) each container counts max(desired, allocated, actual) while a resize
 * is under way, so a pending upsize already reserves its room; a resize reported Infeasible
 * counts only what was allocated and actuated.
 */
export function podRequests(pod: Pod, options: { useStatusResources?: boolean } = {}): Map<string, bigint> {
  const phase = pod.status?.phase;
  const useStatus = (options.useStatusResources ?? true) && phase !== "Succeeded" && phase !== "Failed";
  const infeasible = pod.status?.conditions?.some((c) => c.type === "PodResizePending" && c.status === "True" && c.reason === "Infeasible") === true;
  const statuses = [...(pod.status?.containerStatuses ?? []), ...(pod.status?.initContainerStatuses ?? [])];
  const requestsOf = (container: Container): Map<string, bigint> => {
    const desired = milliMap(container.resources?.requests);
    const status = useStatus ? statuses.find((s) => s.name === container.name) : undefined;
    if (status === undefined) return desired;
    const out = infeasible ? new Map<string, bigint>() : desired;
    maxInto(out, milliMap(status.allocatedResources));
    maxInto(out, milliMap(status.resources?.requests));
    return out;
  };
  const out = new Map<string, bigint>();
  for (const container of pod.spec?.containers ?? []) {
    for (const [name, milli] of requestsOf(container)) out.set(name, (out.get(name) ?? 0n) + milli);
  }
  for (const container of pod.spec?.initContainers ?? []) maxInto(out, requestsOf(container));
  for (const [name, milli] of milliMap(pod.spec?.overhead)) out.set(name, (out.get(name) ?? 0n) + milli);
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

/**
 * The NodeResourcesFit filter (with the pod count): why `pod` does not fit `node` given what is
 * already placed there (`used`, by resource, and `podCount`), in upstream's words; empty when it fits.
 */
export function resourceFitReasons(pod: Pod, node: Node, used: Map<string, bigint>, podCount: number): string[] {
  const reasons: string[] = [];
  const allocatable = allocatableOf(node);
  const maxPods = allocatable.get("pods");
  if (maxPods !== undefined && BigInt(podCount + 1) * 1000n > maxPods) reasons.push("Too many pods");
  for (const [name, request] of podRequests(pod)) {
    if (request === 0n) continue;
    const have = allocatable.get(name) ?? 0n;
    if ((used.get(name) ?? 0n) + request > have) reasons.push(`Insufficient ${name}`);
  }
  return reasons;
}

/** The FitError message: `0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't match Pod's node affinity/selector.` */
export function fitErrorMessage(nodeCount: number, reasonsByNode: readonly string[][]): string {
  const counts = new Map<string, number>();
  for (const reasons of reasonsByNode) for (const reason of reasons) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  const parts = [...counts].map(([reason, n]) => `${n} ${reason}`).sort();
  return `0/${nodeCount} nodes are available: ${parts.join(", ")}.`;
}
