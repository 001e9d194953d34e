import type { Admission, PriorityAndFairness } from "../flowcontrol/priority-and-fairness.js";
import type { RequestContext } from "../context.js";
import { estimateSeats } from "../flowcontrol/work-estimate.js";
import type { Next, RequestFilter } from "./chain.js";
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
  const admitAndServe = (ctx: RequestContext, next: Next, stored: number | undefined): Promise<void> => {
    const { res } = ctx;
    const info = ctx.info!;
    // Only a request that has to queue gets a signal for its client going away.
    let queued: AbortController | undefined;
    const abort = (): void => queued?.abort();
    const cancellation = (): AbortSignal => {
      queued = new AbortController();
      if (res.closed) queued.abort();
      else res.once("close", abort);
      return queued.signal;
    };
    const admitted = flowControl.admit(ctx.user, info, ctx.method, ctx.path, {
      cancellation,
      seats: estimateSeats(info, ctx.query, stored),
      onClassified: ({ flowSchema, priorityLevel }) => {
        res.setHeader("X-Kubernetes-PF-FlowSchema-UID", flowSchema.metadata.uid);
        res.setHeader("X-Kubernetes-PF-PriorityLevel-UID", priorityLevel.metadata.uid);
      },
    });
    const serve = (admission: Admission): Promise<void> => {
      if (queued !== undefined) res.off("close", abort);
      if (res.destroyed) {
        admission.release();
        return next(ctx);
      }
      const release = (): void => admission.release();
      res.once("close", release);
      if (isLongRunning(info)) ctx.watchInitialized = release;
      return next(ctx);
    };
    if (admitted instanceof Promise) {
      return admitted.then(serve, (error: unknown) => {
        if (queued !== undefined) res.off("close", abort);
        throw error;
      });
    }
    return serve(admitted);
  };
  return {
    name: "priority-and-fairness",
    handle(ctx, next) {
      const info = ctx.info!;
      // Only a LIST or a watch's initial listing is charged by collection size.
      const sized = info.isResourceRequest && (info.verb === "list" || info.verb === "watch");
      if (sized && options.storedObjects)
        return options.storedObjects(info.group, info.resource).then((stored) => admitAndServe(ctx, next, stored));
      return admitAndServe(ctx, next, undefined);
    },
  };
}
