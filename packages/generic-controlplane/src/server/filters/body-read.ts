import { readBody, type BodyReadLimits } from "../body.js";
import type { RequestFilter } from "./chain.js";
import { isMutating } from "./long-running.js";

/**
 * Reads a writing request's body under its deadlines before the request takes an in-flight seat:
 * a client sending slowly (or never finishing) waits on its own socket, not in a seat other
 * writers need. The handler that decodes the body later gets the same bytes.
 */
export function withBodyRead(limits: BodyReadLimits): RequestFilter {
  return {
    name: "body-read",
    handle(ctx, next) {
      if (!isMutating(ctx.info)) return next(ctx);
      return readBody(ctx.req, limits).then(() => next(ctx));
    },
  };
}
