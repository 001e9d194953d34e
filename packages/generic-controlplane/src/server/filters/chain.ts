import type { RequestContext } from "../context.js";

/** Passes the request on to the rest of the chain (the same context: a filter fills it in, never replaces it). */
export type Next = (ctx: RequestContext) => Promise<void>;

/**
 * One stage of the handler chain, after k8s.io/apiserver's `endpoints/filters`: it may answer the
 * request itself (throw a ControlPlaneError, or write a response and not call `next`), fill in the
 * context, or hold something until the response closes.
 */
export interface RequestFilter {
  readonly name: string;
  handle(ctx: RequestContext, next: Next): Promise<void>;
}

/** A filter with nothing to do in this server's configuration (no authenticator, authorizer or audit policy): it passes every request on. */
export function passThrough(name: string): RequestFilter {
  return { name, handle: (ctx, next) => next(ctx) };
}

/**
 * Wraps `handler` in `filters`, the first of which sees the request first. A filter that throws,
 * at once or later, rejects the chain's promise, so one catch answers every stage's error.
 */
export function buildHandlerChain(
  filters: readonly RequestFilter[],
  handler: (ctx: RequestContext) => Promise<void>,
): (ctx: RequestContext) => Promise<void> {
  // Each layer hands on the filter's own promise rather than wrapping it in an async function's:
  // a dozen layers of async wrappers cost every request three dozen promise-resolution steps.
  // Each filter gets the rest of the chain as built once, not a closure per request.
  return filters.reduceRight<(ctx: RequestContext) => Promise<void>>(
    (inner, filter) => (ctx) => {
      try {
        return filter.handle(ctx, inner);
      } catch (error) {
        return Promise.reject(error instanceof Error ? error : new Error(String(error)));
      }
    },
    async (ctx) => handler(ctx),
  );
}
