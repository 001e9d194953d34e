import type { RequestInfo } from "../request-info.js";

/** Upstream's list work estimator constants: one seat per 100 objects, between 1 and 10 seats. */
export const OBJECTS_PER_SEAT = 100;
export const MIN_SEATS = 1;
export const MAX_SEATS = 10;

/**
 * Seats a request occupies, after k8s.io/apiserver's `WorkEstimator`: a LIST (and a watch's
 * initial listing) costs one seat per 100 objects it has to read — every stored object when it
 * filters by selector, else twice the page (`limit`) — clamped to 1..10; anything else one seat.
 * `storedObjects` is how many objects the resource holds (undefined: unknown, one seat).
 */
export function estimateSeats(info: RequestInfo, query: URLSearchParams, storedObjects: number | undefined): number {
  if (!info.isResourceRequest || storedObjects === undefined) return MIN_SEATS;
  const initialWatch =
    info.verb === "watch" &&
    (query.get("sendInitialEvents") === "true" || !query.get("resourceVersion") || query.get("resourceVersion") === "0");
  if (info.verb !== "list" && !initialWatch) return MIN_SEATS;
  const limitParam = Number(query.get("limit") ?? "0");
  const limit = Number.isInteger(limitParam) && limitParam > 0 && limitParam < storedObjects ? limitParam : storedObjects;
  const filtered = Boolean(query.get("labelSelector")) || Boolean(query.get("fieldSelector"));
  const objects = filtered || info.verb === "watch" ? storedObjects : 2 * limit;
  return Math.min(MAX_SEATS, Math.max(MIN_SEATS, Math.ceil(objects / OBJECTS_PER_SEAT)));
}
