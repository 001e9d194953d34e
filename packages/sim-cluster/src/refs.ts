import type { ResourceRef } from "@kubekit/generic-controlplane/controllers";

export const PODS: ResourceRef = { group: "", version: "v1", resource: "pods", namespaced: true };
export const NODES: ResourceRef = { group: "", version: "v1", resource: "nodes", namespaced: false };
export const SERVICES: ResourceRef = { group: "", version: "v1", resource: "services", namespaced: true };
export const REPLICA_SETS: ResourceRef = { group: "apps", version: "v1", resource: "replicasets", namespaced: true };
export const DEPLOYMENTS: ResourceRef = { group: "apps", version: "v1", resource: "deployments", namespaced: true };
export const PRIORITY_CLASSES: ResourceRef = { group: "scheduling.k8s.io", version: "v1", resource: "priorityclasses", namespaced: false };
export const NODE_LEASES: ResourceRef = { group: "coordination.k8s.io", version: "v1", resource: "leases", namespaced: true };
export const DAEMON_SETS: ResourceRef = { group: "apps", version: "v1", resource: "daemonsets", namespaced: true };
export const CONTROLLER_REVISIONS: ResourceRef = { group: "apps", version: "v1", resource: "controllerrevisions", namespaced: true };
export const JOBS: ResourceRef = { group: "batch", version: "v1", resource: "jobs", namespaced: true };
export const CRON_JOBS: ResourceRef = { group: "batch", version: "v1", resource: "cronjobs", namespaced: true };
export const REPLICATION_CONTROLLERS: ResourceRef = { group: "", version: "v1", resource: "replicationcontrollers", namespaced: true };
export const POD_TEMPLATES: ResourceRef = { group: "", version: "v1", resource: "podtemplates", namespaced: true };
export const STATEFUL_SETS: ResourceRef = { group: "apps", version: "v1", resource: "statefulsets", namespaced: true };
export const PERSISTENT_VOLUMES: ResourceRef = { group: "", version: "v1", resource: "persistentvolumes", namespaced: false };
export const PERSISTENT_VOLUME_CLAIMS: ResourceRef = { group: "", version: "v1", resource: "persistentvolumeclaims", namespaced: true };
export const STORAGE_CLASSES: ResourceRef = { group: "storage.k8s.io", version: "v1", resource: "storageclasses", namespaced: false };
