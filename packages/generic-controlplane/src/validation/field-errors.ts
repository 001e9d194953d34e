import { fieldErrorBody, type FieldError } from "@kubekit/apimachinery";
import type { StatusCause } from "../api/types.js";
import { invalid } from "../api/errors/index.js";
import type { ControlPlaneError } from "../api/errors/control-plane-error.js";

/**
 * `FieldError`s (apimachinery's `util/validation/field`, implemented in @kubekit/apimachinery) as
 * the API server reports them: the causes and the 422 Invalid they make.
 */
export {
  childPath,
  fieldDuplicate,
  fieldErrorBody,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  fieldTooLong,
  fieldTooMany,
  formatFieldError,
  indexPath,
  keyPath,
  type FieldError,
} from "@kubekit/apimachinery";

/** The `details.causes` of a 422 Invalid. */
export function toStatusCauses(errors: readonly FieldError[]): StatusCause[] {
  return errors.map((error) => ({ reason: error.type, message: fieldErrorBody(error), field: error.field }));
}

/** `ConfigMap "x" is invalid: [data[a b]: Invalid value: …]` (`Lease.coordination.k8s.io "x"` in a group) with one cause per error. */
export function invalidError(target: { group: string; kind: string }, name: string, errors: readonly FieldError[]): ControlPlaneError {
  return invalid({ group: target.group, kind: target.kind }, name, toStatusCauses(errors));
}
