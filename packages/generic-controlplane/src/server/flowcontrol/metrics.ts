import { Counter, Gauge, Histogram, type Registry } from "prom-client";
import type { RejectReason } from "./queue-set.js";

type FlowLabels = "flow_schema" | "priority_level";

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

  constructor(registry: Registry) {
    const registers = [registry];
    const executing = this.#executing;
    this.rejected = new Counter({
      name: "apiserver_flowcontrol_rejected_requests_total",
      help: "Number of requests rejected by API Priority and Fairness subsystem",
      labelNames: ["flow_schema", "priority_level", "reason"],
      registers,
    });
    this.dispatched = new Counter({
      name: "apiserver_flowcontrol_dispatched_requests_total",
      help: "Number of requests executed by API Priority and Fairness subsystem",
      labelNames: ["flow_schema", "priority_level"],
      registers,
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

  /** Counts a request of `labels` holding `seats` as executing; the returned function counts it done. */
  startExecuting(labels: Record<FlowLabels, string>, seats: number): () => void {
    const key = `${labels.flow_schema}\0${labels.priority_level}`;
    let entry = this.#executing.get(key);
    if (entry === undefined) {
      entry = { labels, requests: 0, seats: 0 };
      this.#executing.set(key, entry);
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
