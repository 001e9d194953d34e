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
  /** `apiserver_current_inflight_requests` by request kind. */
  gauges?: Record<RequestKind, { inc(): void; dec(): void }> | undefined;
}

/**
 * upstream `WithMaxInFlightLimit`: every request that is not long-running holds a seat of its kind
 * until its response closes, counted in the in-flight gauge, and is refused when its kind is full.
 */
export function withMaxInFlight(options: MaxInFlightOptions): RequestFilter {
  const inflight: Record<RequestKind, number> = { readOnly: 0, mutating: 0 };
  return {
    name: "max-in-flight",
    handle(ctx, next) {
      if (isLongRunning(ctx.info)) return next();
      const kind: RequestKind = isMutating(ctx.info) ? "mutating" : "readOnly";
      const limit = options.limits?.[kind] ?? 0;
      if (ctx.info?.isResourceRequest === true && limit > 0 && inflight[kind] >= limit) throw tooManyInFlight();
      inflight[kind]++;
      const gauge = options.gauges?.[kind];
      gauge?.inc();
      ctx.res.once("close", () => {
        inflight[kind]--;
        gauge?.dec();
      });
      return next();
    },
  };
}
