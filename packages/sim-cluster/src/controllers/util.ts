import type { KubeObject, OwnerReference } from "@kubekit/generic-controlplane";
import { isApiError } from "@kubekit/generic-controlplane/controllers";
import type { Pod } from "../resources/pods.js";

// One implementation each: the controller runtime's and upstream's pod predicate.
export { aborted } from "@kubekit/generic-controlplane/controllers";
export { isPodActive } from "@kubekit/apimachinery";

export function controllerRefOf(object: KubeObject): OwnerReference | undefined {
  return object.metadata?.ownerReferences?.find((ref) => ref.controller === true);
}

export function isOwnedBy(object: KubeObject, owner: KubeObject): boolean {
  return controllerRefOf(object)?.uid === owner.metadata?.uid;
}

export function ownerReferenceTo(owner: KubeObject, apiVersion: string, kind: string): OwnerReference {
  return { apiVersion, kind, name: owner.metadata?.name ?? "", uid: owner.metadata?.uid ?? "", controller: true, blockOwnerDeletion: true };
}

/** The pod as an Event's involvedObject. */
export function podReference(pod: Pod): { apiVersion: string; kind: string; namespace: string; name: string; uid: string } {
  return {
    apiVersion: "v1",
    kind: "Pod",
    namespace: pod.metadata?.namespace ?? "",
    name: pod.metadata?.name ?? "",
    uid: pod.metadata?.uid ?? "",
  };
}

export function isPodReady(pod: Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") === true;
}

/**
 * A sync that ends quietly on a 409 or 404: the cache it read was stale, and the event that
 * updates the cache requeues the key (as upstream's controllers rely on).
 */
export function toleratingStaleCache<T, Rest extends unknown[]>(
  sync: (key: string, ...rest: Rest) => Promise<T>,
): (key: string, ...rest: Rest) => Promise<T | undefined> {
  return async (key, ...rest) => {
    try {
      return await sync(key, ...rest);
    } catch (error) {
      if (isApiError(error) && (error.code === 409 || error.code === 404)) return undefined;
      throw error;
    }
  };
}

/** `namespace/name`, the work queue key. */
export function keyOf(object: KubeObject): string {
  const meta = object.metadata ?? {};
  return meta.namespace ? `${meta.namespace}/${meta.name ?? ""}` : (meta.name ?? "");
}

export function nowRFC3339(): string {
  return new Date().toISOString().replace(/\.\d+Z$/, "Z");
}

/**
 * `podutil.IsPodAvailable`: ready, and ready for at least `minReadySeconds` by `now` (ms); with
 * the time until it will be when it is ready but not yet available.
 */
export function podAvailability(pod: Pod, minReadySeconds: number, now: number): { available: boolean; inMs?: number } {
  const ready = pod.status?.conditions?.find((c) => c.type === "Ready" && c.status === "True");
  if (ready === undefined) return { available: false };
  if (minReadySeconds <= 0) return { available: true };
  const since = Date.parse(ready.lastTransitionTime ?? "");
  if (!Number.isFinite(since)) return { available: false };
  const at = since + minReadySeconds * 1000;
  return at <= now ? { available: true } : { available: false, inMs: at - now };
}
