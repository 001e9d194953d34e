import { ControlPlaneError } from "./control-plane-error.js";
import type { CauseOption } from "./request-errors.js";

/**
 * 422 Invalid for a patch that cannot be applied to the object (a JSON patch operation on a
 * missing path, a failed `test`, a strategic merge patch with a list of lists). Upstream answers
 * these with the generic 422 a client builds for a bare status ("the server rejected our request
 * due to an error in our request") and drops the reason; the reason is kept as the message here,
 * so a client shows what did not apply.
 */
export function patchNotApplicable(message: string, options?: CauseOption): ControlPlaneError {
  return new ControlPlaneError("Invalid", message, options?.cause === undefined ? {} : { cause: options.cause });
}
