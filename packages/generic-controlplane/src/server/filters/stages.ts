import type { RequestContext } from "../context.js";
import type { RequestFilter } from "./chain.js";

/**
 * A stage of the handler chain, run in order for every request after authorization and before it
 * is dispatched. A stage that answers the request itself (e.g. 401) returns true; one that throws a
 * ControlPlaneError answers its Status.
 */
export interface HandlerStage {
  name: string;
  handle(ctx: RequestContext): Promise<boolean | void> | boolean | void;
}

/** Runs the configured stages; the first that answers the request ends the chain. */
export function withStages(stages: readonly HandlerStage[]): RequestFilter {
  return {
    name: "stages",
    async handle(ctx, next) {
      for (const stage of stages) {
        if ((await stage.handle(ctx)) === true) return;
      }
      await next();
    },
  };
}
