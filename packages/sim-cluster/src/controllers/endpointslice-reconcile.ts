import type { OwnerReference } from "@kubekit/generic-controlplane";
import { LABEL_MANAGED_BY, LABEL_SERVICE_NAME, type Endpoint, type EndpointSlice, type SlicePort } from "../resources/endpoint-slices.js";
import type { Node } from "../resources/nodes.js";
import type { Pod } from "../resources/pods.js";
import type { Service } from "../resources/services.js";
import { LABEL_HEADLESS } from "./endpoints.js";
import { familyOf } from "../allocators/cluster-ip.js";
import { findPort, hostnameFor, podIPOfFamily, shouldPodBeInEndpoints } from "./endpoints-util.js";
import { isPodReady } from "./util.js";

/** The value of `endpointslice.kubernetes.io/managed-by` on the slices this controller writes. */
export const ENDPOINTSLICE_CONTROLLER_NAME = "endpointslice-controller.k8s.io";
/** Upstream's default `--max-endpoints-per-slice`. */
export const MAX_ENDPOINTS_PER_SLICE = 100;
export const LABEL_ZONE = "topology.kubernetes.io/zone";

/** One set of ports and the endpoints that serve exactly those ports. */
export interface EndpointGroup {
  ports: SlicePort[];
  endpoints: Endpoint[];
}

export function portsKey(ports: readonly SlicePort[] | null | undefined): string {
  return JSON.stringify([...(ports ?? [])].sort((a, b) => (a.name ?? "").localeCompare(b.name ?? "") || (a.port ?? 0) - (b.port ?? 0)));
}

function endpointId(endpoint: Endpoint): string {
  return `${endpoint.addresses.join(",")}/${endpoint.targetRef?.uid ?? ""}`;
}

export type SliceAddressType = "IPv4" | "IPv6";

/**
 * getAddressTypesForService: the service's `ipFamilies`; for a service without them, its
 * ClusterIP's family, or both for a headless one.
 */
export function addressTypesFor(service: Service): SliceAddressType[] {
  const families = (service.spec?.ipFamilies ?? []).filter((f): f is SliceAddressType => f === "IPv4" || f === "IPv6");
  if (families.length > 0) return [...new Set(families)];
  const clusterIP = service.spec?.clusterIP;
  if (clusterIP && clusterIP !== "None") return [familyOf(clusterIP) ?? "IPv4"];
  return ["IPv4", "IPv6"];
}

/**
 * podToEndpoint: the pod's address of the slice's type, its conditions (serving follows readiness, a pod with a
 * deletionTimestamp is terminating, and ready is serving and not terminating unless the service
 * publishes not-ready addresses), node, zone, hostname and a reference to the pod.
 */
export function endpointFor(pod: Pod, service: Service, node: Node | undefined, addressType: SliceAddressType = "IPv4"): Endpoint {
  const serving = isPodReady(pod);
  const terminating = pod.metadata?.deletionTimestamp !== undefined;
  const ready = service.spec?.["publishNotReadyAddresses"] === true || (serving && !terminating);
  const address = podIPOfFamily(pod, addressType);
  const hostname = hostnameFor(pod, service);
  const zone = node?.metadata?.labels?.[LABEL_ZONE];
  return {
    addresses: address !== undefined ? [address] : [],
    conditions: { ready, serving, terminating },
    ...(hostname !== undefined ? { hostname } : {}),
    targetRef: { kind: "Pod", namespace: pod.metadata?.namespace ?? "", name: pod.metadata?.name ?? "", uid: pod.metadata?.uid ?? "" },
    ...(pod.spec?.nodeName ? { nodeName: pod.spec.nodeName } : {}),
    ...(zone ? { zone } : {}),
  };
}

/** getEndpointPorts: each service port resolved on the pod; ports the pod does not have are left out. */
export function endpointPortsFor(pod: Pod, service: Service): SlicePort[] {
  const ports: SlicePort[] = [];
  for (const servicePort of service.spec?.ports ?? []) {
    const port = findPort(pod, servicePort);
    if (port === undefined) continue;
    const appProtocol = servicePort["appProtocol"];
    ports.push({
      name: servicePort.name ?? "",
      port,
      protocol: servicePort.protocol ?? "TCP",
      ...(typeof appProtocol === "string" ? { appProtocol } : {}),
    });
  }
  return ports;
}

/** The endpoints of one address type `service` should have, grouped by the port set they serve (terminating pods included). */
export function desiredGroups(
  service: Service,
  pods: readonly Pod[],
  nodeNamed: (name: string) => Node | undefined,
  addressType: SliceAddressType = "IPv4",
): EndpointGroup[] {
  const groups = new Map<string, EndpointGroup>();
  for (const pod of pods) {
    if (!shouldPodBeInEndpoints(pod, true)) continue;
    const endpoint = endpointFor(pod, service, pod.spec?.nodeName ? nodeNamed(pod.spec.nodeName) : undefined, addressType);
    if (endpoint.addresses.length === 0) continue;
    const ports = endpointPortsFor(pod, service);
    const key = portsKey(ports);
    let group = groups.get(key);
    if (group === undefined) groups.set(key, (group = { ports, endpoints: [] }));
    group.endpoints.push(endpoint);
  }
  return [...groups.values()];
}

/** setEndpointSliceLabels: the service's labels, the headless marker, and the two labels that tie a slice to its service and controller. */
export function sliceLabels(service: Service): Record<string, string> {
  const labels: Record<string, string> = { ...(service.metadata?.labels ?? {}) };
  delete labels[LABEL_HEADLESS];
  if (service.spec?.clusterIP === "None") labels[LABEL_HEADLESS] = "";
  labels[LABEL_SERVICE_NAME] = service.metadata?.name ?? "";
  labels[LABEL_MANAGED_BY] = ENDPOINTSLICE_CONTROLLER_NAME;
  return labels;
}

export interface SliceChanges {
  create: EndpointSlice[];
  update: EndpointSlice[];
  delete: EndpointSlice[];
}

function newSlice(
  service: Service,
  owner: OwnerReference,
  addressType: SliceAddressType,
  ports: SlicePort[],
  endpoints: Endpoint[],
): EndpointSlice {
  return {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: {
      generateName: `${service.metadata?.name ?? ""}-`,
      namespace: service.metadata?.namespace ?? "",
      labels: sliceLabels(service),
      ownerReferences: [owner],
    },
    addressType,
    endpoints,
    ports,
  };
}

function sameContent(a: EndpointSlice, b: EndpointSlice): boolean {
  return (
    JSON.stringify(a.endpoints ?? []) === JSON.stringify(b.endpoints ?? []) &&
    portsKey(a.ports) === portsKey(b.ports) &&
    JSON.stringify(a.metadata?.labels ?? {}) === JSON.stringify(b.metadata?.labels ?? {}) &&
    JSON.stringify(a.metadata?.ownerReferences ?? []) === JSON.stringify(b.metadata?.ownerReferences ?? [])
  );
}

/**
 * What to write so that `existing` (this controller's slices of the service of `addressType`)
 * hold `groups`, after upstream's reconciler (reconcileByAddressType): an endpoint stays in the slice that holds it, slices of a port set no
 * longer served go, free room in kept slices is filled before new slices of at most `max`
 * endpoints are made, and a service without endpoints keeps one empty placeholder slice.
 */
export function reconcileSlices(
  service: Service,
  owner: OwnerReference,
  groups: readonly EndpointGroup[],
  existing: readonly EndpointSlice[],
  max = MAX_ENDPOINTS_PER_SLICE,
  addressType: SliceAddressType = "IPv4",
): SliceChanges {
  const changes: SliceChanges = { create: [], update: [], delete: [] };
  const labels = sliceLabels(service);
  const pending = new Map(
    groups.map((g) => [portsKey(g.ports), { ports: g.ports, endpoints: new Map(g.endpoints.map((e) => [endpointId(e), e])) }]),
  );
  const kept: Array<{ slice: EndpointSlice; key: string; endpoints: Endpoint[] }> = [];
  for (const slice of [...existing].sort((a, b) => (a.metadata?.name ?? "").localeCompare(b.metadata?.name ?? ""))) {
    const key = portsKey(slice.ports);
    const group = pending.get(key);
    if (group === undefined || slice.addressType !== addressType) {
      changes.delete.push(slice);
      continue;
    }
    const endpoints: Endpoint[] = [];
    for (const endpoint of slice.endpoints ?? []) {
      const id = endpointId(endpoint);
      const wanted = group.endpoints.get(id);
      if (wanted === undefined || endpoints.length >= max) continue;
      endpoints.push(wanted);
      group.endpoints.delete(id);
    }
    kept.push({ slice, key, endpoints });
  }
  for (const entry of kept) {
    const group = pending.get(entry.key)!;
    if (entry.endpoints.length === 0) continue; // slices emptied are not refilled: they go below
    for (const [id, endpoint] of group.endpoints) {
      if (entry.endpoints.length >= max) break;
      entry.endpoints.push(endpoint);
      group.endpoints.delete(id);
    }
  }
  for (const group of pending.values()) {
    const rest = [...group.endpoints.values()];
    for (let i = 0; i < rest.length; i += max)
      changes.create.push(newSlice(service, owner, addressType, group.ports, rest.slice(i, i + max)));
  }
  for (const entry of kept) {
    if (entry.endpoints.length === 0) {
      changes.delete.push(entry.slice);
      continue;
    }
    const wanted: EndpointSlice = {
      ...entry.slice,
      metadata: { ...entry.slice.metadata, labels, ownerReferences: [owner] },
      endpoints: entry.endpoints,
    };
    if (!sameContent(wanted, entry.slice)) changes.update.push(wanted);
  }
  if (groups.every((g) => g.endpoints.length === 0)) {
    // A placeholder: an empty slice says the service has been seen and has no endpoints.
    const placeholder = changes.delete.find(
      (s) => (s.endpoints ?? []).length === 0 && (s.ports ?? []).length === 0 && s.addressType === addressType,
    );
    if (placeholder !== undefined) {
      changes.delete = changes.delete.filter((s) => s !== placeholder);
      const wanted: EndpointSlice = {
        ...placeholder,
        metadata: { ...placeholder.metadata, labels, ownerReferences: [owner] },
        endpoints: [],
        ports: [],
      };
      if (!sameContent(wanted, placeholder)) changes.update.push(wanted);
    } else {
      changes.create.push(newSlice(service, owner, addressType, [], []));
    }
  }
  return changes;
}
