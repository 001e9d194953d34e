import { ControlPlaneError } from "./control-plane-error.js";
import type { GroupResource } from "./group-resource.js";
import { badRequest, resourceExpired, serviceUnavailable, timeoutError } from "./request-errors.js";
import { conflict } from "./resource-errors.js";

/**
 * The errors of the storage layer (k8s.io/apiserver `pkg/storage`). Backends raise the key
 * errors, which the registry re-wraps with the resource and name (NotFound, AlreadyExists, a
 * retried Conflict); the resourceVersion errors reach clients as they are, worded as upstream's.
 */

/** A create found the key live. The registry answers `alreadyExists` for the object. */
export function keyExists(key: string): ControlPlaneError {
  return new ControlPlaneError("AlreadyExists", `key already exists: ${key}`);
}

/** A read or write found no live key. The registry answers `notFound` for the object. */
export function keyNotFound(key: string): ControlPlaneError {
  return new ControlPlaneError("NotFound", `key not found: ${key}`);
}

/** A compare-and-swap lost to another write. The registry retries, then answers `conflict`. */
export function revisionConflict(key: string, expected: number, actual: number): ControlPlaneError {
  return new ControlPlaneError("Conflict", `revision mismatch on ${key}: expected ${expected}, found ${actual}`);
}

/** 410 Expired for a revision compaction removed, in the watch wording clients match on. */
export function tooOldResourceVersion(revision: number, compactedRevision: number): ControlPlaneError {
  return resourceExpired(`too old resource version: ${revision} (${compactedRevision})`);
}

/**
 * 504 `Timeout: Too large resource version: 9, current: 5` with the ResourceVersionTooLarge cause
 * and a one-second retry, for a read at a revision the store has not reached yet
 * (`storage.NewTooLargeResourceVersionError`).
 */
export function tooLargeResourceVersion(requested: number, current: number, retryAfterSeconds = 1): ControlPlaneError {
  const error = timeoutError(`Too large resource version: ${requested}, current: ${current}`, retryAfterSeconds);
  error.details!.causes = [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }];
  return error;
}

/** 503 from a backend that has been closed. */
export function storageClosed(): ControlPlaneError {
  return serviceUnavailable("storage is closed");
}

/** 400 for an object that carries a resourceVersion into a create (`storage.ErrResourceVersionSetOnCreate`). */
export function resourceVersionSetOnCreate(): ControlPlaneError {
  return badRequest("resourceVersion should not be set on objects to be created");
}

/**
 * 409 for a delete precondition the object does not meet:
 * `Precondition failed: UID in precondition: a, UID in object meta: b` (`storage.Preconditions.Check`).
 */
export function preconditionFailed(
  resource: GroupResource,
  name: string,
  field: "UID" | "ResourceVersion",
  inPrecondition: string,
  inObjectMeta: string,
): ControlPlaneError {
  return conflict(
    resource,
    name,
    `Precondition failed: ${field} in precondition: ${inPrecondition}, ${field} in object meta: ${inObjectMeta}`,
  );
}
