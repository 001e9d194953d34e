import { tooManyInFlight } from "../../api/errors/index.js";
import { ControlPlaneError } from "../../api/errors/control-plane-error.js";

export interface QueuingConfig {
  /** Number of queues; 0 = no queuing (requests beyond the seats are rejected at once). */
  queues: number;
  handSize: number;
  queueLengthLimit: number;
}

export type RejectReason = "queue-full" | "concurrency-limit" | "time-out" | "cancelled";

/**
 * A request turned away by flow control: the catalogue's 429 with Retry-After (upstream's
 * `tooManyRequests`), marked with why so metrics can count it.
 */
export class FlowControlRejection extends ControlPlaneError {
  readonly reason: RejectReason;
  constructor(reason: RejectReason) {
    const rejection = tooManyInFlight();
    super(rejection.code, rejection.message, rejection.details === undefined ? {} : { details: rejection.details });
    this.reason = reason;
  }
}

interface Waiting {
  seats: number;
  admit: () => void;
  reject: (error: FlowControlRejection) => void;
  timer: NodeJS.Timeout | undefined;
  queue: Queue;
}

interface Queue {
  index: number;
  waiting: Waiting[];
  waitingSeats: number;
  executingSeats: number;
  /** Virtual start time of the queue's next request (start-time fair queuing). */
  virtualStart: number;
}

/** A seat grant: call `release` once the request is done (or, for a watch, initialized). */
export interface Grant {
  release(): void;
}

/**
 * The fair queuing of one priority level (k8s.io/apiserver's `queueset`): `concurrencyLimit` seats;
 * a request that finds no free seat waits in the shortest queue of its flow's hand; when seats free
 * up, the queue whose next request has the smallest virtual finish time goes first, and each
 * dispatch advances that queue's virtual time by the seats it took. So a flow sending many
 * requests only lengthens its own queues, and every other non-empty queue is served in turn.
 */
export class QueueSet {
  readonly #queues: Queue[];
  #limit: number;
  #executingSeats = 0;
  /** Requests waiting in all queues: with none (nearly always), admitting and releasing look at no queue. */
  #waiting = 0;
  #virtualTime = 0;
  readonly #config: QueuingConfig;
  readonly #waitLimitMs: number;

  constructor(concurrencyLimit: number, config: QueuingConfig, waitLimitMs: number) {
    this.#limit = Math.max(1, concurrencyLimit);
    this.#config = config;
    this.#waitLimitMs = waitLimitMs;
    this.#queues = Array.from({ length: config.queues }, (_, index) => ({
      index,
      waiting: [],
      waitingSeats: 0,
      executingSeats: 0,
      virtualStart: 0,
    }));
  }

  get concurrencyLimit(): number {
    return this.#limit;
  }

  get executingSeats(): number {
    return this.#executingSeats;
  }

  get waitingRequests(): number {
    return this.#waiting;
  }

  /**
   * Takes `seats` seats now, or queues for them in the least loaded queue of `hand` (queue indices
   * dealt for the request's flow). Rejects with FlowControlRejection when the chosen queue is
   * full, when the level does not queue, after the wait limit, or when the signal `cancellation`
   * gives aborts. `cancellation` is called only for a request that has to queue, so one admitted
   * at once never builds a signal.
   */
  acquire(hand: readonly number[], seats = 1, cancellation?: () => AbortSignal): Promise<Grant> | Grant {
    const width = Math.min(seats, this.#limit);
    if (this.#queues.length === 0) {
      if (this.#executingSeats + width > this.#limit) throw new FlowControlRejection("concurrency-limit");
      return this.#start(undefined, width);
    }
    let queue = this.#queues[hand[0]! % this.#queues.length]!;
    for (const index of hand) {
      const candidate = this.#queues[index % this.#queues.length]!;
      if (candidate.waitingSeats + candidate.executingSeats < queue.waitingSeats + queue.executingSeats) queue = candidate;
    }
    if (queue.waiting.length === 0 && this.#executingSeats + width <= this.#limit && this.#waiting === 0) {
      queue.virtualStart = Math.max(queue.virtualStart, this.#virtualTime);
      this.#virtualTime = queue.virtualStart;
      queue.virtualStart += width;
      return this.#start(queue, width);
    }
    if (queue.waiting.length >= this.#config.queueLengthLimit) throw new FlowControlRejection("queue-full");
    if (queue.waiting.length === 0) queue.virtualStart = Math.max(queue.virtualStart, this.#virtualTime);
    const granted = new Promise<Grant>((resolve, reject) => {
      const entry: Waiting = {
        seats: width,
        queue,
        timer: undefined,
        admit: () => resolve(this.#start(queue, width)),
        reject,
      };
      if (this.#waitLimitMs > 0) {
        entry.timer = setTimeout(() => this.#remove(entry, new FlowControlRejection("time-out")), this.#waitLimitMs);
      }
      queue.waiting.push(entry);
      queue.waitingSeats += width;
      this.#waiting++;
      // A client that goes away while queued (or went before it queued) gives up its place.
      const cancelled = cancellation?.();
      const cancel = (): void => this.#remove(entry, new FlowControlRejection("cancelled"));
      if (cancelled?.aborted === true) cancel();
      else cancelled?.addEventListener("abort", cancel, { once: true });
    });
    // As upstream, a request is queued and then dispatched if it goes first and fits: a narrow
    // request need not wait while free seats are too few for the wide ones queued before it.
    this.#dispatch();
    return granted;
  }

  #remove(entry: Waiting, error: FlowControlRejection): void {
    const queue = entry.queue;
    const at = queue.waiting.indexOf(entry);
    if (at < 0) return;
    queue.waiting.splice(at, 1);
    queue.waitingSeats -= entry.seats;
    this.#waiting--;
    clearTimeout(entry.timer);
    entry.reject(error);
  }

  #start(queue: Queue | undefined, seats: number): Grant {
    this.#executingSeats += seats;
    if (queue) queue.executingSeats += seats;
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        this.#executingSeats -= seats;
        if (queue) queue.executingSeats -= seats;
        this.#dispatch();
      },
    };
  }

  /**
   * Starts queued requests while seats are free: the queue whose next request would finish first
   * in virtual time (its virtual start plus the seats it takes, upstream's
   * `findDispatchQueueToBoundLocked`) goes first, so a narrow request is not ordered behind a wide
   * one that started with it. Stops when that request does not fit, as upstream does.
   */
  #dispatch(): void {
    while (this.#waiting > 0) {
      let next: Queue | undefined;
      let nextFinish = Infinity;
      for (const queue of this.#queues) {
        const head = queue.waiting[0];
        if (head === undefined) continue;
        const finish = queue.virtualStart + head.seats;
        if (finish < nextFinish) {
          next = queue;
          nextFinish = finish;
        }
      }
      if (next === undefined) return;
      const head = next.waiting[0]!;
      if (this.#executingSeats + head.seats > this.#limit) return;
      next.waiting.shift();
      next.waitingSeats -= head.seats;
      this.#waiting--;
      clearTimeout(head.timer);
      this.#virtualTime = next.virtualStart;
      next.virtualStart += head.seats;
      head.admit();
    }
  }
}
