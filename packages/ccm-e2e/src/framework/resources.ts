import type { ResourceRef } from "@kubekit/client";

/** The API resources the suite reads and writes. */
export const SERVICES: ResourceRef = { group: "", version: "v1", resource: "services", namespaced: true };
export const PODS: ResourceRef = { group: "", version: "v1", resource: "pods", namespaced: true };
export const NODES: ResourceRef = { group: "", version: "v1", resource: "nodes", namespaced: false };
export const NAMESPACES: ResourceRef = { group: "", version: "v1", resource: "namespaces", namespaced: false };
export const DEPLOYMENTS: ResourceRef = { group: "apps", version: "v1", resource: "deployments", namespaced: true };
export const DAEMONSETS: ResourceRef = { group: "apps", version: "v1", resource: "daemonsets", namespaced: true };
export const REPLICASETS: ResourceRef = { group: "apps", version: "v1", resource: "replicasets", namespaced: true };
export const PODDISRUPTIONBUDGETS: ResourceRef = { group: "policy", version: "v1", resource: "poddisruptionbudgets", namespaced: true };

/** The fields of a v1 Service the tests read (objects stay plain JSON). */
export interface ServicePort {
  name?: string;
  protocol?: "TCP" | "UDP" | "SCTP";
  port: number;
  targetPort?: number | string;
  nodePort?: number;
}

export interface Service {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    labels?: Record<string, string>;
    finalizers?: string[];
    resourceVersion?: string;
    [field: string]: unknown;
  };
  spec: {
    type?: "ClusterIP" | "NodePort" | "LoadBalancer" | "ExternalName";
    selector?: Record<string, string>;
    ports?: ServicePort[];
    clusterIP?: string;
    clusterIPs?: string[];
    externalName?: string;
    externalIPs?: string[];
    sessionAffinity?: "None" | "ClientIP";
    externalTrafficPolicy?: "Cluster" | "Local";
    loadBalancerSourceRanges?: string[];
    internalTrafficPolicy?: "Cluster" | "Local";
    healthCheckNodePort?: number;
    allocateLoadBalancerNodePorts?: boolean;
    [field: string]: unknown;
  };
  status?: { loadBalancer?: { ingress?: { ip?: string; hostname?: string; ipMode?: string }[] } };
  [field: string]: unknown;
}

export interface Node {
  metadata: { name: string; labels?: Record<string, string>; [field: string]: unknown };
  spec?: { providerID?: string; unschedulable?: boolean; taints?: { key: string; effect: string; value?: string }[] };
  status?: { conditions?: { type: string; status: string }[]; addresses?: { type: string; address: string }[] };
  [field: string]: unknown;
}

export interface Pod {
  metadata: { name: string; labels?: Record<string, string>; deletionTimestamp?: string; [field: string]: unknown };
  spec?: { nodeName?: string; [field: string]: unknown };
  status?: { phase?: string; podIP?: string; conditions?: { type: string; status: string }[] };
  [field: string]: unknown;
}
