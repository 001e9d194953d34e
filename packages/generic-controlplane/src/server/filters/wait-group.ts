import type { ServerResponse } from "node:http";
import type { RequestFilter } from "./chain.js";
import { isLongRunning } from "./long-running.js";

/** The requests graceful shutdown waits for: every one that is not long-running, until its response closes. */
export class NonLongRunningRequests {
  readonly #open = new Set<ServerResponse>();
  #drained: (() => void) | undefined;

  get size(): number {
    return this.#open.size;
  }

  track(res: ServerResponse): void {
    if (this.#open.has(res)) return;
    this.#open.add(res);
    res.once("close", () => {
      this.#open.delete(res);
      if (this.#open.size === 0) this.#drained?.();
    });
  }

  /** Resolves once every tracked response closed, or after `timeoutMs`, whichever comes first. */
  async drained(timeoutMs: number): Promise<void> {
    if (this.#open.size === 0) return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, timeoutMs);
      this.#drained = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }
}

/** upstream `WithWaitGroup`: counts the request for the shutdown drain. */
export function withWaitGroup(requests: NonLongRunningRequests): RequestFilter {
  return {
    name: "wait-group",
    handle(ctx, next) {
      if (!isLongRunning(ctx.info)) requests.track(ctx.res);
      return next(ctx);
    },
  };
}
