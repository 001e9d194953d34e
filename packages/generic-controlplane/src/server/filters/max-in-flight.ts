import { tooManyInFlight } from "../../api/errors/index.js";
import type { RequestFilter } from "./chain.js";
import { isLongRunning, isMutating } from "./long-running.js";

type RequestKind = "readOnly" | "mutating";

export interface MaxInFlightOptions {
  /**
   * `--max-requests-inflight` and `--max-mutating-requests-inflight`: resource requests beyond them
   * get 429 TooManyRequests. Absent when priority and fairness admits requests instead; 0 turns a
   * limit off.
   */
  limits?: Record<RequestKind, number> | undefined;
  /**
   * The requests in flight by kind, counted here: `apiserver_current_inflight_requests` reads them
   * when scraped (two gauge updates per request cost more than the count itself).
   */
  inflight?: Record<RequestKind, number> | undefined;
}

/**
 * upstream `WithMaxInFlightLimit`: every request that is not long-running holds a seat of its kind
 * until its response closes, counted in the in-flight gauge, and is refused when its kind is full.
 */
export function withMaxInFlight(options: MaxInFlightOptions): RequestFilter {
  const inflight: Record<RequestKind, number> = options.inflight ?? { readOnly: 0, mutating: 0 };
  return {
    name: "max-in-flight",
    handle(ctx, next) {
      if (isLongRunning(ctx.info)) return next(ctx);
      const kind: RequestKind = isMutating(ctx.info) ? "mutating" : "readOnly";
      const limit = options.limits?.[kind] ?? 0;
      if (ctx.info?.isResourceRequest === true && limit > 0 && inflight[kind] >= limit) throw tooManyInFlight();
      inflight[kind]++;
      ctx.res.once("close", () => {
        inflight[kind]--;
      });
      return next(ctx);
    },
  };
}
