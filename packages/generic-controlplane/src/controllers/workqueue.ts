import type { Registry } from "prom-client";
import { WorkqueueMetrics } from "./metrics.js";

/** How long to wait before retrying a key (client-go's `RateLimiter`). */
export interface RateLimiter {
  when(key: string): number;
  forget(key: string): void;
  retries(key: string): number;
}

/** Per-key exponential backoff: `baseMs * 2^failures`, capped (client-go's `ItemExponentialFailureRateLimiter`). */
export class ExponentialRateLimiter implements RateLimiter {
  readonly #failures = new Map<string, number>();
  constructor(
    private readonly baseMs = 5,
    private readonly maxMs = 1000_000,
  ) {}
  when(key: string): number {
    const failures = this.#failures.get(key) ?? 0;
    this.#failures.set(key, failures + 1);
    return Math.min(this.baseMs * 2 ** failures, this.maxMs);
  }
  forget(key: string): void {
    this.#failures.delete(key);
  }
  retries(key: string): number {
    return this.#failures.get(key) ?? 0;
  }
}

/** An overall token bucket shared by all keys (client-go's `BucketRateLimiter`, 10 qps burst 100 by default). */
export class BucketRateLimiter implements RateLimiter {
  #tokens: number;
  #last = performance.now();
  constructor(
    private readonly qps = 10,
    private readonly burst = 100,
  ) {
    this.#tokens = burst;
  }
  when(): number {
    const now = performance.now();
    this.#tokens = Math.min(this.burst, this.#tokens + ((now - this.#last) / 1000) * this.qps);
    this.#last = now;
    this.#tokens -= 1;
    return this.#tokens >= 0 ? 0 : (-this.#tokens / this.qps) * 1000;
  }
  forget(): void {}
  retries(): number {
    return 0;
  }
}

/** The longest wait of several limiters (client-go's `MaxOfRateLimiter`). */
export class MaxOfRateLimiter implements RateLimiter {
  readonly #limiters: RateLimiter[];
  constructor(...limiters: RateLimiter[]) {
    this.#limiters = limiters;
  }
  when(key: string): number {
    return Math.max(...this.#limiters.map((l) => l.when(key)));
  }
  forget(key: string): void {
    for (const l of this.#limiters) l.forget(key);
  }
  retries(key: string): number {
    return Math.max(...this.#limiters.map((l) => l.retries(key)));
  }
}

/** client-go's `DefaultControllerRateLimiter`: 5ms..1000s per key, 10 qps / burst 100 overall. */
export function defaultControllerRateLimiter(): RateLimiter {
  return new MaxOfRateLimiter(new ExponentialRateLimiter(5, 1000_000), new BucketRateLimiter(10, 100));
}

export interface WorkQueueOptions {
  /** Names the queue in metrics and logs. */
  name: string;
  rateLimiter?: RateLimiter;
  /** Where the `workqueue_*` metrics go. Default: none. */
  registry?: Registry;
}

/**
 * A rate-limited work queue after client-go's `workqueue`: a key waiting in the queue is held
 * once however often it is added; a key being processed is never handed out again until `done`
 * (an add meanwhile re-queues it then), so no two workers process one key at once.
 */
export class WorkQueue {
  readonly name: string;
  readonly #rateLimiter: RateLimiter;
  readonly #queue: string[] = [];
  /** Keys waiting to be processed, with the time they were added. */
  readonly #dirty = new Map<string, number>();
  /** Keys being processed, with the time processing started. */
  readonly #processing = new Map<string, number>();
  readonly #waiters: Array<(key: string | undefined) => void> = [];
  readonly #timers = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  readonly #metrics: WorkqueueMetrics | undefined;
  readonly #untrack: (() => void) | undefined;
  #shuttingDown = false;
  #drained: Array<() => void> = [];

  constructor(options: WorkQueueOptions) {
    this.name = options.name;
    this.#rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter();
    if (options.registry !== undefined) {
      this.#metrics = WorkqueueMetrics.for(options.registry);
      // Every series of the queue is exported from the start, at zero.
      this.#metrics.depth.set({ name: this.name }, 0);
      this.#metrics.adds.inc({ name: this.name }, 0);
      this.#metrics.retries.inc({ name: this.name }, 0);
      this.#untrack = this.#metrics.track({ name: this.name, processingSince: () => [...this.#processing.values()] });
    }
  }

  get length(): number {
    return this.#queue.length;
  }

  get shuttingDown(): boolean {
    return this.#shuttingDown;
  }

  add(key: string): void {
    if (this.#shuttingDown || this.#dirty.has(key)) return;
    this.#metrics?.adds.inc({ name: this.name });
    this.#dirty.set(key, performance.now());
    if (this.#processing.has(key)) return;
    this.#push(key);
  }

  /** Adds `key` after `delayMs`; a sooner pending add of the same key wins. */
  addAfter(key: string, delayMs: number): void {
    if (this.#shuttingDown) return;
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    const at = performance.now() + delayMs;
    const pending = this.#timers.get(key);
    if (pending !== undefined) {
      if (pending.at <= at) return;
      clearTimeout(pending.timer);
    }
    const timer = setTimeout(() => {
      this.#timers.delete(key);
      this.add(key);
    }, delayMs);
    timer.unref();
    this.#timers.set(key, { at, timer });
  }

  /** Adds `key` after its rate limiter's backoff; counts a retry. */
  addRateLimited(key: string): void {
    this.#metrics?.retries.inc({ name: this.name });
    this.addAfter(key, this.#rateLimiter.when(key));
  }

  /** Ends backoff tracking of `key` (after it succeeded). */
  forget(key: string): void {
    this.#rateLimiter.forget(key);
  }

  numRequeues(key: string): number {
    return this.#rateLimiter.retries(key);
  }

  /** The next key to process, once there is one; `undefined` after shutdown. Call `done` after. */
  get(): Promise<string | undefined> {
    const key = this.#take();
    if (key !== undefined || this.#shuttingDown) return Promise.resolve(key);
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  /** Marks `key` processed; if it was added meanwhile it goes back on the queue. */
  done(key: string): void {
    const started = this.#processing.get(key);
    if (started === undefined) return;
    this.#processing.delete(key);
    this.#metrics?.workDuration.observe({ name: this.name }, (performance.now() - started) / 1000);
    // After shutdown nothing is handed out again, so a key added meanwhile must not hold up the drain.
    if (this.#dirty.has(key) && !this.#shuttingDown) this.#push(key);
    else if (this.#shuttingDown && this.#processing.size === 0) for (const resolve of this.#drained.splice(0)) resolve();
  }

  /** Stops handing out keys: waiting `get`s resolve `undefined`; pending delayed adds are dropped. */
  shutDown(): void {
    this.#shuttingDown = true;
    for (const { timer } of this.#timers.values()) clearTimeout(timer);
    this.#timers.clear();
    for (const resolve of this.#waiters.splice(0)) resolve(undefined);
    this.#untrack?.();
  }

  /** Shuts down, then resolves when every key being processed is `done`. */
  async shutDownWithDrain(): Promise<void> {
    this.shutDown();
    if (this.#processing.size === 0) return;
    await new Promise<void>((resolve) => this.#drained.push(resolve));
  }

  #push(key: string): void {
    const waiter = this.#waiters.shift();
    if (waiter !== undefined) {
      this.#queue.push(key);
      waiter(this.#take());
      return;
    }
    this.#queue.push(key);
    this.#metrics?.depth.set({ name: this.name }, this.#queue.length);
  }

  #take(): string | undefined {
    if (this.#shuttingDown) return undefined;
    const key = this.#queue.shift();
    if (key === undefined) return undefined;
    const added = this.#dirty.get(key) ?? performance.now();
    this.#dirty.delete(key);
    const now = performance.now();
    this.#processing.set(key, now);
    this.#metrics?.depth.set({ name: this.name }, this.#queue.length);
    this.#metrics?.queueDuration.observe({ name: this.name }, (now - added) / 1000);
    return key;
  }
}
