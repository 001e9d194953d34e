import type { ResourceRef } from "@kubekit/client";

/** The API resources the resizer reads and writes. */
export const NODES: ResourceRef = { group: "", version: "v1", resource: "nodes", namespaced: false };
export const PODS: ResourceRef = { group: "", version: "v1", resource: "pods", namespaced: true };
export const EVENTS: ResourceRef = { group: "", version: "v1", resource: "events", namespaced: true };
