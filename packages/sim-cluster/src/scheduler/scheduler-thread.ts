import { Worker, type WorkerPerformance } from "node:worker_threads";
import type { Logger, LogRecord } from "@kubekit/generic-controlplane";
import { errorFrom, workerEntry, type ThreadError } from "../worker-threads.js";

/** The worker thread running the scheduler (`schedulerThread`). */
export interface SchedulerThread {
  /** The worker's `threadId`. */
  readonly threadId: number;
  /** False once the thread has exited (after the cluster's `close()`, or if it crashed). */
  readonly running: boolean;
  /** What stopped the scheduler before `close()` if something did (it is logged too); pods then stay Pending. */
  readonly error: Error | undefined;
  /** As `performance.eventLoopUtilization()`, of that thread's event loop. */
  readonly eventLoopUtilization: WorkerPerformance["eventLoopUtilization"];
  /** The bytes the thread's heap holds (after a full collection when the process runs with `--expose-gc`). */
  heapUsed(): Promise<number>;
}

/** What the worker is started with (its `workerData`). */
export interface SchedulerThreadData {
  /** The API server's URL. */
  server: string;
  /** The scheduler's bearer token (`system:kube-scheduler`). */
  token: string;
  /** Whether the scheduler's log records are sent back to the cluster's logger. */
  log: boolean;
}

/** To the worker: stop the scheduler, or measure the heap (answered with the same id). */
export type SchedulerThreadCall = { call: "stop" } | { call: "heapUsed"; id: number };

/** From the worker: a log record, the scheduler's failure, that it stopped when asked to, or a heap measurement. */
export type SchedulerThreadMessage = { log: LogRecord } | { failed: ThreadError } | { stopped: true } | { id: number; heapUsed: number };

/**
 * The scheduler in a worker thread, as kube-scheduler is a process of its own beside
 * kube-apiserver: its informers and client talk to the server's URL over HTTP as
 * `system:kube-scheduler`, so its filtering, scoring and decoding of watch events take another core.
 */
export class SchedulerWorker implements SchedulerThread {
  readonly #worker: Worker;
  readonly #logger: Logger | undefined;
  /** Kept: a Worker's own `threadId` reads -1 once it has exited. */
  readonly threadId: number;
  running = true;
  error: Error | undefined;
  #closing: Promise<void> | undefined;
  readonly #heapReads = new Map<number, (bytes: number) => void>();
  #nextRead = 0;
  readonly #exit: Promise<void>;
  readonly #stopped: Promise<void>;

  /** `entry` is the worker's script (the package's own by default). */
  constructor(data: SchedulerThreadData, logger?: Logger, entry: URL = workerEntry(import.meta.url, "scheduler-thread-worker")) {
    this.#logger = logger;
    this.#worker = new Worker(entry, { workerData: data, name: "sim-cluster-scheduler" });
    this.threadId = this.#worker.threadId;
    let stopped = () => {};
    this.#stopped = new Promise((resolve) => (stopped = resolve));
    this.#worker.on("message", (message: SchedulerThreadMessage) => {
      if ("log" in message) logger?.(message.log);
      else if ("failed" in message) this.#fail(errorFrom(message.failed));
      else if ("heapUsed" in message) {
        this.#heapReads.get(message.id)?.(message.heapUsed);
        this.#heapReads.delete(message.id);
      } else stopped();
    });
    this.#worker.on("error", (error) => this.#fail(error));
    this.#exit = new Promise((resolve) =>
      this.#worker.once("exit", (code) => {
        this.running = false;
        for (const answer of this.#heapReads.values()) answer(0);
        this.#heapReads.clear();
        if (this.#closing === undefined) this.#fail(new Error(`the scheduler thread ${this.threadId} exited (code ${code})`));
        resolve();
      }),
    );
  }

  readonly eventLoopUtilization: WorkerPerformance["eventLoopUtilization"] = (...args) =>
    this.#worker.performance.eventLoopUtilization(...args);

  heapUsed(): Promise<number> {
    if (!this.running) return Promise.resolve(0);
    const id = this.#nextRead++;
    return new Promise((resolve) => {
      this.#heapReads.set(id, resolve);
      this.#worker.postMessage({ call: "heapUsed", id } satisfies SchedulerThreadCall);
    });
  }

  /** Stops the scheduler (its bindings in flight answered, its watches closed), then the thread. */
  close(): Promise<void> {
    return (this.#closing ??= (async () => {
      if (this.running) {
        this.#worker.postMessage({ call: "stop" } satisfies SchedulerThreadCall);
        await Promise.race([this.#stopped, this.#exit]);
      }
      await this.#worker.terminate();
      await this.#exit;
    })());
  }

  /** The first failure is the cause: it is kept and told (to the logger, else as a process warning), later ones follow from it. */
  #fail(error: Error): void {
    if (this.error !== undefined) return;
    this.error = error;
    if (this.#logger !== undefined)
      this.#logger({ level: "error", msg: "scheduler thread failed: pods stay Pending", threadId: this.threadId, error: String(error) });
    else process.emitWarning(`the scheduler thread failed: pods stay Pending: ${String(error)}`, { code: "SIM_CLUSTER_SCHEDULER_FAILED" });
  }
}
