import { isControlPlaneError, type KubeObject } from "@kubekit/generic-controlplane";
import { createResourceStore, type ResourceDefinition, type ResourceStore } from "@kubekit/generic-controlplane/registry";
import type { Storage } from "@kubekit/generic-controlplane/storage";
import type { EndpointSlice } from "./resources/endpoint-slices.js";
import type { Endpoints } from "./resources/endpoints.js";
import type { Service } from "./resources/services.js";

const NAME = "kubernetes";
const NAMESPACE = "default";
const LABEL_SKIP_MIRROR = "endpointslice.kubernetes.io/skip-mirror";

/** Where the API server is reached: the address and port it serves on, and the ClusterIP it takes. */
export interface ApiServerAddress {
  clusterIP: string;
  address: string;
  port: number;
}

function isCode(error: unknown, code: string): boolean {
  return isControlPlaneError(error) && error.code === code;
}

async function getOrUndefined(store: ResourceStore, name: string): Promise<KubeObject | undefined> {
  try {
    return await store.get(NAMESPACE, name);
  } catch (error) {
    if (isCode(error, "NotFound")) return undefined;
    throw error;
  }
}

/**
 * A store that writes without the resource's validation: the API server publishes its own
 * address, which is loopback unless the cluster listens elsewhere, and the Endpoints and
 * EndpointSlice validation refuses loopback from every other writer (outside traffic mode).
 */
export function unvalidatedStore(definition: ResourceDefinition, storage: Storage): ResourceStore {
  const strategy = { ...definition.strategy };
  delete strategy.validate;
  delete strategy.validateUpdate;
  return createResourceStore({ ...definition, strategy }, storage);
}

/**
 * kube-apiserver's kubernetes service controller and endpoint reconciler, once at start:
 * `default/kubernetes`, a ClusterIP Service on the first address of the service range with port
 * 443 (`https`) to the server's port, and the Endpoints (labelled `skip-mirror`) and EndpointSlice
 * of the same name holding the server's address. Existing ones are brought up to date (a
 * restarted cluster may listen on another port).
 */
export async function publishApiServer(
  stores: { services: ResourceStore; endpoints: ResourceStore; slices: ResourceStore },
  server: ApiServerAddress,
): Promise<void> {
  const ports = [{ name: "https", port: 443, protocol: "TCP", targetPort: server.port }];
  const existing = (await getOrUndefined(stores.services, NAME)) as Service | undefined;
  if (existing === undefined) {
    const service: Service = {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name: NAME, namespace: NAMESPACE, labels: { component: "apiserver", provider: "kubernetes" } },
      spec: { type: "ClusterIP", clusterIP: server.clusterIP, sessionAffinity: "None", ports },
    };
    await stores.services.create(NAMESPACE, service).catch((error: unknown) => {
      if (!isCode(error, "AlreadyExists")) throw error;
    });
  } else if (JSON.stringify(existing.spec?.ports) !== JSON.stringify(ports)) {
    await stores.services.guaranteedUpdate(NAMESPACE, NAME, (current) => ({ ...current, spec: { ...(current["spec"] as object), ports } }));
  }

  const endpointPorts = [{ name: "https", port: server.port, protocol: "TCP" }];
  const endpoints: Endpoints = {
    apiVersion: "v1",
    kind: "Endpoints",
    metadata: { name: NAME, namespace: NAMESPACE, labels: { [LABEL_SKIP_MIRROR]: "true" } },
    subsets: [{ addresses: [{ ip: server.address }], ports: endpointPorts }],
  };
  const slice: EndpointSlice = {
    apiVersion: "discovery.k8s.io/v1",
    kind: "EndpointSlice",
    metadata: { name: NAME, namespace: NAMESPACE, labels: { "kubernetes.io/service-name": NAME } },
    addressType: server.address.includes(":") ? "IPv6" : "IPv4",
    endpoints: [{ addresses: [server.address], conditions: { ready: true } }],
    ports: endpointPorts,
  };
  for (const [store, wanted] of [
    [stores.endpoints, endpoints],
    [stores.slices, slice],
  ] as const) {
    if ((await getOrUndefined(store, NAME)) === undefined) {
      await store.create(NAMESPACE, wanted).catch((error: unknown) => {
        if (!isCode(error, "AlreadyExists")) throw error;
      });
    } else {
      await store.guaranteedUpdate(NAMESPACE, NAME, (current) => ({
        ...current,
        ...wanted,
        metadata: { ...current.metadata, labels: wanted.metadata?.labels ?? {} },
      }));
    }
  }
}
