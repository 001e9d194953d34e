import { shuttingDown } from "../../api/errors/index.js";
import type { RequestFilter } from "./chain.js";

/** Health probes and metrics are answered during the drain, so probes see the real state. */
const DRAIN_EXEMPT_PATHS = /^\/(readyz|livez|healthz|metrics)(\/|$)/;

/**
 * upstream `WithRetryAfter` (`--shutdown-send-retry-after`): once the server stops accepting new
 * requests, a request on a kept-alive connection gets 429 with `Retry-After` and
 * `Connection: close`, so the client retries on another server.
 */
export function withRetryAfter(notAcceptingNewRequests: () => boolean): RequestFilter {
  return {
    name: "retry-after",
    handle(ctx, next) {
      if (notAcceptingNewRequests() && !DRAIN_EXEMPT_PATHS.test(ctx.path)) {
        ctx.res.setHeader("Connection", "close");
        throw shuttingDown();
      }
      return next(ctx);
    },
  };
}
