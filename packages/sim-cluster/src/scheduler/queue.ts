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
  /**
   * The queued keys in order, as a binary heap: an entry whose key has left `#queued` since is
   * skipped when it comes up, so a pick costs O(log n) however many pods wait.
   */
  readonly #heap: HeapEntry[] = [];
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
    if (!this.#queued.has(key)) {
      this.#queued.add(key);
      const { priority, created } = this.#orders.get(key)!;
      this.#push({ key, priority, created, seen: this.#firstSeen.get(key)! });
    }
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
    while (this.#heap.length > 0) {
      const entry = this.#pop();
      // Forgotten since it was queued, or queued again meanwhile under a newer entry.
      if (!this.#queued.has(entry.key) || this.#firstSeen.get(entry.key) !== entry.seen) continue;
      this.#queued.delete(entry.key);
      this.#attempting.add(entry.key);
      return entry.key;
    }
    return undefined;
  }

  #push(entry: HeapEntry): void {
    const heap = this.#heap;
    heap.push(entry);
    let at = heap.length - 1;
    while (at > 0) {
      const parent = (at - 1) >> 1;
      if (!before(heap[at]!, heap[parent]!)) break;
      [heap[at], heap[parent]] = [heap[parent]!, heap[at]!];
      at = parent;
    }
  }

  #pop(): HeapEntry {
    const heap = this.#heap;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      let at = 0;
      for (;;) {
        const left = 2 * at + 1;
        const right = left + 1;
        let first = at;
        if (left < heap.length && before(heap[left]!, heap[first]!)) first = left;
        if (right < heap.length && before(heap[right]!, heap[first]!)) first = right;
        if (first === at) break;
        [heap[at], heap[first]] = [heap[first]!, heap[at]!];
        at = first;
      }
    }
    return top;
  }
}

interface HeapEntry {
  key: string;
  priority: number;
  created: number;
  seen: number;
}

/** PrioritySort: higher priority first, then older, then first queued. */
function before(a: HeapEntry, b: HeapEntry): boolean {
  if (a.priority !== b.priority) return a.priority > b.priority;
  if (a.created !== b.created) return a.created < b.created;
  return a.seen < b.seen;
}
