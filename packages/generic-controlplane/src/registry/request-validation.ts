import { badRequest } from "../api/errors/index.js";
import { fieldForbidden, fieldNotSupported, invalidError, type FieldError } from "../validation/field-errors.js";
import type { ListRequest, WatchRequest } from "./types.js";

/**
 * The checks of apimachinery's `ValidateListOptions` on list and watch parameters, answered
 * with the same 422 (`ListOptions.meta.k8s.io "" is invalid: …`) kube-apiserver gives.
 */

const LIST_OPTIONS = { group: "meta.k8s.io", plural: "listoptions", kind: "ListOptions" };

export function validateListRequest(request: ListRequest): void {
  const errors: FieldError[] = [];
  const match = request.resourceVersionMatch as string | undefined;
  if (match !== undefined && match !== "") {
    if (!request.resourceVersion)
      errors.push(fieldForbidden("resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided"));
    if (request.continue)
      errors.push(fieldForbidden("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided"));
    if (match !== "Exact" && match !== "NotOlderThan")
      errors.push(fieldNotSupported("resourceVersionMatch", match, ["Exact", "NotOlderThan", ""]));
    if (match === "Exact" && request.resourceVersion === "0")
      errors.push(fieldForbidden("resourceVersionMatch", `resourceVersionMatch "exact" is forbidden for resourceVersion "0"`));
  }
  if (errors.length > 0) throw invalidError(LIST_OPTIONS, "", errors);
  if (request.continue && request.resourceVersion && request.resourceVersion !== "0") {
    throw badRequest("specifying resource version is not allowed when using continue");
  }
  if (request.limit !== undefined && (!Number.isInteger(request.limit) || request.limit < 0)) {
    throw badRequest(`invalid limit: ${request.limit}`);
  }
}

export function validateWatchRequest(request: WatchRequest): void {
  const errors: FieldError[] = [];
  const match = request.resourceVersionMatch as string | undefined;
  if (request.sendInitialEvents !== undefined) {
    if (match !== "NotOlderThan")
      errors.push(fieldForbidden("resourceVersionMatch", "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"));
    if (request.sendInitialEvents && !request.allowWatchBookmarks) {
      errors.push(fieldForbidden("allowWatchBookmarks", "allowWatchBookmarks must be set to true when sendInitialEvents is true"));
    }
  } else if (match !== undefined && match !== "") {
    errors.push(fieldForbidden("resourceVersionMatch", "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"));
  }
  if (match !== undefined && match !== "" && match !== "NotOlderThan")
    errors.push(fieldNotSupported("resourceVersionMatch", match, ["NotOlderThan"]));
  if (errors.length > 0) throw invalidError(LIST_OPTIONS, "", errors);
}

/** A resourceVersion a client sent: a decimal revision (0 = any). */
export function parseResourceVersion(value: string): number {
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw badRequest(`invalid resource version: ${JSON.stringify(value)}`);
  }
  return Number(value);
}
