export { VERSION } from "./version.js";
export {
  ControlPlaneError,
  isControlPlaneError,
  type ControlPlaneErrorCode,
  type ControlPlaneErrorOptions,
} from "./errors.js";
export type {
  DeleteOptions,
  KubeList,
  KubeObject,
  ListMeta,
  ManagedFieldsEntry,
  ObjectMeta,
  OwnerReference,
  Status,
  StatusCause,
  StatusDetails,
  Table,
  TableColumnDefinition,
  TableRow,
  WatchEvent,
  WatchEventType,
} from "./api/types.js";
export type {
  KeyValue,
  ListOptions,
  ListResult,
  Storage,
  StorageEvent,
  StorageWatch,
  WatchOptions,
} from "./storage/types.js";
export { createMemoryStorage, type MemoryStorageOptions } from "./storage/memory.js";
export { createSqliteStorage, type SqliteStorageOptions } from "./storage/sqlite.js";
export type { SqliteSynchronous } from "./storage/sqlite-schema.js";
export type { CompactionOptions } from "./storage/compactor.js";
export type { JSONSchemaProps } from "./schema/types.js";
export type {
  FieldError,
  PrinterColumn,
  ResourceDefinition,
  ResourceStrategy,
} from "./registry/resource-definition.js";
export type {
  AdmissionAttributes,
  AdmissionPlugin,
  DeleteResult,
  ListRequest,
  RequestOptions,
  ResourceStore,
  ResourceWatch,
  WatchRequest,
} from "./registry/types.js";
export { createResourceStore, finalizersForDeletion, type ResourceStoreOptions } from "./registry/store.js";
export { resourceKeys, type ResourceKeys } from "./registry/keys.js";
export { INITIAL_EVENTS_END_ANNOTATION } from "./registry/watch.js";
export { humanDuration, tableColumns, toTable, translateTimestampSince, type TableOptions } from "./registry/table.js";
export { fieldValuesOf, supportedFieldLabels } from "./registry/selection.js";
export {
  EVERYTHING_FIELDS,
  EVERYTHING_LABELS,
  formatLabelSelector,
  parseFieldSelector,
  parseLabelSelector,
  type FieldRequirement,
  type FieldSelector,
  type LabelOperator,
  type LabelRequirement,
  type LabelSelector,
} from "./selectors/index.js";
export {
  TOTAL_ANNOTATION_SIZE_LIMIT_BYTES,
  fieldErrorBody,
  formatFieldError,
  invalidError,
  isConfigMapKey,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
  toStatusCauses,
  validateObjectMeta,
  validateObjectMetaUpdate,
  type NameRule,
  type ObjectMetaValidationOptions,
} from "./validation/index.js";
export { createControlPlane, type ControlPlane, type ControlPlaneOptions } from "./control-plane.js";
export { ApiServer, type ApiServerOptions, type HandlerStage } from "./server/api-server.js";
export type { RequestContext } from "./server/context.js";
export type { ResourceHandlers, SubresourceHandler } from "./server/resource-handler.js";
export type { HandlerCodecs, IncludeObject, ServedResource } from "./server/served-resource.js";
export type { HealthCheck, HealthEndpoint } from "./server/health.js";
export { jsonLineLogger, type Logger, type LogRecord } from "./server/logger.js";
export { kubeconfigFor } from "./server/kubeconfig.js";
export { namespaceLifecycle } from "./server/namespace-lifecycle.js";
export { KUBE_API_MAJOR, KUBE_API_MINOR, versionInfo } from "./server/version-info.js";
export { ApiMetrics, type ApiMetricsOptions, type RequestLabels } from "./metrics/api-metrics.js";
