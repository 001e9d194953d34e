/*
 * Events are a record for people, not part of a decision: client-go's recorder queues them and
 * sends them from a goroutine of its own, dropping what does not fit its queue (1,000 entries),
 * so that a controller never waits for its Events. Here likewise: the arbiter's status writes do
 * not wait for the Events they cause, and a burst of decisions cannot pile up unbounded sends.
 */

export interface BackgroundEventsOptions {
  /** Sends in flight at once. */
  inFlight: number;
  /** Sends waiting at most; a send beyond is dropped (and counted), as client-go's broadcaster does. */
  maxQueued: number;
  onDropped?: () => void;
}

export class BackgroundEvents {
  readonly #o: BackgroundEventsOptions;
  readonly #queued: (() => Promise<void>)[] = [];
  readonly #running = new Set<Promise<void>>();

  constructor(options: BackgroundEventsOptions) {
    this.#o = options;
  }

  /** Queues a send (which must not throw: the recorder logs its own failures). */
  add(send: () => Promise<void>): void {
    if (this.#queued.length >= this.#o.maxQueued) {
      this.#o.onDropped?.();
      return;
    }
    this.#queued.push(send);
    this.#pump();
  }

  /** Drops what is still waiting and resolves once the sends in flight are done. */
  async stop(): Promise<void> {
    this.#queued.length = 0;
    while (this.#running.size > 0) await Promise.all(this.#running);
  }

  #pump(): void {
    while (this.#running.size < this.#o.inFlight && this.#queued.length > 0) {
      const send = this.#queued.shift()!;
      const running: Promise<void> = send()
        .catch(() => undefined)
        .finally(() => {
          this.#running.delete(running);
          this.#pump();
        });
      this.#running.add(running);
    }
  }
}
