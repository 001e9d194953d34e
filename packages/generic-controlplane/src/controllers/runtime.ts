import { randomBytes } from "node:crypto";
import type { Registry } from "prom-client";
import type { KubeObject } from "../api/types.js";
import type { Logger } from "../server/logger.js";
import { PATCH_MERGE, isNotFound, type KubeClient, type ResourceRef } from "./client.js";
import { EventCorrelator, type CorrelatedEvent, type EventCorrelatorOptions } from "./event-correlator.js";
import { ResourceMapper } from "./discovery.js";
import { Informer, type InformerOptions } from "./informer.js";
import type { WorkQueue } from "./workqueue.js";

/**
 * One informer per resource type, shared by every controller that asks (client-go's
 * `SharedInformerFactory`): one list+watch and one cache per type however many controllers use it.
 */
export class SharedInformerFactory {
  readonly #informers = new Map<string, Informer>();
  #started = false;

  constructor(
    private readonly client: KubeClient,
    private readonly defaults: InformerOptions = {},
  ) {}

  /** The informer of `ref` (all namespaces), created on first use; started if the factory is. */
  informerFor(ref: ResourceRef): Informer {
    const key = `${ref.group}/${ref.version}/${ref.resource}`;
    let informer = this.#informers.get(key);
    if (informer === undefined) {
      informer = new Informer(this.client, ref, this.defaults);
      this.#informers.set(key, informer);
      if (this.#started) informer.start();
    }
    return informer;
  }

  /** Starts every informer, and those created later. */
  start(): void {
    this.#started = true;
    for (const informer of this.#informers.values()) informer.start();
  }

  /** Stops one type's informer (its resource stopped being served). */
  async remove(ref: ResourceRef): Promise<void> {
    const key = `${ref.group}/${ref.version}/${ref.resource}`;
    const informer = this.#informers.get(key);
    this.#informers.delete(key);
    await informer?.stop();
  }

  async stop(): Promise<void> {
    this.#started = false;
    await Promise.all([...this.#informers.values()].map((i) => i.stop()));
  }
}

export interface InvolvedObject {
  apiVersion?: string;
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
}

export interface EventRecorderOptions {
  /**
   * Count repeats on the Event written first and fold many similar ones into one, as client-go's
   * recorder does (see `EventCorrelator`); default off: every call writes a new Event.
   */
  correlate?: boolean | EventCorrelatorOptions;
}

const EVENTS: ResourceRef = { group: "", version: "v1", resource: "events", namespaced: true };

/** Events a recorder holds unwritten at most (client-go's `maxQueuedEvents`); it drops any more. */
export const MAX_QUEUED_EVENTS = 1000;

/** A new core/v1 Event, stamped now (when it happened, not when it is written). */
function newEvent(component: string, involved: InvolvedObject, type: "Normal" | "Warning", reason: string, message: string) {
  // Events about cluster-scoped objects go to "default", as client-go's recorder does.
  const namespace = involved.namespace || "default";
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
  return {
    apiVersion: "v1",
    kind: "Event",
    metadata: { name: `${involved.name ?? "unknown"}.${Date.now().toString(16)}${randomBytes(2).toString("hex")}`, namespace },
    involvedObject: { ...involved },
    reason,
    message,
    type,
    source: { component },
    firstTimestamp: now,
    lastTimestamp: now,
    count: 1,
    reportingComponent: component,
    reportingInstance: "",
  };
}

type NewEvent = ReturnType<typeof newEvent>;

interface QueuedEvent {
  event: NewEvent;
  resolve: () => void;
}

/**
 * Writes core/v1 Events about objects (client-go's `EventRecorder`), best effort. As client-go's
 * broadcaster hands events to its sink, one write is in flight at a time and at most
 * `MAX_QUEUED_EVENTS` wait behind it; events beyond that are dropped with a warning. An API server
 * slowed down by load then meets one event stream per recorder, not a request (and a connection)
 * per event.
 */
export class EventRecorder {
  readonly #correlator: EventCorrelator | undefined;
  readonly #queue: QueuedEvent[] = [];
  #writing = false;

  constructor(
    private readonly client: KubeClient,
    private readonly component: string,
    private readonly logger?: Logger,
    options: EventRecorderOptions = {},
  ) {
    if (options.correlate !== undefined && options.correlate !== false)
      this.#correlator = new EventCorrelator(options.correlate === true ? {} : options.correlate);
  }

  /** Queues an Event; the promise settles once it is written, refused or dropped (never rejects). */
  event(involved: InvolvedObject, type: "Normal" | "Warning", reason: string, message: string): Promise<void> {
    const event = newEvent(this.component, involved, type, reason, message);
    if (this.#queue.length >= MAX_QUEUED_EVENTS) {
      this.logger?.({ level: "warn", msg: "event queue full, event dropped", reason, queued: MAX_QUEUED_EVENTS });
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      this.#queue.push({ event, resolve });
      if (!this.#writing) void this.#writeQueued();
    });
  }

  async #writeQueued(): Promise<void> {
    this.#writing = true;
    try {
      for (let next = this.#queue.shift(); next !== undefined; next = this.#queue.shift()) {
        await this.#write(next.event);
        next.resolve();
      }
    } finally {
      this.#writing = false;
    }
  }

  async #write(event: NewEvent): Promise<void> {
    const namespace = event.metadata.namespace;
    const { reason } = event;
    try {
      if (this.#correlator === undefined) {
        await this.client.create(EVENTS, namespace, event);
        return;
      }
      const { event: correlated, patch } = this.#correlator.correlate(event);
      let stored: KubeObject | undefined;
      if (patch !== undefined) {
        try {
          stored = await this.client.patch(EVENTS, namespace, correlated.metadata.name, patch, PATCH_MERGE);
        } catch (error) {
          // Deleted meanwhile (e.g. its TTL ran out): written anew, as client-go does.
          if (!isNotFound(error)) throw error;
        }
      }
      if (stored === undefined) {
        const { resourceVersion: _resourceVersion, ...metadata }: CorrelatedEvent["metadata"] = correlated.metadata;
        stored = await this.client.create(EVENTS, namespace, { ...correlated, metadata });
      }
      this.#correlator.observe(stored as unknown as CorrelatedEvent);
    } catch (error) {
      this.logger?.({ level: "warn", msg: "could not write event", reason, error: String(error) });
    }
  }
}

/** What a controller gets to run with. */
export interface ControllerContext {
  client: KubeClient;
  informers: SharedInformerFactory;
  mapper: ResourceMapper;
  /** Where `workqueue_*` metrics go. */
  registry?: Registry;
  logger: Logger;
  events(component: string): EventRecorder;
  /** How often controllers re-read discovery to notice resource types added or removed (default 30 s, as upstream). */
  discoveryPeriodMs: number;
  /** The informer options of `informers`, for controllers that keep informers of their own (e.g. metadata-only ones). */
  informerOptions: InformerOptions;
}

export function createControllerContext(
  client: KubeClient,
  options: { registry?: Registry; logger?: Logger; discoveryPeriodMs?: number; informer?: InformerOptions } = {},
): ControllerContext {
  const logger = options.logger ?? (() => undefined);
  const informerOptions: InformerOptions = { logger, ...options.informer };
  return {
    client,
    informers: new SharedInformerFactory(client, informerOptions),
    informerOptions,
    mapper: new ResourceMapper(client),
    ...(options.registry !== undefined ? { registry: options.registry } : {}),
    logger,
    events: (component) => new EventRecorder(client, component, logger),
    discoveryPeriodMs: options.discoveryPeriodMs ?? 30_000,
  };
}

/** A reconcile result: retry after a delay without counting a failure. */
export interface Requeue {
  requeueAfterMs: number;
}

/**
 * What a reconcile asks of the queue (controller-runtime's `reconcile.Result`): `requeueAfterMs`
 * re-adds the key after that delay without counting a failure; `requeue` alone re-adds it rate
 * limited, as a failure would but without logging one.
 */
export interface ReconcileResult {
  requeue?: boolean;
  requeueAfterMs?: number;
}

/**
 * Runs `workers` loops taking keys from `queue` and reconciling them until the queue shuts
 * down: success forgets the key's backoff; a thrown error re-adds it rate limited; a result
 * re-adds it as `ReconcileResult` says.
 */
export async function runWorkers(
  queue: WorkQueue,
  workers: number,
  reconcile: (key: string) => Promise<void | ReconcileResult>,
  logger?: Logger,
): Promise<void> {
  const worker = async () => {
    for (;;) {
      const key = await queue.get();
      if (key === undefined) return;
      try {
        const result = await reconcile(key);
        if (result?.requeueAfterMs === undefined && result?.requeue === true) {
          queue.addRateLimited(key);
          continue;
        }
        queue.forget(key);
        if (result?.requeueAfterMs !== undefined) queue.addAfter(key, result.requeueAfterMs);
      } catch (error) {
        logger?.({
          level: "warn",
          msg: "reconcile failed, requeuing",
          queue: queue.name,
          key,
          retries: queue.numRequeues(key),
          error: error instanceof Error ? error.message : String(error),
        });
        queue.addRateLimited(key);
      } finally {
        queue.done(key);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, workers) }, worker));
}

/** A controller the manager can run: `run` works until `signal` aborts, then resolves once stopped. */
export interface Controller {
  /** The name `--controllers` selects it by (e.g. `namespace`, `garbagecollector`). */
  readonly name: string;
  run(context: ControllerContext, signal: AbortSignal): Promise<void>;
}

/** Resolves when `signal` aborts. */
export function aborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}
