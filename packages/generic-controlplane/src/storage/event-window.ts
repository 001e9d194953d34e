import { tooOldResourceVersion } from "../api/errors/index.js";
import { partitionPoint } from "./sorted.js";
import type { ReplayPage } from "./watch-hub.js";
import type { StorageEvent } from "./types.js";

/**
 * The most recent committed events of a store, in revision order: the history a watch cache
 * replays watches from without asking the backend, as kube-apiserver's cacher keeps a window of
 * events per resource. Holds at most `capacity` events; every event after revision `from` is held.
 */
export class EventWindow {
  private events: StorageEvent[] = [];
  /** Index of the oldest held event in `events` (trimming moves it instead of shifting the array). */
  private head = 0;
  /** Every event with a revision above this is held. */
  from: number;
  /** The revision of the newest event seen (or the start revision). */
  latest: number;

  constructor(
    private readonly capacity: number,
    startRevision: number,
  ) {
    this.from = startRevision;
    this.latest = startRevision;
  }

  append(events: readonly StorageEvent[]): void {
    for (const event of events) this.events.push(event);
    if (events.length > 0) this.latest = Math.max(this.latest, events[events.length - 1]!.kv.modRevision);
    while (this.events.length - this.head > this.capacity) {
      this.from = this.events[this.head]!.kv.modRevision;
      this.head++;
    }
    if (this.head > this.capacity) {
      this.events = this.events.slice(this.head);
      this.head = 0;
    }
  }

  /** Whether a watch after `revision` can be replayed from the window. */
  covers(revision: number): boolean {
    return revision >= this.from;
  }

  /**
   * Up to `limit` events under `directory` after revision `after` (WatchHub's replay contract).
   * Throws Expired once the window no longer holds the events after `after`.
   */
  readPage(directory: string, after: number, limit: number): ReplayPage {
    if (after < this.from) throw tooOldResourceVersion(after, this.from);
    const events: StorageEvent[] = [];
    let index = this.firstAfter(after);
    let last = after;
    // A page ends between revisions, never inside one (a transaction may write several keys at one).
    for (; index < this.events.length; index++) {
      const event = this.events[index]!;
      if (events.length >= limit && event.kv.modRevision !== last) break;
      last = event.kv.modRevision;
      if (event.kv.key.startsWith(directory)) events.push(event);
    }
    const complete = index === this.events.length;
    return { events, through: complete ? Math.max(after, this.latest) : last, complete };
  }

  /** Index of the first held event with a revision above `revision` (binary search). */
  private firstAfter(revision: number): number {
    return partitionPoint(this.events, (event) => event.kv.modRevision > revision, this.head);
  }
}
