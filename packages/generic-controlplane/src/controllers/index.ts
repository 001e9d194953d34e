export { configFromKubeconfig, loadKubeconfig, type ClientConfig } from "./kubeconfig.js";
export type { ExecApiVersion, ExecConfig } from "./exec-credential.js";
export {
  ApiError,
  KubeClient,
  ACCEPT_METADATA,
  ACCEPT_METADATA_LIST,
  PATCH_JSON,
  PATCH_MERGE,
  PATCH_STRATEGIC,
  isApiError,
  isConflict,
  isGone,
  isNotFound,
  resourcePath,
  type Query,
  type RequestInit,
  type ResourceRef,
  type WatchHandle,
} from "./client.js";
export {
  GroupDiscoveryFailedError,
  ResourceMapper,
  apiVersionOf,
  discoverPreferredResources,
  formatGroupVersionResource,
  supportsVerbs,
  type DiscoveredResource,
} from "./discovery.js";
export { Indexer, NAMESPACE_INDEX, namespaceIndexFunc, objectKey, splitKey, type IndexFunc } from "./cache.js";
export { Informer, dropManagedFields, type EventHandlers, type InformerOptions } from "./informer.js";
export {
  BucketRateLimiter,
  ExponentialRateLimiter,
  MaxOfRateLimiter,
  WorkQueue,
  defaultControllerRateLimiter,
  type RateLimiter,
  type WorkQueueOptions,
} from "./workqueue.js";
export { WorkqueueMetrics } from "./metrics.js";
export { serveControllerEndpoints, type ControllerEndpoints, type ControllerEndpointsOptions } from "./endpoints.js";
export { LEASES, LeaderElector, type LeaderElectionOptions } from "./leader-election.js";
export {
  EventRecorder,
  SharedInformerFactory,
  aborted,
  createControllerContext,
  runWorkers,
  type Controller,
  type ControllerContext,
  type EventRecorderOptions,
  type InvolvedObject,
  type ReconcileResult,
  type Requeue,
} from "./runtime.js";
export {
  ControllerBuilder,
  controllerFor,
  controllerOwnerKey,
  type BuilderOptions,
  type ForOptions,
  type MapFn,
  type Reconcile,
  type ReconcileContext,
  type WatchEventType,
  type WatchOptions,
} from "./builder.js";
export { EventCorrelator, type CorrelatedEvent, type Correlation, type EventCorrelatorOptions } from "./event-correlator.js";
export { namespaceController, type NamespaceControllerOptions } from "./namespace/controller.js";
export {
  FINALIZER_ESTIMATE_SECONDS,
  NamespacedResourcesDeleter,
  ResourcesRemainingError,
  type NamespacedResourcesDeleterOptions,
} from "./namespace/deleter.js";
export {
  NAMESPACE_DELETION_CONDITION_TYPES,
  NamespaceConditionUpdater,
  updateConditions,
  type ContentTotals,
} from "./namespace/conditions.js";
export { garbageCollector, type GarbageCollectorOptions } from "./garbagecollector/controller.js";
export {
  ControllerManager,
  KNOWN_CONTROLLERS,
  selectControllers,
  type ControllerLeaderElection,
  type ControllerManagerOptions,
} from "./manager.js";
export { SERVICE_ACCOUNTS, serviceAccountController, type ServiceAccountControllerOptions } from "./serviceaccount/controller.js";
export { EVENTS, eventTTLController, lastWriteOf, type EventTTLControllerOptions } from "./eventttl/controller.js";
export { RESOURCE_QUOTAS, resourceQuotaController, type ResourceQuotaControllerOptions } from "./resourcequota/controller.js";
export { CONFIG_MAPS, ROOT_CA_CONFIG_MAP, rootCACertPublisher, type RootCACertPublisherOptions } from "./rootcacertpublisher/controller.js";
export { CERTIFICATE_SIGNING_REQUESTS } from "./certificates/refs.js";
export { csrSigningController, type CSRSigningControllerOptions } from "./certificates/signer.js";
export { csrCleanerController, csrDeadline } from "./certificates/cleaner.js";
