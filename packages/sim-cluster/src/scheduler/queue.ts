/**
 * The scheduler's active queue (upstream's `activeQ` with the PrioritySort plugin): pods waiting
 * for a scheduling attempt, handed out highest priority first, then oldest, then in the order
 * they were first queued. A key is held once however often it is added; a key being attempted is
 * not handed out again until `done` (an add meanwhile queues it again then).
 */
export class SchedulingQueue {
  readonly #order: (key: string) => { priority: number; created: number };
  readonly #queued = new Set<string>();
  readonly #attempting = new Set<string>();
  readonly #readded = new Set<string>();
  /** Keys forgotten while being attempted: dropped once done. */
  readonly #forgotten = new Set<string>();
  readonly #orders = new Map<string, { priority: number; created: number }>();
  /** When each key was first queued, breaking ties between pods of one priority and age. */
  readonly #firstSeen = new Map<string, number>();
  readonly #waiters: Array<(key: string | undefined) => void> = [];
  readonly #timers = new Set<NodeJS.Timeout>();
  #sequence = 0;
  #shutDown = false;
  #wakeScheduled = false;

  /** `order` reads a pod's priority and creation time (ms) when the queue picks the next one. */
  constructor(order: (key: string) => { priority: number; created: number }) {
    this.#order = order;
  }

  get length(): number {
    return this.#queued.size;
  }

  add(key: string): void {
    if (this.#shutDown) return;
    this.#forgotten.delete(key);
    if (!this.#firstSeen.has(key)) this.#firstSeen.set(key, this.#sequence++);
    // A pod's priority and creation time never change: read once, not at every pick.
    if (!this.#orders.has(key)) this.#orders.set(key, this.#order(key));
    if (this.#attempting.has(key)) {
      this.#readded.add(key);
      return;
    }
    this.#queued.add(key);
    // A waiting pop is answered after the current task's adds, so that of pods moved back together
    // (upstream's MoveAllToActiveQueue) the first in order goes first, not the first added.
    if (this.#waiters.length > 0 && !this.#wakeScheduled) {
      this.#wakeScheduled = true;
      queueMicrotask(() => {
        this.#wakeScheduled = false;
        while (this.#waiters.length > 0 && this.#queued.size > 0) this.#waiters.shift()!(this.#take());
      });
    }
  }

  /** Adds `key` after `delayMs` (upstream's backoff queue, for a failed attempt). */
  addAfter(key: string, delayMs: number): void {
    if (this.#shutDown) return;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      this.add(key);
    }, delayMs);
    timer.unref();
    this.#timers.add(timer);
  }

  /** Forgets a pod that no longer waits for scheduling (bound or deleted). */
  forget(key: string): void {
    this.#queued.delete(key);
    this.#readded.delete(key);
    if (this.#attempting.has(key)) this.#forgotten.add(key);
    else this.#drop(key);
  }

  /** The next key to attempt, once there is one; `undefined` after shutdown. Call `done` after. */
  pop(): Promise<string | undefined> {
    if (this.#shutDown) return Promise.resolve(undefined);
    const key = this.#take();
    if (key !== undefined) return Promise.resolve(key);
    return new Promise((resolve) => this.#waiters.push(resolve));
  }

  done(key: string): void {
    this.#attempting.delete(key);
    if (this.#readded.delete(key)) this.add(key);
    else if (this.#forgotten.has(key)) this.#drop(key);
    this.#forgotten.delete(key);
  }

  #drop(key: string): void {
    this.#firstSeen.delete(key);
    this.#orders.delete(key);
  }

  shutDown(): void {
    this.#shutDown = true;
    for (const timer of this.#timers) clearTimeout(timer);
    this.#timers.clear();
    for (const resolve of this.#waiters.splice(0)) resolve(undefined);
  }

  #take(): string | undefined {
    let best: { key: string; priority: number; created: number; seen: number } | undefined;
    for (const key of this.#queued) {
      const { priority, created } = this.#orders.get(key) ?? this.#order(key);
      const seen = this.#firstSeen.get(key) ?? 0;
      if (
        best === undefined ||
        priority > best.priority ||
        (priority === best.priority && (created < best.created || (created === best.created && seen < best.seen)))
      ) {
        best = { key, priority, created, seen };
      }
    }
    if (best === undefined) return undefined;
    this.#queued.delete(best.key);
    this.#attempting.add(best.key);
    return best.key;
  }
}
