import { Counter, Gauge, Histogram, Registry } from "prom-client";

/** client-go's workqueue buckets: 10ns to 10s by factors of 10 (`ExponentialBuckets(10e-9, 10, 10)`). */
const BUCKETS = Array.from({ length: 10 }, (_, i) => 10e-9 * 10 ** i);

/**
 * The workqueue metrics of client-go's `workqueue` package (the names kube-controller-manager
 * exports), labelled by queue `name`. One set per registry: every queue registered on it shares
 * them.
 */
export class WorkqueueMetrics {
  readonly depth: Gauge<"name">;
  readonly adds: Counter<"name">;
  readonly queueDuration: Histogram<"name">;
  readonly workDuration: Histogram<"name">;
  readonly unfinishedWork: Gauge<"name">;
  readonly longestRunning: Gauge<"name">;
  readonly retries: Counter<"name">;
  readonly leaderStatus: Gauge<"name">;

  /** Queues reporting in-progress work, read when the gauges are collected. */
  readonly #active = new Set<InProgressSource>();

  private constructor(readonly registry: Registry) {
    const registers = [registry];
    const active = this.#active;
    this.depth = new Gauge({ name: "workqueue_depth", help: "Current depth of workqueue", labelNames: ["name"], registers });
    this.adds = new Counter({
      name: "workqueue_adds_total",
      help: "Total number of adds handled by workqueue",
      labelNames: ["name"],
      registers,
    });
    this.queueDuration = new Histogram({
      name: "workqueue_queue_duration_seconds",
      help: "How long in seconds an item stays in workqueue before being requested.",
      labelNames: ["name"],
      buckets: BUCKETS,
      registers,
    });
    this.workDuration = new Histogram({
      name: "workqueue_work_duration_seconds",
      help: "How long in seconds processing an item from workqueue takes.",
      labelNames: ["name"],
      buckets: BUCKETS,
      registers,
    });
    this.unfinishedWork = new Gauge({
      name: "workqueue_unfinished_work_seconds",
      help: "How many seconds of work has done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.",
      labelNames: ["name"],
      registers,
      collect() {
        const now = performance.now();
        for (const queue of active)
          this.set(
            { name: queue.name },
            queue.processingSince().reduce((sum, t) => sum + (now - t) / 1000, 0),
          );
      },
    });
    this.longestRunning = new Gauge({
      name: "workqueue_longest_running_processor_seconds",
      help: "How many seconds has the longest running processor for workqueue been running.",
      labelNames: ["name"],
      registers,
      collect() {
        const now = performance.now();
        for (const queue of active)
          this.set(
            { name: queue.name },
            queue.processingSince().reduce((max, t) => Math.max(max, (now - t) / 1000), 0),
          );
      },
    });
    this.retries = new Counter({
      name: "workqueue_retries_total",
      help: "Total number of retries handled by workqueue",
      labelNames: ["name"],
      registers,
    });
    this.leaderStatus = new Gauge({
      name: "leader_election_master_status",
      help: "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease.",
      labelNames: ["name"],
      registers,
    });
  }

  /** Starts reporting `queue`'s in-progress work; the returned function stops it. */
  track(queue: InProgressSource): () => void {
    this.#active.add(queue);
    return () => {
      this.#active.delete(queue);
    };
  }

  static #byRegistry = new WeakMap<Registry, WorkqueueMetrics>();

  /** The metrics on `registry`, registered on first use. */
  static for(registry: Registry): WorkqueueMetrics {
    let metrics = WorkqueueMetrics.#byRegistry.get(registry);
    if (metrics === undefined) {
      metrics = new WorkqueueMetrics(registry);
      WorkqueueMetrics.#byRegistry.set(registry, metrics);
    }
    return metrics;
  }
}

/** A queue as the in-progress gauges see it: start times (`performance.now()`) of items being processed. */
export interface InProgressSource {
  readonly name: string;
  processingSince(): number[];
}

export { Registry };
