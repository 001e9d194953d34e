import { ControlPlaneError } from "./control-plane-error.js";
import type { StatusCause } from "../types.js";
import { statusDetails } from "./details.js";
import { isEmptyGroupResource, qualifiedKind, qualifiedResource, type GroupKind, type GroupResource } from "./group-resource.js";

/**
 * The errors about one resource (or object) of apimachinery's `api/errors`: their message names
 * the resource as `GroupResource.String()` and their details carry group, resource and name.
 */

/** The conflict an update with a stale resourceVersion gets (upstream `OptimisticLockErrorMsg`). */
export const OPTIMISTIC_LOCK_ERROR_MSG = "the object has been modified; please apply your changes to the latest version and try again";

function resourceDetails(resource: GroupResource, name: string, retryAfterSeconds = 0) {
  return statusDetails({ group: resource.group, kind: resource.resource, name, retryAfterSeconds });
}

/** 404 `configmaps "foo" not found` (`NewNotFound`). */
export function notFound(resource: GroupResource, name: string): ControlPlaneError {
  return new ControlPlaneError("NotFound", `${qualifiedResource(resource)} "${name}" not found`, {
    details: resourceDetails(resource, name),
  });
}

/** 409 `configmaps "foo" already exists` (`NewAlreadyExists`). */
export function alreadyExists(resource: GroupResource, name: string): ControlPlaneError {
  return new ControlPlaneError("AlreadyExists", `${qualifiedResource(resource)} "${name}" already exists`, {
    details: resourceDetails(resource, name),
  });
}

/** 409 AlreadyExists for a generated name that collided, with a retry hint (`NewGenerateNameConflict`). */
export function generateNameConflict(resource: GroupResource, name: string, retryAfterSeconds: number): ControlPlaneError {
  return new ControlPlaneError(
    "AlreadyExists",
    `${qualifiedResource(resource)} "${name}" already exists, the server was not able to generate a unique name for the object`,
    { details: resourceDetails(resource, name, retryAfterSeconds) },
  );
}

/** 409 `Operation cannot be fulfilled on leases.coordination.k8s.io "x": <why>` (`NewConflict`). */
export function conflict(resource: GroupResource, name: string, why: string = OPTIMISTIC_LOCK_ERROR_MSG): ControlPlaneError {
  return new ControlPlaneError("Conflict", `Operation cannot be fulfilled on ${qualifiedResource(resource)} "${name}": ${why}`, {
    details: resourceDetails(resource, name),
  });
}

/** 409 Conflict of server-side apply: one cause per conflicting field (`NewApplyConflict`). */
export function applyConflict(causes: StatusCause[], message: string): ControlPlaneError {
  return new ControlPlaneError("Conflict", message, { details: statusDetails({ causes }) });
}

/** 403 `configmaps "x" is forbidden: <why>`, without the name or resource when they are empty (`NewForbidden`). */
export function forbidden(resource: GroupResource, name: string, why: string): ControlPlaneError {
  let message: string;
  if (isEmptyGroupResource(resource)) message = `forbidden: ${why}`;
  else if (name === "") message = `${qualifiedResource(resource)} is forbidden: ${why}`;
  else message = `${qualifiedResource(resource)} "${name}" is forbidden: ${why}`;
  return new ControlPlaneError("Forbidden", message, { details: resourceDetails(resource, name) });
}

/** 405 `delete is not supported on resources of kind "x"` (`NewMethodNotSupported`). */
export function methodNotSupported(resource: GroupResource, action: string): ControlPlaneError {
  return new ControlPlaneError("MethodNotAllowed", `${action} is not supported on resources of kind "${qualifiedResource(resource)}"`, {
    details: resourceDetails(resource, ""),
  });
}

/**
 * 405 `create not allowed while custom resource definition is terminating`: the custom resources
 * of a CRD being deleted take no new objects (upstream's crdHandler).
 */
export function notAllowedWhileTerminating(resource: GroupResource, verb: string): ControlPlaneError {
  return new ControlPlaneError("MethodNotAllowed", `${verb} not allowed while custom resource definition is terminating`, {
    details: resourceDetails(resource, ""),
  });
}

/** 500 ServerTimeout: a transient failure the client should retry (`NewServerTimeout`); the operation rides in details.name. */
export function serverTimeout(resource: GroupResource, operation: string, retryAfterSeconds: number): ControlPlaneError {
  return new ControlPlaneError(
    "ServerTimeout",
    `The ${operation} operation against ${qualifiedResource(resource)} could not be completed at this time, please try again.`,
    { details: resourceDetails(resource, operation, retryAfterSeconds) },
  );
}

/**
 * 422 `Lease.coordination.k8s.io "x" is invalid: [a: …, b: …]` with one cause per field error
 * (`NewInvalid`). The list is the field errors' aggregate: repeated messages once, brackets only
 * around more than one, and no list at all when there are no causes.
 */
export function invalid(kind: GroupKind, name: string, causes: readonly StatusCause[]): ControlPlaneError {
  const messages = [...new Set(causes.map((c) => (c.field ? `${c.field}: ${c.message ?? ""}` : (c.message ?? ""))))];
  const head = `${qualifiedKind(kind)} "${name}" is invalid`;
  let message = head;
  if (messages.length === 1) message = `${head}: ${messages[0]}`;
  else if (messages.length > 1) message = `${head}: [${messages.join(", ")}]`;
  return new ControlPlaneError("Invalid", message, {
    details: statusDetails({ group: kind.group, kind: kind.kind, name, causes: [...causes] }),
  });
}
