import { parseIPSloppy } from "@kubekit/apimachinery";
import { isDeepStrictEqual } from "node:util";
import { controllerFor, isNotFound, splitKey, type Controller } from "@kubekit/generic-controlplane/controllers";
import {
  ENDPOINT_SLICES,
  LABEL_MANAGED_BY,
  LABEL_SERVICE_NAME,
  type Endpoint,
  type EndpointSlice,
  type SlicePort,
} from "../resources/endpoint-slices.js";
import { ENDPOINTS, type EndpointAddress, type Endpoints } from "../resources/endpoints.js";
import type { Service } from "../resources/services.js";
import { SERVICES } from "../refs.js";
import { canonicalJson } from "./pod-template-hash.js";
import { ownerReferenceTo } from "./util.js";

export const MIRRORING_CONTROLLER_NAME = "endpointslicemirroring-controller.k8s.io";
/** An Endpoints label that keeps it from being mirrored (the API server's own `default/kubernetes` carries it). */
export const LABEL_SKIP_MIRROR = "endpointslice.kubernetes.io/skip-mirror";
/** kube-controller-manager's `--mirroring-max-endpoints-per-subset`. */
const MAX_ENDPOINTS_PER_SUBSET = 1000;
/** Annotations of the Endpoints not carried to its slices. */
const ANNOTATIONS_NOT_MIRRORED = new Set([
  "endpoints.kubernetes.io/last-change-trigger-time",
  "kubectl.kubernetes.io/last-applied-configuration",
]);

interface DesiredSlice {
  addressType: "IPv4" | "IPv6";
  ports: SlicePort[];
  endpoints: Endpoint[];
}

function toEndpoint(address: EndpointAddress, ready: boolean): Endpoint {
  return {
    addresses: [address.ip],
    conditions: { ready },
    ...(address.hostname ? { hostname: address.hostname } : {}),
    ...(address.nodeName ? { nodeName: address.nodeName } : {}),
    ...(address.targetRef ? { targetRef: address.targetRef } : {}),
  };
}

/** The slices an Endpoints mirrors to: per subset and address type, its addresses (ready or not) with the subset's ports. */
export function mirroredSlices(endpoints: Endpoints): DesiredSlice[] {
  const byKey = new Map<string, DesiredSlice>();
  for (const subset of endpoints.subsets ?? []) {
    const ports: SlicePort[] = (subset.ports ?? []).map((p) => ({
      name: p.name ?? "",
      port: p.port,
      protocol: p.protocol ?? "TCP",
      ...(p.appProtocol !== undefined ? { appProtocol: p.appProtocol } : {}),
    }));
    const entries = [
      ...(subset.addresses ?? []).map((a) => toEndpoint(a, true)),
      ...(subset.notReadyAddresses ?? []).map((a) => toEndpoint(a, false)),
    ].slice(0, MAX_ENDPOINTS_PER_SUBSET);
    for (const endpoint of entries) {
      const ip = endpoint.addresses[0] ?? "";
      // Addresses that are not IPs are not mirrored, as upstream skips them.
      const family = parseIPSloppy(ip)?.family;
      if (family === undefined) continue;
      const addressType = family === 4 ? "IPv4" : "IPv6";
      const key = `${addressType}/${canonicalJson(ports)}`;
      let slice = byKey.get(key);
      if (slice === undefined) byKey.set(key, (slice = { addressType, ports, endpoints: [] }));
      if (!slice.endpoints.some((e) => e.addresses[0] === ip)) slice.endpoints.push(endpoint);
    }
  }
  return [...byKey.values()];
}

/** Whether the Endpoints of `service` are mirrored: the Service exists without a selector and the Endpoints does not opt out. */
function mirrors(endpoints: Endpoints | undefined, service: Service | undefined): endpoints is Endpoints {
  return (
    endpoints !== undefined &&
    service !== undefined &&
    service.spec?.selector === undefined &&
    endpoints.metadata?.labels?.[LABEL_SKIP_MIRROR] !== "true"
  );
}

/**
 * The EndpointSlice mirroring controller (upstream `pkg/controller/endpointslicemirroring`): the
 * Endpoints of a Service without a selector (written by its owner) get EndpointSlices of the same
 * addresses and ports, labelled `kubernetes.io/service-name` and managed by
 * `endpointslicemirroring-controller.k8s.io`, with the Endpoints' labels and annotations and owned
 * by it; they follow its updates and go when it goes or the Service gains a selector.
 */
export function endpointSliceMirroringController(options: { workers?: number } = {}): Controller {
  return controllerFor(ENDPOINTS)
    .named("endpointslicemirroring")
    .watches(SERVICES, (service) => `${service.metadata?.namespace ?? ""}/${service.metadata?.name ?? ""}`)
    .watches(ENDPOINT_SLICES, (slice) => {
      const labels = slice.metadata?.labels ?? {};
      return labels[LABEL_MANAGED_BY] === MIRRORING_CONTROLLER_NAME && labels[LABEL_SERVICE_NAME]
        ? `${slice.metadata?.namespace ?? ""}/${labels[LABEL_SERVICE_NAME]}`
        : undefined;
    })
    .withOptions({ workers: options.workers ?? 2, queueName: "endpoint_slice_mirroring" })
    .complete(async (key, { client, primary: endpointsInformer, informer }) => {
      const services = informer(SERVICES);
      const slices = informer(ENDPOINT_SLICES);
      const { namespace, name } = splitKey(key);
      const endpoints = endpointsInformer.cache.get(key) as Endpoints | undefined;
      const existing = (slices.cache.list() as EndpointSlice[]).filter(
        (s) =>
          s.metadata?.namespace === namespace &&
          s.metadata?.labels?.[LABEL_SERVICE_NAME] === name &&
          s.metadata?.labels?.[LABEL_MANAGED_BY] === MIRRORING_CONTROLLER_NAME,
      );
      const desired = mirrors(endpoints, services.cache.get(key)) ? mirroredSlices(endpoints) : [];
      const labels = {
        ...(endpoints?.metadata?.labels ?? {}),
        [LABEL_SERVICE_NAME]: name ?? "",
        [LABEL_MANAGED_BY]: MIRRORING_CONTROLLER_NAME,
      };
      const annotations = Object.fromEntries(
        Object.entries(endpoints?.metadata?.annotations ?? {}).filter(([k]) => !ANNOTATIONS_NOT_MIRRORED.has(k)),
      );
      const unmatched = [...existing];
      const writes: Array<Promise<unknown>> = [];
      for (const want of desired) {
        const at = unmatched.findIndex(
          (s) => s.addressType === want.addressType && canonicalJson(s.ports ?? []) === canonicalJson(want.ports),
        );
        const have = at >= 0 ? unmatched.splice(at, 1)[0] : undefined;
        const metadata = { labels, ...(Object.keys(annotations).length > 0 ? { annotations } : {}) };
        if (have === undefined) {
          const slice: EndpointSlice = {
            apiVersion: "discovery.k8s.io/v1",
            kind: "EndpointSlice",
            metadata: {
              generateName: `${name ?? ""}-`,
              namespace: namespace ?? "",
              ...metadata,
              ownerReferences: [ownerReferenceTo(endpoints!, "v1", "Endpoints")],
            },
            addressType: want.addressType,
            endpoints: want.endpoints,
            ports: want.ports,
          };
          writes.push(client.create(ENDPOINT_SLICES, namespace, slice));
        } else if (
          !isDeepStrictEqual(have.endpoints ?? [], want.endpoints) ||
          !isDeepStrictEqual(have.metadata?.labels ?? {}, labels) ||
          !isDeepStrictEqual(have.metadata?.annotations ?? {}, annotations)
        ) {
          writes.push(
            client.update(ENDPOINT_SLICES, namespace, {
              ...have,
              metadata: { ...have.metadata, ...metadata, annotations },
              endpoints: want.endpoints,
            }),
          );
        }
      }
      // Slices of an Endpoints gone or no longer mirrored, and duplicates made before the cache showed a write, go.
      for (const slice of unmatched) {
        writes.push(
          client.delete(ENDPOINT_SLICES, namespace, slice.metadata?.name ?? "").catch((error: unknown) => {
            if (!isNotFound(error)) throw error;
          }),
        );
      }
      await Promise.all(writes);
    });
}
