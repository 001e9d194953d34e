import type { KubeObject } from "@kubekit/generic-controlplane";
import type { EventHandlers, Informer, ReconcileContext } from "@kubekit/generic-controlplane/controllers";
import type { Pod } from "../resources/pods.js";
import type { Service, ServicePort } from "../resources/services.js";
import { selectorMatches } from "../selector.js";
import { familyOf, type IPFamily } from "../allocators/cluster-ip.js";
import { keyOf } from "./util.js";

/**
 * The service's port on `pod` (podutil.FindPort): a number as given, a name looked up among the
 * pod's container ports of the same protocol; undefined when the pod has no such port.
 */
export function findPort(pod: Pod, servicePort: ServicePort): number | undefined {
  const target = servicePort.targetPort ?? servicePort.port;
  if (typeof target === "number") return target;
  const protocol = servicePort.protocol ?? "TCP";
  for (const container of pod.spec?.containers ?? []) {
    for (const port of container.ports ?? []) {
      if (port.name === target && (port.protocol ?? "TCP") === protocol) return port.containerPort;
    }
  }
  return undefined;
}

/**
 * ShouldPodBeInEndpoints: a pod with an IP that has not finished; a terminating one only when
 * `includeTerminating`.
 */
export function shouldPodBeInEndpoints(pod: Pod, includeTerminating: boolean): boolean {
  if (!pod.status?.podIP && (pod.status?.podIPs ?? []).length === 0) return false;
  if (!includeTerminating && pod.metadata?.deletionTimestamp) return false;
  const phase = pod.status?.phase;
  return phase !== "Succeeded" && phase !== "Failed";
}

/** ShouldSetHostname: the pod names a hostname and sits in the service's subdomain. */
export function hostnameFor(pod: Pod, service: Service): string | undefined {
  const hostname = pod.spec?.["hostname"];
  return typeof hostname === "string" &&
    hostname !== "" &&
    pod.spec?.["subdomain"] === service.metadata?.name &&
    pod.metadata?.namespace === service.metadata?.namespace
    ? hostname
    : undefined;
}

/** Whether the endpoints controllers act on `service`: one with a selector that is not ExternalName. */
export function hasManagedEndpoints(service: Service): boolean {
  return service.spec?.selector !== undefined && service.spec.type !== "ExternalName";
}

/** The pods `service` selects, from the informer cache. */
export function podsOf(service: Service, pods: Informer): Pod[] {
  const selector = { matchLabels: service.spec?.selector ?? {} };
  const namespace = service.metadata?.namespace;
  return (pods.cache.list() as Pod[]).filter(
    (pod) => pod.metadata?.namespace === namespace && selectorMatches(selector, pod.metadata?.labels),
  );
}

/**
 * A pod's services: those that select it before or after the change, enqueued when it appears,
 * changes or goes, as both upstream controllers do (for a controller of services).
 */
export function servicesOfPods({ queue, primary: services }: ReconcileContext<unknown>): EventHandlers {
  const forPod = (...versions: KubeObject[]) => {
    const namespace = versions[0]?.metadata?.namespace;
    for (const service of services.cache.list() as Service[]) {
      if (service.metadata?.namespace !== namespace || service.spec?.selector === undefined) continue;
      const selector = { matchLabels: service.spec.selector };
      if (versions.some((pod) => selectorMatches(selector, pod.metadata?.labels))) queue.add(keyOf(service));
    }
  };
  return { add: (pod) => forPod(pod), update: (old, pod) => forPod(old, pod), delete: (pod) => forPod(pod) };
}

/** The pod's address of `family` (from `status.podIPs`, or `podIP` of a client that sets only that). */
export function podIPOfFamily(pod: Pod, family: IPFamily): string | undefined {
  const ips = (pod.status?.podIPs ?? []).map((p) => p.ip);
  if (ips.length === 0 && pod.status?.podIP) ips.push(pod.status.podIP);
  return ips.find((ip) => familyOf(ip) === family);
}

/**
 * The family the Endpoints object lists (podToEndpointAddressForService): the service's primary
 * `ipFamilies` entry, else its ClusterIP's family, else (headless) the pod's primary address's.
 */
export function endpointsFamily(service: Service, pod: Pod): IPFamily {
  const primary = service.spec?.ipFamilies?.[0];
  if (primary === "IPv4" || primary === "IPv6") return primary;
  const clusterIP = service.spec?.clusterIP;
  if (clusterIP && clusterIP !== "None") return familyOf(clusterIP) ?? "IPv4";
  return familyOf(pod.status?.podIPs?.[0]?.ip ?? pod.status?.podIP ?? "") ?? "IPv4";
}
