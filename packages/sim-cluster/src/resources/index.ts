import type { ResourceDefinition } from "@kubekit/generic-controlplane/registry";
import { controllerRevisionsResource } from "./controller-revisions.js";
import { daemonSetsResource } from "./daemonsets.js";
import { deploymentsResource } from "./deployments.js";
import type { EndpointAddressRules } from "./endpoint-ip.js";
import { endpointSlicesResource } from "./endpoint-slices.js";
import { endpointsResource } from "./endpoints.js";
import { jobsResource } from "./jobs.js";
import { cronJobsResource } from "./cronjobs.js";
import { podTemplatesResource } from "./pod-templates.js";
import { replicationControllersResource } from "./replication-controllers.js";
import { nodesResource } from "./nodes.js";
import { withPublishedSchema } from "./openapi/component-schema.js";
import { podDisruptionBudgetsResource } from "./pod-disruption-budgets.js";
import { podsResource } from "./pods.js";
import { priorityClassesResource } from "./priority-classes.js";
import { replicaSetsResource } from "./replicasets.js";
import { servicesResource, type ServiceAllocators } from "./services.js";
import { persistentVolumeClaimsResource } from "./persistent-volume-claims.js";
import { persistentVolumesResource } from "./persistent-volumes.js";
import { statefulSetsResource } from "./statefulsets.js";
import { storageClassesResource } from "./storage-classes.js";
import { apiOnlyResources } from "./api-only.js";

/** Every resource a simulated cluster serves beyond the control plane's built-ins. */
export function simResources(allocators: ServiceAllocators, endpointRules: EndpointAddressRules = {}): ResourceDefinition[] {
  return [
    nodesResource,
    podsResource,
    servicesResource(allocators),
    deploymentsResource,
    replicaSetsResource,
    priorityClassesResource,
    daemonSetsResource,
    controllerRevisionsResource,
    endpointsResource(endpointRules),
    endpointSlicesResource(endpointRules),
    podDisruptionBudgetsResource,
    jobsResource,
    cronJobsResource,
    replicationControllersResource,
    podTemplatesResource,
    statefulSetsResource,
    persistentVolumesResource,
    persistentVolumeClaimsResource,
    storageClassesResource,
    ...apiOnlyResources,
  ].map(withPublishedSchema);
}

export {
  controllerRevisionsResource,
  cronJobsResource,
  daemonSetsResource,
  deploymentsResource,
  endpointSlicesResource,
  endpointsResource,
  jobsResource,
  nodesResource,
  podDisruptionBudgetsResource,
  podsResource,
  podTemplatesResource,
  priorityClassesResource,
  replicaSetsResource,
  replicationControllersResource,
  servicesResource,
  persistentVolumeClaimsResource,
  persistentVolumesResource,
  statefulSetsResource,
  storageClassesResource,
};
