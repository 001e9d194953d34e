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
  StoredAs,
} from "./registry/resource-definition.js";
export type {
  AdmissionAttributes,
  AdmissionPlugin,
  DeleteResult,
  ListPages,
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
export {
  applyJsonPatch,
  applyMergePatch,
  applyStrategicMergePatch,
  findDuplicateFields,
  findStrictFieldErrors,
  findUnknownFields,
  patchMetaSchemas,
  unknownFieldMessage,
  type JsonPatchOperation,
  type StrategicMergePatchOptions,
  type UnknownFieldOptions,
} from "./patch/index.js";
export {
  aggregatedDiscoveryContentType,
  buildAggregatedDiscovery,
  buildAPIGroup,
  buildAPIGroupList,
  buildAPIResourceList,
  buildAPIVersions,
  createDiscoveryDocuments,
  discoveryETag,
  etagMatches,
  negotiateDiscovery,
  storageVersionHash,
  type APIGroup,
  type APIGroupDiscoveryList,
  type APIGroupList,
  type APIResource,
  type APIResourceList,
  type APIVersions,
  type DiscoveryDocuments,
  type DiscoveryForm,
  type DiscoveryOptions,
  type SubresourceSpec,
} from "./discovery/index.js";
export {
  buildOpenAPIv2,
  buildOpenAPIv2Protobuf,
  buildOpenAPIv3,
  createOpenApiDocuments,
  OPENAPI_V2_PROTOBUF_CONTENT_TYPE,
  type OpenAPIv3,
  type OpenAPIv3Index,
  type OpenApiDocuments,
  type OpenApiOptions,
  type SwaggerDocument,
} from "./openapi/index.js";
export { createControlPlane, type ControlPlane, type ControlPlaneControllers, type ControlPlaneOptions } from "./control-plane.js";
export { ApiServer, type ApiServerOptions, type HandlerStage } from "./server/api-server.js";
export {
  defaultFlowSchemas,
  defaultPriorityLevels,
  type FlowSchema,
  type NonResourcePolicyRule,
  type PolicyRulesWithSubjects,
  type PriorityLevelConfiguration,
  type ResourcePolicyRule,
  type Subject,
} from "./server/flowcontrol/defaults.js";
export { flowSchemasResource, priorityLevelConfigurationsResource } from "./resources/flowcontrol.js";
export type { RequestContext } from "./server/context.js";
export type { HandlerCodecs, IncludeObject, ServedResource } from "./server/served-resource.js";
export type { HealthCheck, HealthEndpoint } from "./server/health.js";
export { jsonLineLogger, type Logger, type LogRecord } from "./server/logger.js";
export { kubeconfigFor } from "./server/kubeconfig.js";
export { namespaceLifecycle } from "./server/namespace-lifecycle.js";
export { KUBE_API_MAJOR, KUBE_API_MINOR, versionInfo } from "./server/version-info.js";
export { accessReviewStage, alwaysAllow, ANONYMOUS, type AuthorizationAttributes, type AuthorizationDecision, type Authorizer, type UserInfo } from "./server/access-reviews.js";
export { ApiMetrics, type ApiMetricsOptions, type RequestLabels } from "./metrics/api-metrics.js";
export {
  builtinResources,
  configMapsResource,
  eventsResource,
  eventsV1Resource,
  leasesResource,
  namespacesResource,
  secretsResource,
  selectBuiltinResources,
  serviceAccountsResource,
  type BuiltinResourceName,
} from "./resources/index.js";
export {
  IMMORTAL_NAMESPACES,
  NAMESPACE_FINALIZER_KUBERNETES,
  NAMESPACE_NAME_LABEL,
  SYSTEM_NAMESPACES,
  isNamespaceTerminating,
  namespaceFinalizeStrategy,
  shouldDeleteNamespaceDuringUpdate,
} from "./resources/namespaces.js";
export { createNamespaceStorage, type NamespaceStorage } from "./resources/namespace-store.js";
export { SecretTypes } from "./resources/secrets.js";
export { coreEventToEventsV1, eventsV1ToCore } from "./resources/events-v1.js";
export {
  PROTOBUF_CONTENT_TYPE,
  PROTOBUF_MAGIC,
  decodeProtobuf,
  encodeProtobuf,
  protobufKinds,
  protobufListParts,
  supportsProtobuf,
  type ProtobufListParts,
} from "./protobuf/index.js";
