import type { Registry } from "prom-client";
import type { UserInfo } from "../access-reviews.js";
import type { RequestInfo } from "../request-info.js";
import { distinguisherOf, orderSchemas, schemaMatches } from "./classifier.js";
import { defaultFlowSchemas, defaultPriorityLevels, type FlowSchema, type PriorityLevelConfiguration } from "./defaults.js";
import { FlowControlMetrics, flowSeries, type FlowSeries } from "./metrics.js";
import { FlowControlRejection, QueueSet, type Grant } from "./queue-set.js";
import { dealHand, flowHash } from "./shuffle-sharding.js";

export interface PriorityAndFairnessOptions {
  /** Seats shared by all limited priority levels: kube-apiserver's max-requests-inflight + max-mutating-requests-inflight (600). */
  serverConcurrencyLimit: number;
  flowSchemas?: readonly FlowSchema[];
  priorityLevels?: readonly PriorityLevelConfiguration[];
  /** How long a request may wait in a queue before it is rejected with 429 (upstream: 15 s). */
  queueWaitLimitMs?: number;
  registry?: Registry;
}

/** Where a request was classified, for the `X-Kubernetes-PF-*` headers and the metrics. */
export interface Classification {
  flowSchema: FlowSchema;
  priorityLevel: PriorityLevelConfiguration;
}

interface Level {
  config: PriorityLevelConfiguration;
  /** Undefined for the exempt level. */
  queues: QueueSet | undefined;
  handSize: number;
  deckSize: number;
  /** Seats and queuing, to tell whether a new configuration changes the level. */
  shape: string;
}

const MANDATORY = new Set(["exempt", "catch-all"]);

function withMandatory<T extends { metadata: { name: string } }>(given: readonly T[], defaults: readonly T[]): T[] {
  const names = new Set(given.map((o) => o.metadata.name));
  return [...given, ...defaults.filter((o) => MANDATORY.has(o.metadata.name) && !names.has(o.metadata.name))];
}

/** A seat held by an admitted request; `release` is idempotent. */
export interface Admission extends Classification {
  release(): void;
}

/**
 * API Priority and Fairness (KEP-1040), as kube-apiserver's `WithPriorityAndFairness` filter does it:
 * each request is classified by the first matching FlowSchema into a priority level and a flow
 * (schema + user or namespace); each limited level has its nominal share of the server's seats
 * and fair queues dealt by shuffle sharding; the exempt level is never limited. A request that
 * cannot be queued is rejected with 429 and `Retry-After`.
 */
export class PriorityAndFairness {
  #schemas: FlowSchema[] = [];
  #levels = new Map<string, Level>();
  readonly #metrics: FlowControlMetrics | undefined;
  readonly #serverConcurrencyLimit: number;
  readonly #queueWaitLimitMs: number;

  constructor(options: PriorityAndFairnessOptions) {
    this.#metrics = options.registry ? new FlowControlMetrics(options.registry) : undefined;
    this.#serverConcurrencyLimit = options.serverConcurrencyLimit;
    this.#queueWaitLimitMs = options.queueWaitLimitMs ?? 15_000;
    this.configure(options.flowSchemas ?? defaultFlowSchemas(), options.priorityLevels ?? defaultPriorityLevels());
  }

  /**
   * Applies a new configuration (the FlowSchemas and PriorityLevelConfigurations as stored now).
   * A level whose seats and queuing did not change keeps its queues and the requests in them;
   * requests admitted under a replaced level finish there.
   */
  configure(flowSchemas: readonly FlowSchema[], priorityLevels: readonly PriorityLevelConfiguration[]): void {
    // The mandatory objects are always in force, as upstream re-creates them when deleted.
    flowSchemas = withMandatory(flowSchemas, defaultFlowSchemas());
    priorityLevels = withMandatory(priorityLevels, defaultPriorityLevels());
    this.#schemas = orderSchemas(flowSchemas);
    let totalShares = 0;
    for (const config of priorityLevels) if (config.spec.type === "Limited") totalShares += config.spec.limited.nominalConcurrencyShares;
    const levels = new Map<string, Level>();
    for (const config of priorityLevels) {
      const name = config.metadata.name;
      if (config.spec.type === "Exempt") {
        levels.set(name, { config, queues: undefined, handSize: 0, deckSize: 0, shape: "exempt" });
        this.#metrics?.nominalLimitSeats.set({ priority_level: name }, 0);
        continue;
      }
      const limited = config.spec.limited;
      // Upstream: NominalCL = ceil(ServerCL * shares / sum of shares).
      const nominal = Math.ceil((this.#serverConcurrencyLimit * limited.nominalConcurrencyShares) / Math.max(1, totalShares));
      const queuing =
        limited.limitResponse.type === "Queue" ? limited.limitResponse.queuing : { queues: 0, handSize: 0, queueLengthLimit: 0 };
      const shape = JSON.stringify([nominal, queuing.queues, queuing.handSize, queuing.queueLengthLimit]);
      const previous = this.#levels.get(name);
      levels.set(name, {
        config,
        queues: previous?.shape === shape && previous.queues ? previous.queues : new QueueSet(nominal, queuing, this.#queueWaitLimitMs),
        handSize: queuing.handSize,
        deckSize: queuing.queues,
        shape,
      });
      this.#metrics?.nominalLimitSeats.set({ priority_level: name }, nominal);
    }
    this.#levels = levels;
    this.#series.clear();
  }

  /** The metric label sets of each flow schema (with the level it classified into), built once. */
  readonly #series = new Map<FlowSchema, FlowSeries>();

  #seriesOf(classification: Classification): FlowSeries {
    const level = classification.priorityLevel.metadata.name;
    let series = this.#series.get(classification.flowSchema);
    if (series === undefined || series.labels.priority_level !== level) {
      series = flowSeries(classification.flowSchema.metadata.name, level);
      this.#series.set(classification.flowSchema, series);
    }
    return series;
  }

  // Hands are dealt once per flow and level shape; a bounded cache, dropped when full.
  readonly #hands = new Map<string, number[]>();

  #hand(flowSchema: string, distinguisher: string, level: Level): number[] {
    const key = `${level.deckSize}/${level.handSize}/${flowSchema}/${distinguisher}`;
    let hand = this.#hands.get(key);
    if (hand === undefined) {
      if (this.#hands.size >= 10_000) this.#hands.clear();
      hand = dealHand(flowHash(flowSchema, distinguisher), level.deckSize, level.handSize);
      this.#hands.set(key, hand);
    }
    return hand;
  }

  /** A limited level's nominal seats; undefined for an exempt or unknown level. */
  nominalSeats(priorityLevel: string): number | undefined {
    return this.#levels.get(priorityLevel)?.queues?.concurrencyLimit;
  }

  /** The first FlowSchema (by precedence) that matches, and its priority level. */
  classify(user: UserInfo, info: RequestInfo, method: string, path: string): Classification & { distinguisher: string } {
    for (const schema of this.#schemas) {
      if (!schemaMatches(schema, user, info, method, path)) continue;
      const level = this.#levels.get(schema.spec.priorityLevelConfiguration.name);
      if (level === undefined) continue;
      return { flowSchema: schema, priorityLevel: level.config, distinguisher: distinguisherOf(schema, user, info) };
    }
    // The mandatory catch-all matches everyone; without it, fall back to the lowest level.
    const catchAll = this.#schemas.find((schema) => schema.metadata.name === "catch-all")!;
    return { flowSchema: catchAll, priorityLevel: this.#levels.get("catch-all")!.config, distinguisher: user.name };
  }

  /**
   * Classifies and takes a seat: at once when one is free (no promise then), else after waiting in
   * the level's queues. `onClassified` runs first, so even a rejection carries the flow headers.
   * Throws (or rejects with) a 429 ControlPlaneError when the level's queues are full.
   * `cancellation` gives the signal that ends a queued wait; it is asked for only if the request queues.
   */
  admit(
    user: UserInfo,
    info: RequestInfo,
    method: string,
    path: string,
    options: { onClassified?: (c: Classification) => void; cancellation?: () => AbortSignal; seats?: number } = {},
  ): Admission | Promise<Admission> {
    const classification = this.classify(user, info, method, path);
    options.onClassified?.(classification);
    const series = this.#seriesOf(classification);
    const labels = series.labels;
    const level = this.#levels.get(labels.priority_level)!;
    const metrics = this.#metrics;
    if (level.queues === undefined) {
      metrics?.countDispatched(series);
      return { ...classification, release: () => undefined };
    }
    const seats = options.seats ?? 1;
    metrics?.estimatedSeats.observe(labels, seats);
    const hand = level.deckSize === 0 ? [] : this.#hand(labels.flow_schema, classification.distinguisher, level);
    const queuedAt = process.hrtime.bigint();
    let acquired: Grant | Promise<Grant>;
    try {
      acquired = level.queues.acquire(hand, seats, options.cancellation);
    } catch (error) {
      this.#rejected(series, queuedAt, error);
      throw error;
    }
    if (!(acquired instanceof Promise)) return this.#admitted(classification, series, seats, queuedAt, acquired);
    metrics?.inQueue.inc(labels);
    return acquired.then(
      (grant) => {
        metrics?.inQueue.dec(labels);
        return this.#admitted(classification, series, seats, queuedAt, grant);
      },
      (error: unknown) => {
        metrics?.inQueue.dec(labels);
        this.#rejected(series, queuedAt, error);
        throw error;
      },
    );
  }

  #admitted(classification: Classification, series: FlowSeries, seats: number, queuedAt: bigint, grant: Grant): Admission {
    const metrics = this.#metrics;
    metrics?.waitDuration.observe(series.executed, Number(process.hrtime.bigint() - queuedAt) / 1e9);
    metrics?.countDispatched(series);
    const done = metrics?.startExecuting(series, seats);
    let released = false;
    return {
      flowSchema: classification.flowSchema,
      priorityLevel: classification.priorityLevel,
      release: () => {
        if (released) return;
        released = true;
        done?.();
        grant.release();
      },
    };
  }

  #rejected(series: FlowSeries, queuedAt: bigint, error: unknown): void {
    if (!(error instanceof FlowControlRejection)) return;
    const labels = series.labels;
    this.#metrics?.reject(labels.flow_schema, labels.priority_level, error.reason);
    this.#metrics?.waitDuration.observe({ ...labels, execute: "false" }, Number(process.hrtime.bigint() - queuedAt) / 1e9);
  }
}
