import { parseRequestInfo } from "../request-info.js";
import type { RequestFilter } from "./chain.js";

/** upstream `WithRequestInfo`: every later stage sees what the request addresses in `ctx.info`. */
export function withRequestInfo(): RequestFilter {
  return {
    name: "request-info",
    handle(ctx, next) {
      ctx.info = parseRequestInfo(ctx.method, ctx.path, ctx.query);
      return next(ctx);
    },
  };
}
