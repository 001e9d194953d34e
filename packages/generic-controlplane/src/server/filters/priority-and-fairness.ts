import type { PriorityAndFairness } from "../flowcontrol/priority-and-fairness.js";
import { estimateSeats } from "../flowcontrol/work-estimate.js";
import type { RequestFilter } from "./chain.js";
import { isLongRunning } from "./long-running.js";

export interface PriorityAndFairnessFilterOptions {
  /** How many objects a resource holds, for the work estimate of a LIST or a watch's initial listing. */
  storedObjects?: ((group: string, resource: string) => Promise<number | undefined>) | undefined;
}

/**
 * upstream `WithPriorityAndFairness`: waits for a seat in the request's priority level and holds it
 * until the response closes (a watch: until it is initialized). Answers the `X-Kubernetes-PF-*`
 * headers, rejections included.
 */
export function withPriorityAndFairness(flowControl: PriorityAndFairness, options: PriorityAndFairnessFilterOptions): RequestFilter {
  return {
    name: "priority-and-fairness",
    async handle(ctx, next) {
      const { res } = ctx;
      const info = ctx.info!;
      const cancelled = new AbortController();
      const onClose = (): void => cancelled.abort();
      res.once("close", onClose);
      // Only a LIST or a watch's initial listing is charged by collection size.
      const sized = info.isResourceRequest && (info.verb === "list" || info.verb === "watch");
      const stored = sized && options.storedObjects ? await options.storedObjects(info.group, info.resource) : undefined;
      const admission = await flowControl.admit(ctx.user, info, ctx.method, ctx.path, {
        cancelled: cancelled.signal,
        seats: estimateSeats(info, ctx.query, stored),
        onClassified: ({ flowSchema, priorityLevel }) => {
          res.setHeader("X-Kubernetes-PF-FlowSchema-UID", flowSchema.metadata.uid);
          res.setHeader("X-Kubernetes-PF-PriorityLevel-UID", priorityLevel.metadata.uid);
        },
      });
      res.off("close", onClose);
      if (res.destroyed) {
        admission.release();
        return next();
      }
      const release = (): void => admission.release();
      res.once("close", release);
      if (isLongRunning(info)) ctx.watchInitialized = release;
      await next();
    },
  };
}
