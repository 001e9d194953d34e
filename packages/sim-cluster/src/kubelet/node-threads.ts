import { Worker, type WorkerPerformance } from "node:worker_threads";
import type { Logger, LogRecord } from "@kubekit/generic-controlplane";
import { errorFrom, workerEntry, type ThreadError } from "../worker-threads.js";
import type { KubeletHost, LocalKubeletsOptions } from "./kubelet-host.js";
import type { SimNodeSpec } from "./kubelet.js";

/** One worker thread running simulated kubelets. */
export interface NodeThread {
  /** The worker's `threadId`. */
  readonly threadId: number;
  /** The nodes whose kubelets run there. */
  readonly nodes: readonly string[];
  /** False once the thread has exited (after the cluster's `close()`, or if it crashed). */
  readonly running: boolean;
  /** As `performance.eventLoopUtilization()`, of that thread's event loop. */
  readonly eventLoopUtilization: WorkerPerformance["eventLoopUtilization"];
  /**
   * The bytes the thread's heap holds (`v8.getHeapStatistics().used_heap_size` there), after a full
   * collection when the process runs with `--expose-gc`: with the main thread's, what the
   * simulated nodes cost in memory.
   */
  heapUsed(): Promise<number>;
}

/** What the worker is started with (its `workerData`). */
export interface NodeThreadData extends LocalKubeletsOptions {
  /** Whether kubelets' log records are sent back to the cluster's logger. */
  log: boolean;
}

type HostMethod = Exclude<keyof KubeletHost, "close">;

/** A call from the cluster to a worker, answered by a `NodeThreadReply` with the same id. */
export type NodeThreadCall = { id: number; method: HostMethod | "close" | "heapUsed"; args: unknown[] };
export type NodeThreadReply = { id: number; ok: true; value?: number } | { id: number; ok: false; error: ThreadError } | { log: LogRecord };

class NodeWorker implements NodeThread {
  readonly worker: Worker;
  /** Kept: a Worker's own `threadId` reads -1 once it has exited. */
  readonly threadId: number;
  readonly hosted = new Set<string>();
  readonly #pending = new Map<number, { resolve: (value: number | undefined) => void; reject: (error: Error) => void }>();
  #nextId = 0;
  #exited: Error | undefined;
  running = true;
  readonly exit: Promise<void>;

  constructor(data: NodeThreadData, logger: Logger | undefined) {
    this.worker = new Worker(workerEntry(import.meta.url, "node-thread-worker"), { workerData: data, name: "sim-cluster-nodes" });
    this.threadId = this.worker.threadId;
    this.worker.on("message", (reply: NodeThreadReply) => {
      if ("log" in reply) return logger?.(reply.log);
      const call = this.#pending.get(reply.id);
      this.#pending.delete(reply.id);
      if (reply.ok) call?.resolve(reply.value);
      else call?.reject(errorFrom(reply.error));
    });
    this.worker.on("error", (error) => {
      // The thread is gone with its kubelets: their nodes go unreachable as machines that failed.
      logger?.({ level: "error", msg: "node thread failed", threadId: this.threadId, nodes: this.nodes, error: String(error) });
      this.#fail(error);
    });
    this.exit = new Promise((resolve) =>
      this.worker.once("exit", (code) => {
        this.running = false;
        this.#fail(new Error(`the node thread ${this.threadId} exited (code ${code})`));
        resolve();
      }),
    );
  }

  /** Whether the thread has exited or failed: no call reaches it any more. */
  get failed(): boolean {
    return this.#exited !== undefined;
  }

  get nodes(): readonly string[] {
    return [...this.hosted];
  }

  readonly eventLoopUtilization: WorkerPerformance["eventLoopUtilization"] = (...args) =>
    this.worker.performance.eventLoopUtilization(...args);

  async heapUsed(): Promise<number> {
    return (await this.call("heapUsed", [])) ?? 0;
  }

  call(method: NodeThreadCall["method"], args: unknown[]): Promise<number | undefined> {
    if (this.#exited !== undefined) return Promise.reject(this.#exited);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.worker.postMessage({ id, method, args } satisfies NodeThreadCall);
    });
  }

  #fail(error: Error): void {
    this.#exited ??= error;
    for (const call of this.#pending.values()) call.reject(error);
    this.#pending.clear();
  }
}

/**
 * Simulated kubelets in worker threads, as kwok runs its node simulation beside kube-apiserver
 * rather than inside it: each worker has its own watches and clients against the server's URL, so
 * the nodes' work takes another core. New nodes go to the worker hosting the fewest; every later
 * call for a node goes to the worker that hosts it, and its errors come back as errors.
 */
export class NodeThreads implements KubeletHost {
  readonly #workers: NodeWorker[];

  constructor(count: number, data: NodeThreadData, logger?: Logger) {
    this.#workers = Array.from({ length: count }, () => new NodeWorker(data, logger));
  }

  get threads(): readonly NodeThread[] {
    return this.#workers;
  }

  async add(spec: SimNodeSpec, version: string, token: string): Promise<void> {
    const worker = this.#workers.reduce((fewest, w) => (w.hosted.size < fewest.hosted.size ? w : fewest));
    worker.hosted.add(spec.name);
    try {
      await worker.call("add", [spec, version, token]);
    } catch (error) {
      worker.hosted.delete(spec.name);
      throw error;
    }
  }

  async start(name: string, version: string, token: string): Promise<void> {
    await this.#call(name, "start", [name, version, token]);
  }

  async stop(name: string): Promise<void> {
    await this.#call(name, "stop", [name]);
  }

  async remove(name: string): Promise<void> {
    await this.#call(name, "remove", [name]);
    for (const worker of this.#workers) worker.hosted.delete(name);
  }

  async reboot(name: string): Promise<void> {
    await this.#call(name, "reboot", [name]);
  }

  async setCapacity(name: string, capacity: Readonly<Record<string, string>>): Promise<void> {
    await this.#call(name, "setCapacity", [name, capacity]);
  }

  /** Stops every worker's kubelets and watches, then the workers; a worker that failed before has nothing left to stop. */
  async close(): Promise<void> {
    const results = await Promise.allSettled(this.#workers.filter((w) => !w.failed).map((w) => w.call("close", [])));
    await Promise.all(this.#workers.map(async (w) => (await w.worker.terminate(), await w.exit)));
    const failed = results.find((r) => r.status === "rejected");
    if (failed !== undefined) throw failed.reason;
  }

  #call(name: string, method: HostMethod, args: unknown[]): Promise<unknown> {
    const worker = this.#workers.find((w) => w.hosted.has(name));
    if (worker === undefined) return Promise.reject(new Error(`no node ${name} in this cluster`));
    return worker.call(method, args);
  }
}
