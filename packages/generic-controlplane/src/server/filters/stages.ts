import type { RequestContext } from "../context.js";
import type { Next, RequestFilter } from "./chain.js";

/**
 * A stage of the handler chain, run in order for every request after authorization and before it
 * is dispatched. A stage that answers the request itself (e.g. 401) returns true; one that throws a
 * ControlPlaneError answers its Status. A stage that does not apply to a request should say so
 * without a promise: every request passes every stage.
 */
export interface HandlerStage {
  name: string;
  handle(ctx: RequestContext): Promise<boolean | void> | boolean | void;
}

/** Runs the configured stages; the first that answers the request ends the chain. */
export function withStages(stages: readonly HandlerStage[]): RequestFilter {
  const runFrom = (index: number, ctx: RequestContext, next: Next): Promise<void> => {
    for (let i = index; i < stages.length; i++) {
      const answered = (stages[i] as HandlerStage).handle(ctx);
      if (answered instanceof Promise) return answered.then((done) => (done === true ? undefined : runFrom(i + 1, ctx, next)));
      if (answered === true) return Promise.resolve();
    }
    return next(ctx);
  };
  return {
    name: "stages",
    handle: (ctx, next) => runFrom(0, ctx, next),
  };
}
