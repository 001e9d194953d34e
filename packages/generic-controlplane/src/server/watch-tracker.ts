/**
 * Keeps the open watch streams so shutdown can end them cleanly and metrics can count them.
 */
export interface TrackedWatch {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  /** Ends the stream (the client sees a clean end of the chunked body and re-watches elsewhere). */
  end(): void;
}

export class WatchTracker {
  readonly #open = new Set<TrackedWatch>();
  readonly #onChange: ((watch: TrackedWatch, delta: 1 | -1) => void) | undefined;

  constructor(onChange?: (watch: TrackedWatch, delta: 1 | -1) => void) {
    this.#onChange = onChange;
  }

  add(watch: TrackedWatch): void {
    this.#open.add(watch);
    this.#onChange?.(watch, 1);
  }

  delete(watch: TrackedWatch): void {
    if (this.#open.delete(watch)) this.#onChange?.(watch, -1);
  }

  get size(): number {
    return this.#open.size;
  }

  /** Ends every open stream. */
  endAll(): void {
    for (const watch of [...this.#open]) watch.end();
  }

  /** Ends the streams of one type (it stopped being served). */
  endOf(group: string, version: string, kind: string): void {
    for (const watch of [...this.#open]) if (watch.group === group && watch.version === version && watch.kind === kind) watch.end();
  }
}
