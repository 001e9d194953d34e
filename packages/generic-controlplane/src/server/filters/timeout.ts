import { badRequest, timeoutError } from "../../api/errors/index.js";
import { parseGoDuration } from "../../api/go-duration.js";
import type { RequestFilter } from "./chain.js";
import { isLongRunning } from "./long-running.js";

/** kube-apiserver's `--request-timeout` default. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/**
 * upstream `WithRequestDeadline` + `WithTimeoutForNonLongRunningRequests`: a request that is not
 * long-running must finish within `requestTimeoutMs` (kube-apiserver's `--request-timeout`), or
 * within its `timeout` query parameter when that is shorter. Past the deadline the client gets 504
 * Timeout (the work may still complete, as upstream's message says) and the connection closes; what
 * the handler writes later goes nowhere. A response already under way is cut off, as upstream
 * aborts its handler. Queueing in flow control counts towards the deadline, as upstream.
 */
export function withRequestTimeout(requestTimeoutMs: number): RequestFilter {
  return {
    name: "timeout",
    handle(ctx, next) {
      if (isLongRunning(ctx.info)) return next(ctx);
      const timeoutMs = deadlineOf(ctx.query.get("timeout"), requestTimeoutMs);
      if (timeoutMs <= 0) return next(ctx);
      return new Promise<void>((resolve, reject) => {
        let settled = false;
        const timer = setTimeout(() => {
          settled = true;
          const { res } = ctx;
          // The client has its answer: later writes of the still running handler are dropped.
          res.on("error", () => undefined);
          if (res.headersSent) {
            res.destroy();
            resolve();
            return;
          }
          res.setHeader("Connection", "close");
          reject(timeoutError("request did not complete within requested timeout - context deadline exceeded", 0));
        }, timeoutMs);
        next(ctx).then(
          () => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            resolve();
          },
          (error: unknown) => {
            if (settled) return;
            settled = true;
            clearTimeout(timer);
            reject(error instanceof Error ? error : new Error(String(error)));
          },
        );
      });
    },
  };
}

/** upstream `timeoutParser.Parse`: the `timeout` parameter when it is positive and shorter than the server's, else the server's. */
function deadlineOf(raw: string | null, requestTimeoutMs: number): number {
  if (raw === null || raw === "") return requestTimeoutMs;
  let requested: number;
  try {
    requested = parseGoDuration(raw);
  } catch (error) {
    throw badRequest(`invalid timeout specified in the request URL - ${(error as Error).message}`);
  }
  if (requestTimeoutMs <= 0) return requested > 0 ? requested : 0;
  return requested > 0 && requested < requestTimeoutMs ? requested : requestTimeoutMs;
}
