import type { RequestFilter } from "./chain.js";

/**
 * upstream `WithAuthorization`'s place in the chain, after flow control and just before dispatch.
 * Requests are not authorized yet, as kube-apiserver with `--authorization-mode=AlwaysAllow`; the
 * configured `Authorizer` answers the self-review APIs (access-reviews.ts) only. The stage passes
 * every request on.
 */
export function withAuthorization(): RequestFilter {
  return { name: "authorization", handle: (_ctx, next) => next() };
}
