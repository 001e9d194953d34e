import type { KubeObject } from "../../api/types.js";
import { isConflict, isNotFound, type ResourceRef } from "../client.js";
import { splitKey, objectKey } from "../cache.js";
import { controllerFor } from "../builder.js";
import type { Controller } from "../runtime.js";

export const EVENTS: ResourceRef = { group: "", version: "v1", resource: "events", namespaced: true };

export interface EventTTLControllerOptions {
  /** How long an event lives after its last write (default 1 h, kube-apiserver's `--event-ttl`). */
  ttlMs?: number;
  workers?: number;
}

/** The last time an event was written, as far as the object tells: its newest timestamp. */
export function lastWriteOf(event: KubeObject): number {
  const times: Array<unknown> = [
    event.metadata?.creationTimestamp,
    event["lastTimestamp"],
    event["eventTime"],
    (event["series"] as { lastObservedTime?: unknown } | undefined)?.lastObservedTime,
    ...(event.metadata?.managedFields ?? []).map((entry) => entry.time),
  ];
  let latest = 0;
  for (const time of times) {
    if (typeof time !== "string" || time === "") continue;
    const ms = Date.parse(time);
    if (Number.isFinite(ms) && ms > latest) latest = ms;
  }
  return latest;
}

/**
 * Deletes core/v1 Events (and so events.k8s.io/v1 ones, the same objects) a TTL after their last
 * write. kube-apiserver does this with an etcd lease per write (`--event-ttl`, 1 h); a store
 * without leases gets the same lifetime from this controller. A write after the TTL was
 * computed wins: deletion is conditional on the resourceVersion it judged.
 */
export function eventTTLController(options: EventTTLControllerOptions = {}): Controller {
  const ttl = options.ttlMs ?? 3_600_000;
  return controllerFor(EVENTS, {
    handlers: ({ queue }) => {
      const schedule = (event: KubeObject) => queue.addAfter(objectKey(event), lastWriteOf(event) + ttl - Date.now());
      return { add: schedule, update: (_old, event) => schedule(event) };
    },
  })
    .named("eventttl")
    .withOptions({ workers: options.workers ?? 2 })
    .complete(async (key, { primary, client }) => {
      const event = primary.cache.get(key);
      if (event === undefined) return;
      const remaining = lastWriteOf(event) + ttl - Date.now();
      if (remaining > 0) return { requeueAfterMs: remaining };
      const { namespace, name } = splitKey(key);
      try {
        await client.delete(EVENTS, namespace, name, { preconditions: { resourceVersion: event.metadata?.resourceVersion ?? "" } });
      } catch (error) {
        // Gone already, or written again since (its update reschedules it).
        if (isNotFound(error) || isConflict(error)) return;
        throw error;
      }
    });
}
