import type { RequestInfo } from "../request-info.js";

const READ_VERBS = new Set(["get", "list", "watch"]);

/**
 * kube-apiserver's `LongRunningFunc`: requests that stream for as long as the client wants (here,
 * watches) hold no in-flight seat once started and are not waited for at shutdown.
 */
export function isLongRunning(info: RequestInfo | undefined): boolean {
  return info !== undefined && info.isResourceRequest && info.verb === "watch";
}

/** Resource requests that write: they count against the mutating in-flight limit and have a body. */
export function isMutating(info: RequestInfo | undefined): boolean {
  return info !== undefined && info.isResourceRequest && !READ_VERBS.has(info.verb);
}
