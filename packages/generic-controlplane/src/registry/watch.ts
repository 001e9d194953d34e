import type { KubeObject, WatchEvent, WatchEventType } from "../api/types.js";
import { tooLargeResourceVersion } from "../api/errors/index.js";
import type { KeyValue, ListResult, Storage, StorageEvent, StorageWatch } from "../storage/types.js";
import type { ResourceDefinition } from "./rest/resource-definition.js";
import { parseResourceVersion, validateWatchRequest } from "./request-validation.js";
import { buildMatcher, type Matcher } from "./selection.js";
import { LIST_PAGE_SIZE } from "./list.js";
import type { ResourceWatch, WatchFlowControl, WatchRequest } from "./types.js";
import { cloneJson } from "../patch/json-value.js";
import type { LruCache } from "./lru-cache.js";

export interface WatchContext {
  definition: ResourceDefinition;
  storage: Storage;
  apiVersion: string;
  /** Decoded stored value; shared, never mutated. */
  decode(kv: KeyValue): KubeObject;
  /** Watch events already built for a storage event, shared by all watchers of the store. */
  eventCache: Pick<LruCache<object, Map<string, WatchEvent>>, "get" | "set">;
  bookmarkIntervalMs: number;
}

export const INITIAL_EVENTS_END_ANNOTATION = "k8s.io/initial-events-end";

/**
 * WATCH with kube-apiserver semantics:
 * - resourceVersion unset or `"0"`: ADDED for every current object, then changes;
 * - a revision: only changes after it (410 Expired when compacted away);
 * - `sendInitialEvents` (WatchList): the initial ADDEDs end with a BOOKMARK annotated
 *   `k8s.io/initial-events-end: "true"`; `false` starts at the current state with no ADDEDs;
 * - selectors: an object that starts matching arrives as ADDED, one that stops as DELETED;
 * - initial events and replayed history are read a page at a time, each page after `flow` said
 *   the consumer is ready, so neither is ever held in memory whole;
 * - `allowWatchBookmarks`: periodic BOOKMARKs carrying the latest revision seen.
 * Event objects are shared between watchers and must not be mutated.
 */
export async function startWatch(
  ctx: WatchContext,
  prefix: string,
  request: WatchRequest,
  onEvent: (event: WatchEvent) => void,
  onClose?: (error?: Error) => void,
  flow?: WatchFlowControl,
): Promise<ResourceWatch> {
  validateWatchRequest(request);
  const matcher = buildMatcher(ctx.definition, request.labelSelector, request.fieldSelector);
  const rv = request.resourceVersion ?? "";
  const requested = rv === "" ? 0 : parseResourceVersion(rv);
  const sendInitial = request.sendInitialEvents ?? requested === 0;
  const bookmarks = request.allowWatchBookmarks === true;

  let startRevision: number;
  let firstPage: ListResult | undefined;
  if (sendInitial) {
    // The first page fixes the revision; the rest of the initial state is read at it, page by page.
    // resourceVersion "0" (or a NotOlderThan revision) takes any state that new, as upstream's
    // watch cache answers it; unset reads the current one.
    firstPage = await ctx.storage.list(prefix, {
      limit: LIST_PAGE_SIZE,
      countRemaining: false,
      ...(rv === "" ? {} : { minRevision: requested }),
    });
    if (firstPage.revision < requested) throw tooLargeResourceVersion(requested, firstPage.revision);
    startRevision = firstPage.revision;
  } else {
    const current = await ctx.storage.currentRevision();
    // A revision the store has not reached (e.g. a client of a server that lost its data) would
    // otherwise wait silently; upstream answers it with ResourceVersionTooLarge so the client relists.
    if (requested > current) throw tooLargeResourceVersion(requested, current);
    startRevision = requested === 0 ? current : requested;
  }

  let stopped = false;
  let ready = false;
  let lastRevision = startRevision;
  let buffered: StorageEvent[] = [];
  let timer: NodeJS.Timeout | undefined;
  let preDeadline: NodeJS.Timeout | undefined;
  const handle: { storage?: StorageWatch } = {};

  const bookmark = (annotations?: Record<string, string>): WatchEvent => ({
    type: "BOOKMARK",
    object: {
      kind: ctx.definition.kind,
      apiVersion: ctx.apiVersion,
      metadata: annotations ? { resourceVersion: String(lastRevision), annotations } : { resourceVersion: String(lastRevision) },
    },
  });

  const emit = (event: WatchEvent): void => {
    if (stopped) return;
    try {
      onEvent(event);
    } catch (error) {
      // A failing consumer ends its own watch, never the fan-out to the others.
      stop();
      onClose?.(error instanceof Error ? error : new Error(String(error)));
    }
  };

  const process = (events: StorageEvent[]): void => {
    for (const event of events) {
      if (stopped) return;
      lastRevision = Math.max(lastRevision, event.kv.modRevision);
      const converted = convert(ctx, event, matcher);
      if (converted !== undefined) emit(converted);
    }
  };

  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    if (timer !== undefined) clearInterval(timer);
    if (preDeadline !== undefined) clearTimeout(preDeadline);
    handle.storage?.stop();
    buffered = [];
  };

  const fail = (error: Error): void => {
    if (stopped) return;
    stop();
    onClose?.(error);
  };

  const storageWatch: StorageWatch = await ctx.storage.watch(prefix, {
    afterRevision: startRevision,
    onEvents: (events) => {
      if (stopped) return;
      if (!ready) buffered.push(...events);
      else process(events);
    },
    onError: fail,
    ...(flow ? { whenReady: () => flow.whenReady() } : {}),
  });

  handle.storage = storageWatch;
  if (stopped) storageWatch.stop();

  /** ADDED for each object of the initial state, a page at a time at `startRevision`. */
  const sendInitialEvents = async (): Promise<void> => {
    let page = firstPage;
    while (page !== undefined && !stopped) {
      for (const kv of page.items) {
        const object = ctx.decode(kv);
        if (matcher.matches(object)) emit({ type: "ADDED", object });
      }
      if (page.remaining === 0 || page.items.length === 0) return;
      await flow?.whenReady();
      await new Promise((resolve) => setImmediate(resolve));
      if (stopped) return;
      const after = page.items[page.items.length - 1]!.key;
      page = await ctx.storage.list(prefix, { limit: LIST_PAGE_SIZE, countRemaining: false, startAfter: after, revision: startRevision });
    }
  };

  // Initial events go out after watch() resolved, ahead of any live event.
  setImmediate(() => {
    sendInitialEvents().then(
      () => {
        if (stopped) return;
        if (bookmarks && request.sendInitialEvents === true) emit(bookmark({ [INITIAL_EVENTS_END_ANNOTATION]: "true" }));
        ready = true;
        const pending = buffered;
        buffered = [];
        process(pending);
        if (bookmarks && !stopped) {
          const interval = request.bookmarkIntervalMs ?? ctx.bookmarkIntervalMs;
          timer = setInterval(() => emit(bookmark()), interval);
          timer.unref();
          // Upstream's cacher also sends one 2 s before the watch's deadline (besides the periodic ones).
          const pre = request.deadline === undefined ? -1 : request.deadline - PRE_DEADLINE_BOOKMARK_MS - Date.now();
          // Beyond Node's timer range (~24.8 days) setTimeout would fire at once; such a watch
          // gets the periodic bookmarks only.
          if (pre >= 0 && pre <= MAX_TIMER_MS) {
            preDeadline = setTimeout(() => emit(bookmark()), pre);
            preDeadline.unref();
          }
        }
      },
      (error: unknown) => fail(error instanceof Error ? error : new Error(String(error))),
    );
  });

  return { stop };
}

const MAX_TIMER_MS = 2 ** 31 - 1;

/** The watch event built for `source` under `key`, if a watcher of the store built it already. */
function cachedEvent(ctx: WatchContext, source: object, key: string): WatchEvent | undefined {
  return ctx.eventCache.get(source)?.get(key);
}

function rememberEvent(ctx: WatchContext, source: object, key: string, event: WatchEvent): WatchEvent {
  let byType = ctx.eventCache.get(source);
  if (byType === undefined) {
    byType = new Map();
    ctx.eventCache.set(source, byType);
  }
  byType.set(key, event);
  return event;
}

/** ADDED, MODIFIED or DELETED with the event's own object, built once per storage event. */
function simpleEvent(ctx: WatchContext, event: StorageEvent, type: WatchEventType): WatchEvent {
  return cachedEvent(ctx, event, type) ?? rememberEvent(ctx, event, type, { type, object: ctx.decode(event.kv) });
}

// Runs once per watcher per change, so it allocates nothing when the event was built already.
function convert(ctx: WatchContext, event: StorageEvent, matcher: Matcher): WatchEvent | undefined {
  if (event.type === "delete") {
    if (!matcher.everything && !matcher.matches(ctx.decode(event.kv))) return undefined;
    return simpleEvent(ctx, event, "DELETED");
  }
  const isNew = event.prev === undefined;
  if (matcher.everything) return simpleEvent(ctx, event, isNew ? "ADDED" : "MODIFIED");
  const nowMatches = matcher.matches(ctx.decode(event.kv));
  const matchedBefore = event.prev !== undefined && matcher.matches(ctx.decode(event.prev));
  if (nowMatches) return simpleEvent(ctx, event, matchedBefore ? "MODIFIED" : "ADDED");
  if (!matchedBefore || event.prev === undefined) return undefined;
  // Stopped matching: DELETED with the previous content at this event's revision, like the watch cache.
  const built = cachedEvent(ctx, event, "DELETED-prev");
  if (built !== undefined) return built;
  const object = cloneJson(ctx.decode(event.prev));
  (object.metadata ??= {}).resourceVersion = String(event.kv.modRevision);
  return rememberEvent(ctx, event, "DELETED-prev", { type: "DELETED", object });
}

/** How long before a watch's deadline the last BOOKMARK goes out (upstream cacher's 2 s). */
const PRE_DEADLINE_BOOKMARK_MS = 2_000;
