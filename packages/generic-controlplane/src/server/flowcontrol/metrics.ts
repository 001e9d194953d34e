import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { RejectReason } from "./queue-set.js";

type FlowLabels = "flow_schema" | "priority_level";

/**
 * The label sets of one flow schema and priority level, built once per flow rather than per
 * request, and the key its counts are kept under.
 */
export interface FlowSeries {
  readonly labels: Record<FlowLabels, string>;
  /** The labels of a request that waited and then executed (`execute="true"`). */
  readonly executed: Record<FlowLabels | "execute", string>;
  readonly key: string;
}

export function flowSeries(flowSchema: string, priorityLevel: string): FlowSeries {
  const labels = { flow_schema: flowSchema, priority_level: priorityLevel };
  return { labels, executed: { ...labels, execute: "true" }, key: `${flowSchema}\0${priorityLevel}` };
}

/** Requests and seats of one flow schema and priority level that are executing now. */
interface Executing {
  labels: Record<FlowLabels, string>;
  requests: number;
  seats: number;
}

/** kube-apiserver's `apiserver_flowcontrol_*` metrics, under upstream names and labels. */
export class FlowControlMetrics {
  readonly rejected: Counter<FlowLabels | "reason">;
  readonly dispatched: Counter<FlowLabels>;
  readonly inQueue: Gauge<FlowLabels>;
  readonly executing: Gauge<FlowLabels>;
  readonly executingSeats: Gauge<FlowLabels>;
  readonly nominalLimitSeats: Gauge<"priority_level">;
  readonly waitDuration: Histogram<FlowLabels | "execute">;
  readonly estimatedSeats: Histogram<FlowLabels>;
  /**
   * What is executing, counted in plain numbers and read into the two gauges when they are scraped:
   * two gauge updates on entry and two on exit cost every request more than its flow control.
   */
  readonly #executing = new Map<string, Executing>();
  /** Dispatches not yet added to `dispatched`, by flow: it is brought up to date when scraped, for the same reason. */
  readonly #dispatched = new Map<string, { labels: Record<FlowLabels, string>; count: number }>();

  constructor(registry: Registry) {
    const registers = [registry];
    const executing = this.#executing;
    this.rejected = new Counter({
      name: "apiserver_flowcontrol_rejected_requests_total",
      help: "Number of requests rejected by API Priority and Fairness subsystem",
      labelNames: ["flow_schema", "priority_level", "reason"],
      registers,
    });
    const dispatched = this.#dispatched;
    this.dispatched = new Counter({
      name: "apiserver_flowcontrol_dispatched_requests_total",
      help: "Number of requests executed by API Priority and Fairness subsystem",
      labelNames: ["flow_schema", "priority_level"],
      registers,
      collect() {
        for (const entry of dispatched.values()) {
          if (entry.count === 0) continue;
          this.inc(entry.labels, entry.count);
          entry.count = 0;
        }
      },
    });
    this.inQueue = new Gauge({
      name: "apiserver_flowcontrol_current_inqueue_requests",
      help: "Number of requests currently pending in queues of the API Priority and Fairness subsystem",
      labelNames: ["flow_schema", "priority_level"],
      registers,
    });
    this.executing = new Gauge({
      name: "apiserver_flowcontrol_current_executing_requests",
      help: "Number of requests in initial (for a WATCH) or any (for a non-WATCH) execution stage in the API Priority and Fairness subsystem",
      labelNames: ["flow_schema", "priority_level"],
      registers,
      collect() {
        for (const entry of executing.values()) this.set(entry.labels, entry.requests);
      },
    });
    this.executingSeats = new Gauge({
      name: "apiserver_flowcontrol_current_executing_seats",
      help: "Concurrency (number of seats) occupied by the currently executing (initial stage for a WATCH, any stage otherwise) requests in the API Priority and Fairness subsystem",
      labelNames: ["flow_schema", "priority_level"],
      registers,
      collect() {
        for (const entry of executing.values()) this.set(entry.labels, entry.seats);
      },
    });
    this.nominalLimitSeats = new Gauge({
      name: "apiserver_flowcontrol_nominal_limit_seats",
      help: "Nominal number of execution seats configured for each priority level",
      labelNames: ["priority_level"],
      registers,
    });
    this.waitDuration = new Histogram({
      name: "apiserver_flowcontrol_request_wait_duration_seconds",
      help: "Length of time a request spent waiting in its queue",
      labelNames: ["flow_schema", "priority_level", "execute"],
      buckets: [0, 0.005, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 15, 30],
      registers,
    });
    this.estimatedSeats = new Histogram({
      name: "apiserver_flowcontrol_work_estimated_seats",
      help: "Number of estimated seats (maximum of initial and final seats) associated with requests in API Priority and Fairness",
      labelNames: ["flow_schema", "priority_level"],
      buckets: [1, 2, 4, 10],
      registers,
    });
  }

  /** Counts a request of the flow as dispatched (`dispatched` shows it from the next scrape on). */
  countDispatched(series: FlowSeries): void {
    let entry = this.#dispatched.get(series.key);
    if (entry === undefined) {
      entry = { labels: series.labels, count: 0 };
      this.#dispatched.set(series.key, entry);
    }
    entry.count++;
  }

  /** Counts a request of the flow holding `seats` as executing; the returned function counts it done. */
  startExecuting(series: FlowSeries, seats: number): () => void {
    let entry = this.#executing.get(series.key);
    if (entry === undefined) {
      entry = { labels: series.labels, requests: 0, seats: 0 };
      this.#executing.set(series.key, entry);
    }
    const counted = entry;
    counted.requests++;
    counted.seats += seats;
    return () => {
      counted.requests--;
      counted.seats -= seats;
    };
  }

  reject(flowSchema: string, priorityLevel: string, reason: RejectReason): void {
    this.rejected.inc({ flow_schema: flowSchema, priority_level: priorityLevel, reason });
  }
}
