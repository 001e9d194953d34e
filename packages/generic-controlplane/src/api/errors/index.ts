/**
 * The error catalogue: every `Status` the server answers with is built here, after apimachinery's
 * `k8s.io/apimachinery/pkg/api/errors` (resource-errors, request-errors, generic-server-response)
 * and the errors kube-apiserver's storage (storage-errors), request handling (endpoint-errors) and
 * patch handler (patch-errors) add on top. Each function returns a `ControlPlaneError` whose
 * `toStatus()` is the body a client gets; callers supply only what varies (names, values, reasons).
 */
export { qualifiedKind, qualifiedResource, type GroupKind, type GroupResource } from "./group-resource.js";
export { authorizationForbidden, forbiddenMessage } from "./authorization-errors.js";
export {
  OPTIMISTIC_LOCK_ERROR_MSG,
  alreadyExists,
  applyConflict,
  conflict,
  forbidden,
  generateNameConflict,
  invalid,
  methodNotSupported,
  notAllowedWhileTerminating,
  notFound,
  serverTimeout,
} from "./resource-errors.js";
export {
  badRequest,
  gone,
  internalError,
  requestEntityTooLarge,
  resourceExpired,
  serviceUnavailable,
  unknownError,
  timeoutError,
  tooManyRequests,
  tooManyRequestsError,
  unauthorized,
  type CauseOption,
} from "./request-errors.js";
export { genericServerResponse, type GenericServerResponse } from "./generic-server-response.js";
export { conversionFailed, dryRunUnsupported, unknownServerResponse, webhookDenied } from "./webhook-errors.js";
export {
  keyExists,
  keyNotFound,
  preconditionFailed,
  resourceVersionSetOnCreate,
  revisionConflict,
  storageClosed,
  tooLargeResourceVersion,
  tooOldResourceVersion,
} from "./storage-errors.js";
export {
  OBJECT_MEDIA_TYPES,
  bodyReadTimeout,
  methodNotAllowed,
  nameMismatch,
  namespaceMismatch,
  notAcceptable,
  pathNotFound,
  protobufFieldNotSupported,
  protobufNotAcceptable,
  protobufNotSupported,
  shuttingDown,
  tooManyInFlight,
  unsupportedMediaType,
  verbNotRouted,
} from "./endpoint-errors.js";
export { patchNotApplicable } from "./patch-errors.js";
export { deletedStatus } from "./success-status.js";
export { policyDenied } from "./admission-errors.js";
