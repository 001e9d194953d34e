import type { ResourceDefinition } from "@kubekit/generic-controlplane/registry";
import { csiDriversResource } from "./csi-drivers.js";
import { csiNodesResource } from "./csi-nodes.js";
import { horizontalPodAutoscalersResource, horizontalPodAutoscalersV1Resource } from "./horizontal-pod-autoscalers.js";
import { ingressClassesResource } from "./ingress-classes.js";
import { ingressesResource } from "./ingresses.js";
import { networkPoliciesResource } from "./network-policies.js";
import { runtimeClassesResource } from "./runtime-classes.js";
import { volumeAttachmentsResource } from "./volume-attachments.js";

/**
 * Types a 1.32 cluster serves that a simulated one stores and validates without acting on them
 * (beyond admission: default IngressClass, RuntimeClass overhead and scheduling).
 * autoscaling/v2 comes before v1: the first version of a group is its preferred one.
 */
export const apiOnlyResources: readonly ResourceDefinition[] = [
  ingressesResource,
  ingressClassesResource,
  networkPoliciesResource,
  runtimeClassesResource,
  csiDriversResource,
  csiNodesResource,
  volumeAttachmentsResource,
  horizontalPodAutoscalersResource,
  horizontalPodAutoscalersV1Resource,
];
