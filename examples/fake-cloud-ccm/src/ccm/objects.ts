import type { KubeObject } from "@kubekit/generic-controlplane";
import type { ResourceRef } from "@kubekit/generic-controlplane/controllers";

export const SERVICES: ResourceRef = { group: "", version: "v1", resource: "services", namespaced: true };
export const NODES: ResourceRef = { group: "", version: "v1", resource: "nodes", namespaced: false };
export const PODS: ResourceRef = { group: "", version: "v1", resource: "pods", namespaced: true };

export interface ServiceObject extends KubeObject {
  metadata: {
    name: string;
    namespace: string;
    uid: string;
    annotations?: Record<string, string>;
    finalizers?: string[];
    deletionTimestamp?: string;
    resourceVersion?: string;
  };
  spec: {
    type?: string;
    selector?: Record<string, string>;
    ports?: { port: number; protocol?: "TCP" | "UDP" | "SCTP"; nodePort?: number; targetPort?: number | string }[];
    sessionAffinity?: "None" | "ClientIP";
    externalTrafficPolicy?: "Cluster" | "Local";
    allocateLoadBalancerNodePorts?: boolean;
    loadBalancerSourceRanges?: string[];
  };
  status?: { loadBalancer?: { ingress?: { ip?: string }[] } };
}

export interface NodeObject extends KubeObject {
  metadata: { name: string; labels?: Record<string, string> };
  spec?: { providerID?: string; podCIDRs?: string[]; taints?: { key: string; effect: string; value?: string; timeAdded?: string }[] };
  status?: { conditions?: { type: string; status: string }[]; addresses?: { type: string; address: string }[] };
}

export interface PodObject extends KubeObject {
  metadata: { name: string; namespace: string; labels?: Record<string, string>; deletionTimestamp?: string };
  spec?: { nodeName?: string; containers?: { ports?: { name?: string; containerPort: number }[] }[] };
  status?: { phase?: string; podIP?: string; conditions?: { type: string; status: string }[] };
}

export function isReady(node: NodeObject): boolean {
  return node.status?.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false;
}

export function internalIP(node: NodeObject): string | undefined {
  return node.status?.addresses?.find((a) => a.type === "InternalIP")?.address;
}

/** A ready, running, not terminating pod the service's selector picks. */
export function isReadyEndpoint(service: ServiceObject, pod: PodObject): boolean {
  const selector = service.spec.selector;
  if (selector === undefined || Object.keys(selector).length === 0) return false;
  if (pod.metadata.namespace !== service.metadata.namespace || pod.metadata.deletionTimestamp !== undefined) return false;
  if (!Object.entries(selector).every(([k, v]) => pod.metadata.labels?.[k] === v)) return false;
  return (
    pod.status?.phase === "Running" &&
    (pod.status.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false) &&
    pod.status.podIP !== undefined
  );
}
