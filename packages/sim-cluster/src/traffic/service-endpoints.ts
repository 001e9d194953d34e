import type { EndpointSlice } from "../resources/endpoint-slices.js";
import type { ServicePort } from "../resources/services.js";

/** One backend of a service port as kube-proxy sees it. */
export interface ProxyEndpoint {
  ip: string;
  port: number;
  nodeName: string | undefined;
  ready: boolean;
  serving: boolean;
  terminating: boolean;
}

/**
 * The endpoints of one service port from its IPv4 slices: the slice port of the same name and
 * protocol gives the target port. Missing conditions read as kube-proxy reads them (ready when
 * unset, serving as ready, not terminating).
 */
export function endpointsOfPort(slices: readonly EndpointSlice[], servicePort: ServicePort): ProxyEndpoint[] {
  const name = servicePort.name ?? "";
  const protocol = servicePort.protocol ?? "TCP";
  const found = new Map<string, ProxyEndpoint>();
  for (const slice of slices) {
    if (slice.addressType !== "IPv4") continue;
    const port = (slice.ports ?? []).find((p) => (p.name ?? "") === name && (p.protocol ?? "TCP") === protocol)?.port;
    if (port === undefined) continue;
    for (const endpoint of slice.endpoints ?? []) {
      const ip = endpoint.addresses?.[0];
      if (ip === undefined) continue;
      const ready = endpoint.conditions?.ready ?? true;
      found.set(`${ip}:${port}`, {
        ip,
        port,
        nodeName: endpoint.nodeName,
        ready,
        serving: endpoint.conditions?.serving ?? ready,
        terminating: endpoint.conditions?.terminating ?? false,
      });
    }
  }
  return [...found.values()].sort((a, b) => `${a.ip}:${a.port}`.localeCompare(`${b.ip}:${b.port}`));
}

const servingTerminating = (e: ProxyEndpoint) => e.serving && e.terminating;

/** CategorizeEndpoints for Cluster policy: the ready endpoints, or when none is ready anywhere, the serving terminating ones. */
export function clusterEndpoints(endpoints: readonly ProxyEndpoint[]): ProxyEndpoint[] {
  const ready = endpoints.filter((e) => e.ready);
  return ready.length > 0 ? ready : endpoints.filter(servingTerminating);
}

/** CategorizeEndpoints for Local policy: the node's ready endpoints, or when it has none, its serving terminating ones. */
export function localEndpoints(endpoints: readonly ProxyEndpoint[], node: string): ProxyEndpoint[] {
  return clusterEndpoints(endpoints.filter((e) => e.nodeName === node));
}
