import type { StatusDetails } from "../types.js";

/**
 * `StatusDetails` as Go marshals it: every field is `omitempty`, so empty names, groups and
 * kinds and a zero retry are left out rather than sent as "" or 0.
 */
export function statusDetails(fields: StatusDetails): StatusDetails {
  const details: StatusDetails = {};
  if (fields.name) details.name = fields.name;
  if (fields.group) details.group = fields.group;
  if (fields.kind) details.kind = fields.kind;
  if (fields.uid) details.uid = fields.uid;
  if (fields.causes !== undefined && fields.causes.length > 0) details.causes = fields.causes;
  if (fields.retryAfterSeconds) details.retryAfterSeconds = fields.retryAfterSeconds;
  return details;
}
