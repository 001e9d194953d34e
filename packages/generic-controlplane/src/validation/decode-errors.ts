import { badRequest } from "../api/errors/index.js";
import type { ControlPlaneError } from "../api/errors/control-plane-error.js";

/** The kind and version a body was decoded as. */
export interface DecodeTarget {
  kind: string;
  version: string;
}

/**
 * A body kube-apiserver could not decode into its Go type: a 400 with apiserver's
 * `<Kind> in version "<v>" cannot be handled as a <Kind>: <decoder error>` wording.
 */
export function decodeError(target: DecodeTarget, reason: string): ControlPlaneError {
  return badRequest(`${target.kind} in version "${target.version}" cannot be handled as a ${target.kind}: ${reason}`);
}
