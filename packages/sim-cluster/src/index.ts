export { VERSION } from "./version.js";
export { startSimCluster, DEFAULT_NODE_CAPACITY, type SimCluster, type SimClusterOptions, type SimNodeOptions } from "./cluster.js";
export { ClusterIPAllocator, AllocationError } from "./allocators/cluster-ip.js";
export { NodePortAllocator, DEFAULT_NODE_PORT_RANGE } from "./allocators/node-port.js";
export {
  simResources,
  endpointsResource,
  endpointSlicesResource,
  nodesResource,
  podsResource,
  servicesResource,
  deploymentsResource,
  replicaSetsResource,
  priorityClassesResource,
} from "./resources/index.js";
export { daemonSetsResource, controllerRevisionsResource } from "./resources/index.js";
export { SYSTEM_PRIORITY_CLASSES } from "./resources/priority-classes.js";
export { scheduler } from "./scheduler/scheduler.js";
export { replicaSetController } from "./controllers/replicaset.js";
export { deploymentController } from "./controllers/deployment.js";
export { daemonSetController } from "./controllers/daemonset.js";
export { NODE_CAPACITY_ANNOTATION, SimulatedKubelet, type SimNodeSpec, type KubeletOptions } from "./kubelet/kubelet.js";
export { isUnpullableImage, type ImagePullRule } from "./kubelet/images.js";
export type { NodePodSource } from "./kubelet/node-pods.js";
export type { NodeThread } from "./kubelet/node-threads.js";
export type { SchedulerThread } from "./scheduler/scheduler-thread.js";
export { endpointsController } from "./controllers/endpoints.js";
export { endpointSliceController } from "./controllers/endpointslice.js";
export { disruptionController } from "./controllers/disruption.js";
export { podDisruptionBudgetsResource } from "./resources/pod-disruption-budgets.js";
export { jobsResource, cronJobsResource, replicationControllersResource, podTemplatesResource } from "./resources/index.js";
export { jobController, type JobControllerOptions } from "./controllers/job.js";
export { cronJobController } from "./controllers/cronjob.js";
export { ttlAfterFinishedController } from "./controllers/ttl-after-finished.js";
export {
  statefulSetsResource,
  persistentVolumesResource,
  persistentVolumeClaimsResource,
  storageClassesResource,
} from "./resources/index.js";
export { statefulSetController } from "./controllers/statefulset.js";
export { volumeBinderController } from "./controllers/volume-binder.js";
