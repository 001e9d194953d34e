import type { RequestFilter } from "./chain.js";

/**
 * upstream `WithAudit`'s place in the chain, after authentication so events name the user. No
 * audit backend exists yet, so the stage passes every request on unchanged; each response already
 * carries the `Audit-Id` an audit event would be keyed by.
 */
export function withAudit(): RequestFilter {
  return { name: "audit", handle: (_ctx, next) => next() };
}
