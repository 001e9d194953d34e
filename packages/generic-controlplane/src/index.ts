/**
 * `@kubekit/generic-controlplane`: start a control plane. The layers under it have their own entry
 * points (`/storage`, `/registry`, `/server`, `/controllers`, `/testing`); this one holds what
 * `createControlPlane` takes and returns, the API object types, and the error every layer throws
 * with the catalogue that builds it (apimachinery's `api/errors`).
 * Types of the layers that the options mention (`Storage`, `ResourceDefinition`, `AdmissionPlugin`,
 * `HandlerStage`, `ApiServer`, ...) come from their layer's entry point.
 */
export { VERSION } from "./server/version.js";
export {
  createControlPlane,
  type AuthorizationOptions,
  type ControlPlane,
  type ControlPlaneControllers,
  type ControlPlaneOptions,
  type CustomResourceDefinitionOptions,
} from "./control-plane.js";
// CustomResourceDefinitions: the object types and the conversion seam (`customResourceDefinitions.converters`).
export { noneConverter, type ConverterFactory, type CustomResourceConverter } from "./apiextensions/conversion.js";
export type {
  CustomResourceColumnDefinition,
  CustomResourceConversion,
  CustomResourceDefinition,
  CustomResourceDefinitionCondition,
  CustomResourceDefinitionNames,
  CustomResourceDefinitionSpec,
  CustomResourceDefinitionStatus,
  CustomResourceDefinitionVersion,
  CustomResourceSubresourceScale,
  CustomResourceSubresources,
  SelectableField,
} from "./apiextensions/types.js";
export type { AuthorizationMode } from "./server/authorizers.js";
export { clusterRoleBindingsResource, clusterRolesResource, roleBindingsResource, rolesResource } from "./rbac/index.js";
export {
  ControlPlaneError,
  isControlPlaneError,
  type ControlPlaneErrorCode,
  type ControlPlaneErrorOptions,
} from "./api/errors/control-plane-error.js";
// The errors of apimachinery's api/errors, worded as kube-apiserver words them, for admission
// plugins, strategies and handlers of your own.
export {
  OPTIMISTIC_LOCK_ERROR_MSG,
  alreadyExists,
  applyConflict,
  badRequest,
  conflict,
  forbidden,
  generateNameConflict,
  genericServerResponse,
  gone,
  internalError,
  invalid,
  methodNotSupported,
  notFound,
  requestEntityTooLarge,
  resourceExpired,
  serverTimeout,
  serviceUnavailable,
  unknownError,
  timeoutError,
  tooManyRequests,
  tooManyRequestsError,
  unauthorized,
  type CauseOption,
  type GenericServerResponse,
  type GroupKind,
  type GroupResource,
} from "./api/errors/index.js";
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
export { builtinResources, selectBuiltinResources, type BuiltinResourceName } from "./control-plane/builtin-resources.js";
export { jsonLineLogger, type Logger, type LogRecord } from "./server/logger.js";
export { parseGoDuration } from "./api/go-duration.js";
export { runCommand, UsageError, type CommandProcess, type CommandSpec, type RunningCommand } from "./command/run-command.js";
// TLS and authentication material a server keeps on disk, and the options that use it.
export { loadOrCreateServingPki, ADMIN_USER, DEFAULT_SERVING_HOSTS, type ServingPki } from "./certs/pki.js";
export { createCertificateAuthority, issueClientCertificate, issueServingCertificate, type CertificateAndKey } from "./certs/authority.js";
export { loadOrCreateServiceAccountKeyFiles, rotateServiceAccountKeys } from "./authn/serviceaccount/keys.js";
export { TokenFileError } from "./authn/token-file.js";
export type { AuthenticationOptions, ServiceAccountTokenOptions } from "./control-plane/authentication.js";
export type { AnonymousPaths } from "./authn/anonymous.js";
export type { KubeconfigCredentials } from "./server/kubeconfig.js";
// Admission webhooks and APIService aggregation: how services are reached, and the CEL seam of matchConditions.
export {
  defaultServiceResolver,
  staticServiceResolver,
  type ServiceReference,
  type ServiceResolver,
  type WebhookClientConfig,
} from "./webhook/client-config.js";
export type { MatchConditionEvaluator, MatchConditionVariables } from "./admission/plugin/webhooks/match-conditions.js";
export type { AdmissionReview, AdmissionReviewRequest } from "./admission/plugin/webhooks/admission-review.js";
