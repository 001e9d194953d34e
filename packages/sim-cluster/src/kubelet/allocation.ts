import type { Container, ResourceList } from "../resources/pod-spec.js";
import type { Pod } from "../resources/pods.js";
import { podRequests } from "../scheduler/fit.js";
import { parseMilli, quantityText } from "../quantity.js";

/** A container's requests and limits, as allocated to it or as it runs with them. */
export interface ContainerResources {
  requests?: ResourceList;
  limits?: ResourceList;
}

/** Why a resize waits: the kubelet's PodResizePending reasons. */
export type PendingReason = "Deferred" | "Infeasible";

export type ResizeVerdict = { fits: true } | { fits: false; reason: PendingReason; message: string };

/** The resources a container asks for in its spec, as the kubelet allocates them. */
export function resourcesOf(container: Container): ContainerResources {
  const out: ContainerResources = {};
  if (container.resources?.requests !== undefined && Object.keys(container.resources.requests).length > 0)
    out.requests = { ...container.resources.requests };
  if (container.resources?.limits !== undefined && Object.keys(container.resources.limits).length > 0)
    out.limits = { ...container.resources.limits };
  return out;
}

function sameList(a: ResourceList | undefined, b: ResourceList | undefined): boolean {
  const keys = new Set([...Object.keys(a ?? {}), ...Object.keys(b ?? {})]);
  for (const key of keys) {
    const x = quantityText(a?.[key]);
    const y = quantityText(b?.[key]);
    if (x === undefined || y === undefined) return false;
    if (parseMilli(x) !== parseMilli(y)) return false;
  }
  return true;
}

export function sameResources(a: ContainerResources | undefined, b: ContainerResources | undefined): boolean {
  return sameList(a?.requests, b?.requests) && sameList(a?.limits, b?.limits);
}

/** The resources (cpu, memory) whose request or limit differs between `a` and `b`. */
export function changedResources(a: ContainerResources, b: ContainerResources): string[] {
  const names = new Set([
    ...Object.keys(a.requests ?? {}),
    ...Object.keys(b.requests ?? {}),
    ...Object.keys(a.limits ?? {}),
    ...Object.keys(b.limits ?? {}),
  ]);
  return [...names].filter(
    (name) =>
      !sameList({ [name]: a.requests?.[name] ?? "0" }, { [name]: b.requests?.[name] ?? "0" }) ||
      !sameList({ [name]: a.limits?.[name] ?? "0" }, { [name]: b.limits?.[name] ?? "0" }),
  );
}

/** A quantity as the kubelet prints it in messages: millicores for cpu, whole units (rounded up) otherwise. */
function printed(resource: string, milli: bigint): bigint {
  return resource === "cpu" ? milli : (milli + 999n) / 1000n;
}

/** The order noderesources.Fits checks resources in: cpu, memory, ephemeral storage, then extended resources. */
function fitOrder(names: Iterable<string>): string[] {
  const first = ["cpu", "memory", "ephemeral-storage"];
  const rest = [...names].filter((n) => !first.includes(n) && n !== "pods").sort();
  return [...first, ...rest];
}

/**
 * The kubelet's verdict on a resize (canResizePod): Infeasible when the pod's desired requests
 * exceed the node's allocatable cpu or memory ("Node didn't have enough capacity: memory,
 * requested: …, capacity: …", memory named first); Deferred when they do not fit beside what the
 * other pods on the node hold (each counted at max(allocated, actuated)), in the words of the
 * admission predicate's InsufficientResourceError; otherwise it fits. Never evicts anything.
 */
export function checkResize(desired: Pod, allocatable: ReadonlyMap<string, bigint>, others: readonly Pod[]): ResizeVerdict {
  const request = podRequests(desired, { useStatusResources: false });
  const cpu = request.get("cpu") ?? 0n;
  const memory = printed("memory", request.get("memory") ?? 0n);
  const cpuCapacity = allocatable.get("cpu") ?? 0n;
  const memoryCapacity = printed("memory", allocatable.get("memory") ?? 0n);
  if (cpu > cpuCapacity || memory > memoryCapacity) {
    const detail =
      memory > memoryCapacity
        ? `memory, requested: ${memory}, capacity: ${memoryCapacity}`
        : `cpu, requested: ${cpu}, capacity: ${cpuCapacity}`;
    return { fits: false, reason: "Infeasible", message: `Node didn't have enough capacity: ${detail}` };
  }
  const used = new Map<string, bigint>();
  for (const pod of others) for (const [name, milli] of podRequests(pod)) used.set(name, (used.get(name) ?? 0n) + milli);
  const maxPods = allocatable.get("pods");
  if (maxPods !== undefined && BigInt(others.length + 1) * 1000n > maxPods) {
    return {
      fits: false,
      reason: "Deferred",
      message: `Node didn't have enough resource: pods, requested: 1, used: ${others.length}, capacity: ${maxPods / 1000n}`,
    };
  }
  for (const name of fitOrder(request.keys())) {
    const wanted = request.get(name) ?? 0n;
    if (wanted <= 0n) continue;
    const have = allocatable.get(name) ?? 0n;
    const taken = used.get(name) ?? 0n;
    if (wanted > have - taken) {
      return {
        fits: false,
        reason: "Deferred",
        message: `Node didn't have enough resource: ${name}, requested: ${printed(name, wanted)}, used: ${printed(name, taken)}, capacity: ${printed(name, have)}`,
      };
    }
  }
  return { fits: true };
}
