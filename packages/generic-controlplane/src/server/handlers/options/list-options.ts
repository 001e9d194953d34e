import type { StatusCause } from "../../../api/types.js";
import type { ListRequest } from "../../../registry/types.js";
import { optionsInvalid } from "./write-options.js";
import { parseInt64Query } from "./query-numbers.js";

/** The largest page size passed on: any larger limit returns the whole collection just the same. */
const MAX_LIMIT = Number.MAX_SAFE_INTEGER;

/** The list query of a LIST or DELETECOLLECTION (meta/v1 ListOptions), validated like apimachinery does. */
export function parseListRequest(query: URLSearchParams): ListRequest {
  const request: ListRequest = {};
  const labelSelector = query.get("labelSelector");
  if (labelSelector) request.labelSelector = labelSelector;
  const fieldSelector = query.get("fieldSelector");
  if (fieldSelector) request.fieldSelector = fieldSelector;
  const limit = query.get("limit");
  if (limit !== null) {
    // Zero and negative limits mean no limit, as upstream.
    const n = parseInt64Query(limit);
    if (n > 0) request.limit = Math.min(n, MAX_LIMIT);
  }
  // Parsed (and refused when malformed) like the other ListOptions, though a LIST is not cut short.
  const timeoutSeconds = query.get("timeoutSeconds");
  if (timeoutSeconds !== null) parseInt64Query(timeoutSeconds);
  const cont = query.get("continue");
  if (cont) request.continue = cont;
  const rv = query.get("resourceVersion");
  if (rv !== null && rv !== "") request.resourceVersion = rv;
  const match = query.get("resourceVersionMatch");
  const causes: StatusCause[] = [];
  if (match !== null && match !== "") {
    if (match !== "Exact" && match !== "NotOlderThan") {
      causes.push({
        reason: "FieldValueNotSupported",
        field: "resourceVersionMatch",
        message: `Unsupported value: ${JSON.stringify(match)}: supported values: "Exact", "NotOlderThan"`,
      });
    } else if (request.resourceVersion === undefined) {
      causes.push({
        reason: "FieldValueForbidden",
        field: "resourceVersionMatch",
        message: "Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided",
      });
    } else {
      request.resourceVersionMatch = match;
      if (match === "Exact" && request.resourceVersion === "0") {
        causes.push({
          reason: "FieldValueForbidden",
          field: "resourceVersionMatch",
          message: 'Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"',
        });
      }
    }
  }
  if (request.continue !== undefined && request.resourceVersion !== undefined && request.resourceVersion !== "0") {
    causes.push({
      reason: "FieldValueForbidden",
      field: "resourceVersion",
      message: "Forbidden: specifying resource version is not allowed when using continue",
    });
  }
  if (causes.length > 0) throw optionsInvalid("ListOptions", causes);
  return request;
}
