import {
  childPath,
  fieldForbidden,
  fieldInvalid,
  indexPath,
  type FieldError,
  type ResourceDefinition,
  type ResourceStrategy,
} from "@kubekit/generic-controlplane/registry";
import { parseMilli, quantityText } from "../quantity.js";
import type { Container, PodSpec, ResourceList } from "./pod-spec.js";
import { podsResource, qosClass, validatePod, type Pod } from "./pods.js";

/** The resources a resize may change (upstream: only cpu and memory are mutable). */
const RESIZABLE = ["cpu", "memory"];

/** Sidecars: init containers that keep running (`restartPolicy: Always`) are resizable, other init containers not. */
function isRestartableInit(container: Container): boolean {
  return container.restartPolicy === "Always";
}

/**
 * upstream's dropNonResizeUpdates: a resize writes only containers' `resources` and
 * `resizePolicy`; every other change in the body (labels, images, status) is dropped, not refused.
 * Containers are matched by name, so a reordered body cannot move resources between them.
 */
function keepOnlyResizeChanges(pod: Pod, old: Pod): void {
  const next = structuredClone(old);
  // The registry goes on writing the metadata object it was given (generation, resourceVersion): refill it in place.
  const meta = (pod.metadata ??= {});
  const resourceVersion = meta.resourceVersion;
  for (const key of Object.keys(meta)) delete (meta as Record<string, unknown>)[key];
  Object.assign(meta, next.metadata ?? {});
  if (resourceVersion !== undefined) meta.resourceVersion = resourceVersion;
  next.metadata = meta;
  const take = (into: Container[] | undefined, from: Container[] | undefined) => {
    for (const container of into ?? []) {
      const sent = from?.find((c) => c.name === container.name);
      if (sent === undefined) continue;
      if (sent.resources === undefined) delete container.resources;
      else container.resources = sent.resources;
      if (sent["resizePolicy"] === undefined) delete container["resizePolicy"];
      else container["resizePolicy"] = sent["resizePolicy"];
    }
  };
  take(next.spec?.containers, pod.spec?.containers);
  take(next.spec?.initContainers, pod.spec?.initContainers);
  for (const key of Object.keys(pod)) delete (pod as Record<string, unknown>)[key];
  Object.assign(pod, next);
}

/** The running-node guard: a pod whose running containers report no `resources` runs on a kubelet that cannot resize. */
function nodeSupportsResize(pod: Pod): boolean {
  for (const status of pod.status?.containerStatuses ?? []) {
    if (status.state?.["running"] !== undefined) return status.resources !== undefined;
  }
  return true;
}

function sameQuantity(a: unknown, b: unknown): boolean {
  const x = quantityText(a);
  const y = quantityText(b);
  if (x === undefined || y === undefined) return a === b;
  const mx = parseMilli(x);
  const my = parseMilli(y);
  return mx !== undefined && my !== undefined ? mx === my : x === y;
}

function sameResourceList(a: ResourceList | undefined, b: ResourceList | undefined): boolean {
  const keys = new Set([...Object.keys(a ?? {}), ...Object.keys(b ?? {})]);
  for (const key of keys) {
    if (!(key in (a ?? {})) || !(key in (b ?? {}))) return false;
    if (!sameQuantity(a![key], b![key])) return false;
  }
  return true;
}

/** upstream's dropCPUMemoryUpdates: `list` with cpu and memory put back as they were (nil stays nil). */
function withOldCpuMemory(list: ResourceList | undefined, old: ResourceList | undefined): ResourceList | undefined {
  if (old === undefined) return undefined;
  const out: ResourceList = { ...(list ?? {}) };
  for (const name of RESIZABLE) {
    delete out[name];
    if (old[name] !== undefined) out[name] = old[name];
  }
  return out;
}

function removedErrors(containers: Container[], old: Container[], path: string, sidecarsOnly: boolean): FieldError[] {
  const errors: FieldError[] = [];
  old.forEach((was, i) => {
    if (sidecarsOnly && !isRestartableInit(was)) return;
    const now = containers[i]?.resources;
    const at = childPath(indexPath(path, i), "resources");
    if (Object.keys(was.resources?.requests ?? {}).some((name) => now?.requests?.[name] === undefined)) {
      errors.push(fieldForbidden(childPath(at, "requests"), "resource requests cannot be removed"));
    }
    if (Object.keys(was.resources?.limits ?? {}).some((name) => now?.limits?.[name] === undefined)) {
      errors.push(fieldForbidden(childPath(at, "limits"), "resource limits cannot be removed"));
    }
  });
  return errors;
}

/** Whether anything but cpu and memory (and the resize policy) changed in containers that may be resized. */
function onlyCpuMemoryChanged(spec: PodSpec | undefined, old: PodSpec | undefined): boolean {
  const compare = (containers: Container[] | undefined, before: Container[] | undefined, resizable: (c: Container) => boolean) =>
    (before ?? []).every((was, i) => {
      const now = containers?.[i];
      if (now === undefined) return false;
      if (!resizable(was))
        return (
          sameResourceList(now.resources?.requests, was.resources?.requests) &&
          sameResourceList(now.resources?.limits, was.resources?.limits)
        );
      return (
        sameResourceList(withOldCpuMemory(now.resources?.requests, was.resources?.requests), was.resources?.requests) &&
        sameResourceList(withOldCpuMemory(now.resources?.limits, was.resources?.limits), was.resources?.limits)
      );
    });
  return compare(spec?.containers, old?.containers, () => true) && compare(spec?.initContainers, old?.initContainers, isRestartableInit);
}

/**
 * ValidatePodResize: the pod is valid under create rules, its QoS class stays, it runs on a
 * node that can resize, no request or limit is removed, and only cpu and memory change. Field
 * paths and messages are upstream's, answered as 422 Invalid.
 */
export function validatePodResize(pod: Pod, old: Pod): FieldError[] {
  const errors = validatePod(pod);
  if (old.metadata?.annotations?.["kubernetes.io/config.mirror"] !== undefined)
    return [fieldForbidden("", "static pods cannot be resized")];
  const oldQoS = old.status?.qosClass ?? qosClass(old.spec);
  if (qosClass(pod.spec) !== oldQoS)
    errors.push(fieldInvalid("spec", pod.status?.qosClass ?? "", "Pod QOS Class may not change as a result of resizing"));
  if (!nodeSupportsResize(old)) errors.push(fieldForbidden("spec", "Pod running on node without support for resize"));
  errors.push(...removedErrors(pod.spec?.initContainers ?? [], old.spec?.initContainers ?? [], "spec.initContainers", true));
  errors.push(...removedErrors(pod.spec?.containers ?? [], old.spec?.containers ?? [], "spec.containers", false));
  if (!onlyCpuMemoryChanged(pod.spec, old.spec)) errors.push(fieldForbidden("spec", "only cpu and memory resources are mutable"));
  return errors;
}

/**
 * upstream's podResizeStrategy for `pods/resize`: only resources and resize policies are
 * written, the generation moves with the spec (the store's generation tracking), and the
 * result is checked by ValidatePodResize.
 */
export const podResizeStrategy: ResourceStrategy<Pod> = {
  prepareForUpdate: keepOnlyResizeChanges,
  validateUpdate: validatePodResize,
};

/** Pods as `pods/resize` writes them: the pods definition with podResizeStrategy's update rules. */
export const podResizeResource: ResourceDefinition = {
  ...podsResource,
  // The registry hands the strategy only pods (see defineResource).
  strategy: { ...podsResource.strategy, ...(podResizeStrategy as unknown as ResourceStrategy) },
};
