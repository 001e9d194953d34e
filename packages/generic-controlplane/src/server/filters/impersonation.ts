import type { RequestFilter } from "./chain.js";

/**
 * upstream `WithImpersonation`'s place in the chain, between audit and flow control. `Impersonate-*`
 * headers are not acted on yet (there is no authorizer to check the `impersonate` verb against),
 * so the stage passes every request on as its authenticated user.
 */
export function withImpersonation(): RequestFilter {
  return { name: "impersonation", handle: (_ctx, next) => next() };
}
