import { ControlPlaneError } from "../errors.js";

/**
 * The errors every backend raises, worded so the registry can pass them through or re-wrap them
 * with the resource name. Expired uses kube-apiserver's watch wording, which clients match on.
 */
export function keyExists(key: string): ControlPlaneError {
  return new ControlPlaneError("AlreadyExists", `key already exists: ${key}`);
}

export function keyNotFound(key: string): ControlPlaneError {
  return new ControlPlaneError("NotFound", `key not found: ${key}`);
}

export function revisionConflict(key: string, expected: number, actual: number): ControlPlaneError {
  return new ControlPlaneError("Conflict", `revision mismatch on ${key}: expected ${expected}, found ${actual}`);
}

export function compacted(revision: number, compactedRevision: number): ControlPlaneError {
  return new ControlPlaneError("Expired", `too old resource version: ${revision} (${compactedRevision})`);
}

/** kube-apiserver answers a read at a revision it has not reached yet with 504 and this cause. */
export function futureRevision(revision: number, currentRevision: number): ControlPlaneError {
  return new ControlPlaneError("Timeout", `Too large resource version: ${revision}, current: ${currentRevision}`, {
    details: { causes: [{ reason: "ResourceVersionTooLarge", message: "Too large resource version" }], retryAfterSeconds: 1 },
  });
}

export function storageClosed(): ControlPlaneError {
  return new ControlPlaneError("ServiceUnavailable", "storage is closed");
}

export function invalidArgument(message: string): ControlPlaneError {
  return new ControlPlaneError("BadRequest", message);
}
