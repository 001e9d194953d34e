import { controllerFor, isNotFound, splitKey, type Controller } from "@kubekit/generic-controlplane/controllers";
import { ENDPOINTS, type EndpointAddress, type EndpointPort, type Endpoints, type EndpointSubset } from "../resources/endpoints.js";
import type { Pod } from "../resources/pods.js";
import type { Service } from "../resources/services.js";
import { PODS, SERVICES } from "../refs.js";
import {
  endpointsFamily,
  findPort,
  hasManagedEndpoints,
  hostnameFor,
  podIPOfFamily,
  podsOf,
  servicesOfPods,
  shouldPodBeInEndpoints,
} from "./endpoints-util.js";
import { isPodReady } from "./util.js";

/** The label upstream puts on Endpoints (and slices) of a headless service. */
export const LABEL_HEADLESS = "service.kubernetes.io/headless";

/** The pod as an address of the service's primary family; undefined when it has no IP of that family. */
function addressOf(pod: Pod, service: Service): EndpointAddress | undefined {
  const hostname = hostnameFor(pod, service);
  const ip = podIPOfFamily(pod, endpointsFamily(service, pod));
  if (ip === undefined) return undefined;
  return {
    ip,
    ...(hostname !== undefined ? { hostname } : {}),
    ...(pod.spec?.nodeName ? { nodeName: pod.spec.nodeName } : {}),
    targetRef: { kind: "Pod", namespace: pod.metadata?.namespace ?? "", name: pod.metadata?.name ?? "", uid: pod.metadata?.uid ?? "" },
  };
}

/**
 * RepackSubsets: each address (with its readiness) gets the set of ports it offers, and addresses
 * offering the same set share a subset; an address ready anywhere is not also listed not ready;
 * addresses sorted by IP, subsets in a stable order.
 */
export function repackSubsets(entries: Array<{ address: EndpointAddress; ready: boolean; ports: EndpointPort[] }>): EndpointSubset[] {
  const byAddress = new Map<string, { address: EndpointAddress; ready: boolean; ports: Map<string, EndpointPort> }>();
  for (const { address, ready, ports } of entries) {
    const id = `${address.ip}/${address.targetRef?.uid ?? ""}/${ready}`;
    let entry = byAddress.get(id);
    if (entry === undefined) byAddress.set(id, (entry = { address, ready, ports: new Map() }));
    for (const port of ports) entry.ports.set(JSON.stringify([port.name ?? "", port.port, port.protocol ?? "TCP"]), port);
  }
  const readyIPs = new Set([...byAddress.values()].filter((e) => e.ready).map((e) => `${e.address.ip}/${e.address.targetRef?.uid ?? ""}`));
  const bySet = new Map<string, { ports: EndpointPort[]; ready: EndpointAddress[]; notReady: EndpointAddress[] }>();
  for (const entry of byAddress.values()) {
    if (!entry.ready && readyIPs.has(`${entry.address.ip}/${entry.address.targetRef?.uid ?? ""}`)) continue;
    const keys = [...entry.ports.keys()].sort();
    const key = JSON.stringify(keys);
    let subset = bySet.get(key);
    if (subset === undefined) bySet.set(key, (subset = { ports: keys.map((k) => entry.ports.get(k)!), ready: [], notReady: [] }));
    (entry.ready ? subset.ready : subset.notReady).push(entry.address);
  }
  const byIP = (a: EndpointAddress, b: EndpointAddress) =>
    a.ip.localeCompare(b.ip, "en", { numeric: true }) || (a.targetRef?.uid ?? "").localeCompare(b.targetRef?.uid ?? "");
  return [...bySet.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([, subset]) => {
      const addresses = subset.ready.sort(byIP);
      const notReadyAddresses = subset.notReady.sort(byIP);
      return {
        ...(addresses.length > 0 ? { addresses } : {}),
        ...(notReadyAddresses.length > 0 ? { notReadyAddresses } : {}),
        ...(subset.ports.length > 0 ? { ports: subset.ports } : {}),
      };
    });
}

/** The subsets upstream's syncService computes for `service` from its pods. */
export function desiredSubsets(service: Service, pods: Pod[]): EndpointSubset[] {
  const publishNotReady = service.spec?.["publishNotReadyAddresses"] === true;
  const entries: Array<{ address: EndpointAddress; ready: boolean; ports: EndpointPort[] }> = [];
  const ports = service.spec?.ports ?? [];
  for (const pod of pods) {
    if (!shouldPodBeInEndpoints(pod, publishNotReady)) continue;
    const address = addressOf(pod, service);
    if (address === undefined) continue;
    const ready = publishNotReady || isPodReady(pod);
    if (ports.length === 0) {
      // A headless service without ports still lists its pods.
      if (service.spec?.clusterIP === "None") entries.push({ address, ready, ports: [] });
      continue;
    }
    for (const servicePort of ports) {
      const port = findPort(pod, servicePort);
      if (port === undefined) continue;
      entries.push({
        address,
        ready,
        ports: [
          {
            ...(servicePort.name ? { name: servicePort.name } : {}),
            port,
            protocol: servicePort.protocol ?? "TCP",
            ...(typeof servicePort["appProtocol"] === "string" ? { appProtocol: servicePort["appProtocol"] } : {}),
          },
        ],
      });
    }
  }
  return repackSubsets(entries);
}

/** Upstream's Endpoints labels: the service's own, and the headless marker for a service without a ClusterIP. */
export function endpointsLabels(service: Service): Record<string, string> {
  const labels: Record<string, string> = { ...(service.metadata?.labels ?? {}) };
  if (service.spec?.clusterIP === "None") labels[LABEL_HEADLESS] = "";
  else delete labels[LABEL_HEADLESS];
  return labels;
}

/**
 * The endpoints controller (upstream `pkg/controller/endpoint`): one Endpoints object per
 * Service with a selector, named as the Service, listing the selected pods' IPs as ready or not
 * ready addresses per resolved port set; deleted with the Service. Services without a selector
 * keep Endpoints their owner writes. Not done: the 1000-address truncation annotation and
 * last-change-trigger-time.
 */
export function endpointsController(options: { workers?: number } = {}): Controller {
  return controllerFor(SERVICES)
    .named("endpoints")
    .watches(PODS, { handlers: servicesOfPods })
    .watches(ENDPOINTS, (object) => `${object.metadata?.namespace ?? ""}/${object.metadata?.name ?? ""}`, { on: ["delete"] })
    .withOptions({ workers: options.workers ?? 2, queueName: "endpoint" })
    .complete(async (key, { client, primary: services, informer }) => {
      const pods = informer(PODS);
      const endpoints = informer(ENDPOINTS);
      const { namespace, name } = splitKey(key);
      const service = services.cache.get(key) as Service | undefined;
      const current = endpoints.cache.get(key) as Endpoints | undefined;
      if (service === undefined) {
        if (current === undefined) return;
        // As upstream: the Endpoints go with the Service.
        try {
          await client.delete(ENDPOINTS, namespace, name);
        } catch (error) {
          if (!isNotFound(error)) throw error;
        }
        return;
      }
      if (!hasManagedEndpoints(service)) return;
      const subsets = desiredSubsets(service, podsOf(service, pods));
      const labels = endpointsLabels(service);
      if (
        current !== undefined &&
        JSON.stringify(current.subsets ?? []) === JSON.stringify(subsets) &&
        JSON.stringify(current.metadata?.labels ?? {}) === JSON.stringify(labels)
      )
        return;
      const body: Endpoints = {
        apiVersion: "v1",
        kind: "Endpoints",
        metadata: { ...(current?.metadata ?? { name, namespace: namespace ?? "" }), labels },
        subsets,
      };
      // On a stale cache the write fails (409) and the retry, rate limited, sees the informer's newer copy.
      if (current === undefined) await client.create(ENDPOINTS, namespace, body);
      else await client.update(ENDPOINTS, namespace, body);
    });
}
