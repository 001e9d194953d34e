import type { KubeObject } from "../api/types.js";
import type { Logger } from "../server/logger.js";
import { objectKey } from "./cache.js";
import type { KubeClient, ResourceRef } from "./client.js";
import type { EventHandlers, Informer } from "./informer.js";
import { aborted, runWorkers, type Controller, type ControllerContext, type ReconcileResult } from "./runtime.js";
import { WorkQueue, type RateLimiter } from "./workqueue.js";

/** An informer notification a watch can enqueue on. */
export type WatchEventType = "add" | "update" | "delete";

const ALL_EVENTS: readonly WatchEventType[] = ["add", "update", "delete"];

/** What a running controller's reconcile and event handlers work with (one per run: state does not outlive leadership). */
export interface ReconcileContext<State = undefined> {
  readonly context: ControllerContext;
  readonly client: KubeClient;
  readonly logger: Logger;
  /** Aborts when the controller stops (shutdown, or leadership lost). */
  readonly signal: AbortSignal;
  readonly queue: WorkQueue;
  /** The primary resource's informer: its cache is where reconcile reads the object of a key. */
  readonly primary: Informer;
  /** What `withState` made for this run. */
  readonly state: State;
  /** The shared informer of a resource (one of the watched ones, or any other). */
  readonly informer: (resource: ResourceRef) => Informer;
  /** Runs when the controller stops, before the queue drains (timers, extra watches). */
  readonly onStop: (cleanup: () => void | Promise<void>) => void;
}

/** Reconciles one key: a result asks for a requeue; a throw requeues rate limited. */
export type Reconcile<State> = (key: string, ctx: ReconcileContext<State>) => Promise<void | ReconcileResult> | void | ReconcileResult;

/** The keys an object of a watched resource stands for. */
export type MapFn<State> = (object: KubeObject, ctx: ReconcileContext<State>) => string | Iterable<string> | undefined;

export interface WatchOptions {
  /** Which notifications enqueue (default all three). */
  on?: readonly WatchEventType[];
}

export interface ForOptions<State = undefined> extends WatchOptions {
  /** The primary's kind, which `owns` matches controller references against (default the resource's `kind`). */
  kind?: string;
  /**
   * The primary's own handlers instead of enqueueing its key: for filtering or delaying
   * (`ctx.queue.addAfter`) as a controller needs.
   */
  handlers?: (ctx: ReconcileContext<State>) => EventHandlers;
}

export interface BuilderOptions {
  /** Concurrent reconciles (default 1; one key is never reconciled twice at once). */
  workers?: number;
  /** Backoff of keys whose reconcile threw or asked `requeue` (default client-go's `DefaultControllerRateLimiter`). */
  rateLimiter?: RateLimiter;
  /** Names the work queue in `workqueue_*` metrics and logs (default the controller's name). */
  queueName?: string;
  /** Start reconciling only once every watched cache has its first list (default true, as upstream's `WaitForCacheSync`). */
  waitForCacheSync?: boolean;
}

interface Watch<State> {
  resource: ResourceRef;
  handlers(ctx: ReconcileContext<State>): EventHandlers;
}

/** Handlers that hand each key `map` yields for an object to `add`, on the notifications in `on`. */
function mapping<State>(
  map: MapFn<State>,
  on: readonly WatchEventType[],
  mapOld: boolean,
): (ctx: ReconcileContext<State>) => EventHandlers {
  return (ctx) => {
    const enqueue = (object: KubeObject) => {
      const keys = map(object, ctx);
      if (keys === undefined) return;
      if (typeof keys === "string") ctx.queue.add(keys);
      else for (const key of keys) ctx.queue.add(key);
    };
    return {
      ...(on.includes("add") ? { add: (object: KubeObject) => enqueue(object) } : {}),
      ...(on.includes("update")
        ? {
            update: (old: KubeObject, object: KubeObject) => {
              enqueue(object);
              if (mapOld) {
                const before = map(old, ctx);
                const after = map(object, ctx);
                if (typeof before === "string" && before !== after) ctx.queue.add(before);
              }
            },
          }
        : {}),
      ...(on.includes("delete") ? { delete: (object: KubeObject) => enqueue(object) } : {}),
    };
  };
}

function groupOf(apiVersion: string | undefined): string {
  const slash = (apiVersion ?? "").indexOf("/");
  return slash < 0 ? "" : apiVersion!.slice(0, slash);
}

/**
 * The key of an object's controlling owner when it is of `group` and `kind` (controller-runtime's
 * `EnqueueRequestForOwner` with `OnlyControllerOwner`): owners are in the object's namespace.
 */
export function controllerOwnerKey(object: KubeObject, group: string, kind: string): string | undefined {
  const ref = object.metadata?.ownerReferences?.find((r) => r.controller === true);
  if (ref === undefined || ref.kind !== kind || groupOf(ref.apiVersion) !== group) return undefined;
  const namespace = object.metadata?.namespace;
  return namespace ? `${namespace}/${ref.name}` : ref.name;
}

/**
 * Builds a controller the way controller-runtime's builder does: the primary resource
 * (`controllerFor`), resources it `owns` (an event enqueues the controlling owner), others it
 * `watches` (an event enqueues what a map function says), then `complete(reconcile)`. The
 * controller it makes keeps one work queue (with `workqueue_*` metrics), starts the informers,
 * waits for their caches, runs the workers until the manager stops it or loses leadership, and
 * drains the queue before it returns.
 */
export class ControllerBuilder<State = undefined> {
  readonly #primary: ResourceRef;
  readonly #kind: string | undefined;
  readonly #watches: Array<Watch<State>> = [];
  #name: string;
  #options: BuilderOptions = {};
  #init: ((ctx: ReconcileContext<undefined>) => State) | undefined;

  constructor(primary: ResourceRef & { kind?: string }, options: ForOptions<State> = {}) {
    this.#primary = primary;
    this.#kind = options.kind ?? primary.kind;
    this.#name = primary.resource;
    const handlers = options.handlers ?? mapping<State>((object) => objectKey(object), options.on ?? ALL_EVENTS, false);
    this.#watches.push({ resource: primary, handlers });
  }

  /** The name `--controllers` selects the controller by (default the primary's resource). */
  named(name: string): this {
    this.#name = name;
    return this;
  }

  /** Objects of `resource` controlled by a primary (a `controller: true` owner reference of its group and kind) enqueue that primary, and their former one when it changed. */
  owns(resource: ResourceRef, options: WatchOptions = {}): this {
    const kind = this.#kind;
    if (kind === undefined) throw new Error(`controllerFor(${this.#primary.resource}) needs its kind to own ${resource.resource}`);
    const group = this.#primary.group;
    this.#watches.push({
      resource,
      handlers: mapping<State>((object) => controllerOwnerKey(object, group, kind), options.on ?? ALL_EVENTS, true),
    });
    return this;
  }

  /**
   * Objects of `resource` enqueue the keys `map` gives (on an update, of the new object), or, given
   * `{ handlers }`, do what those handlers do with `ctx.queue`.
   */
  watches(
    resource: ResourceRef,
    map: MapFn<State> | { handlers: (ctx: ReconcileContext<State>) => EventHandlers },
    options: WatchOptions = {},
  ): this {
    const handlers = typeof map === "function" ? mapping(map, options.on ?? ALL_EVENTS, false) : map.handlers;
    this.#watches.push({ resource, handlers });
    return this;
  }

  /** State made afresh on every run (expectations, timers), before any handler sees an event. */
  withState<Next>(init: (ctx: ReconcileContext<undefined>) => Next): ControllerBuilder<Next> {
    const next = this as unknown as ControllerBuilder<Next>;
    next.#init = init;
    return next;
  }

  withOptions(options: BuilderOptions): this {
    this.#options = { ...this.#options, ...options };
    return this;
  }

  /** The controller, reconciling each key with `reconcile`. */
  complete(reconcile: Reconcile<State>): Controller {
    const name = this.#name;
    const primary = this.#primary;
    const watches = [...this.#watches];
    const options = { ...this.#options };
    const init = this.#init;
    return {
      name,
      async run(context: ControllerContext, signal: AbortSignal) {
        const queue = new WorkQueue({
          name: options.queueName ?? name,
          ...(options.rateLimiter !== undefined ? { rateLimiter: options.rateLimiter } : {}),
          ...(context.registry !== undefined ? { registry: context.registry } : {}),
        });
        const cleanups: Array<() => void | Promise<void>> = [];
        const base: ReconcileContext<undefined> = {
          context,
          client: context.client,
          logger: context.logger,
          signal,
          queue,
          primary: context.informers.informerFor(primary),
          state: undefined,
          informer: (resource) => context.informers.informerFor(resource),
          onStop: (cleanup) => cleanups.push(cleanup),
        };
        const ctx = { ...base, state: init === undefined ? undefined : init(base) } as ReconcileContext<State>;
        const informers = new Set<Informer>();
        for (const watch of watches) {
          const informer = context.informers.informerFor(watch.resource);
          informer.addEventHandler(watch.handlers(ctx));
          informers.add(informer);
        }
        for (const informer of informers) informer.start();
        if (options.waitForCacheSync !== false)
          await Promise.race([Promise.all([...informers].map((i) => i.waitForSync())), aborted(signal)]);
        const workers = runWorkers(queue, options.workers ?? 1, async (key) => reconcile(key, ctx), context.logger);
        await aborted(signal);
        for (const cleanup of cleanups) await cleanup();
        await queue.shutDownWithDrain();
        await workers;
      },
    };
  }
}

/** A controller of `resource` (controller-runtime's `NewControllerManagedBy(mgr).For(...)`). */
export function controllerFor<State = undefined>(
  resource: ResourceRef & { kind?: string },
  options: ForOptions<State> = {},
): ControllerBuilder<State> {
  return new ControllerBuilder<State>(resource, options);
}
