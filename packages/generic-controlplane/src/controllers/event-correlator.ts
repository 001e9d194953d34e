/*
 * client-go's EventCorrelator (tools/record/events_cache.go), without its spam filter: an event
 * seen before (same source, object, type, reason and message) is not written again but counted
 * on the stored one (count, lastTimestamp); once more than `maxSimilar` events with the same
 * source, object, type and reason but different messages arrive within `similarWindowMs`, they
 * are folded into one event whose message says "(combined from similar events)".
 */

/** The fields of a core/v1 Event the correlator reads and sets. */
export interface CorrelatedEvent {
  metadata: { name: string; namespace: string; resourceVersion?: string };
  involvedObject: { apiVersion?: string; kind?: string; namespace?: string; name?: string; uid?: string; fieldPath?: string };
  reason: string;
  message: string;
  type: string;
  source: { component?: string; host?: string };
  firstTimestamp: string;
  lastTimestamp: string;
  count: number;
}

/** What to write: a new Event, or (`patch` set) the stored one, counted once more. */
export interface Correlation<E extends CorrelatedEvent> {
  event: E;
  patch?: { count: number; lastTimestamp: string; message: string };
}

export interface EventCorrelatorOptions {
  /** Distinct messages of one source, object, type and reason before they are combined (client-go: 10). */
  maxSimilar?: number;
  /** How long similar messages are remembered (client-go: 10 minutes). */
  similarWindowMs?: number;
  /** Events remembered, least recently seen forgotten first (client-go: 4096). */
  maxEntries?: number;
  now?: () => number;
}

const COMBINED_PREFIX = "(combined from similar events): ";

interface Seen {
  name: string;
  resourceVersion: string | undefined;
  firstTimestamp: string;
  count: number;
}

interface Similar {
  messages: Set<string>;
  since: number;
}

/** A map that forgets its least recently used entry beyond `limit`. */
class Recent<V> {
  readonly #entries = new Map<string, V>();
  constructor(private readonly limit: number) {}
  get(key: string): V | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }
  set(key: string, value: V): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.limit) this.#entries.delete(this.#entries.keys().next().value!);
  }
}

export class EventCorrelator {
  readonly #maxSimilar: number;
  readonly #similarWindowMs: number;
  readonly #now: () => number;
  readonly #seen: Recent<Seen>;
  readonly #similar: Recent<Similar>;

  constructor(options: EventCorrelatorOptions = {}) {
    this.#maxSimilar = options.maxSimilar ?? 10;
    this.#similarWindowMs = options.similarWindowMs ?? 600_000;
    this.#now = options.now ?? Date.now;
    this.#seen = new Recent(options.maxEntries ?? 4096);
    this.#similar = new Recent(options.maxEntries ?? 4096);
  }

  /** The event to write for `event` (a new one, or a count on one written before). */
  correlate<E extends CorrelatedEvent>(event: E): Correlation<E> {
    const aggregated = this.#aggregate(event);
    const seen = this.#seen.get(keyOf(aggregated));
    if (seen === undefined) return { event: aggregated };
    const count = seen.count + 1;
    const counted = {
      ...aggregated,
      metadata: {
        ...aggregated.metadata,
        name: seen.name,
        ...(seen.resourceVersion !== undefined ? { resourceVersion: seen.resourceVersion } : {}),
      },
      firstTimestamp: seen.firstTimestamp,
      count,
    };
    return { event: counted, patch: { count, lastTimestamp: counted.lastTimestamp, message: counted.message } };
  }

  /** Records the event as the server stored it (its name, resourceVersion and count). */
  observe(stored: CorrelatedEvent): void {
    this.#seen.set(keyOf(stored), {
      name: stored.metadata.name,
      resourceVersion: stored.metadata.resourceVersion,
      firstTimestamp: stored.firstTimestamp,
      count: stored.count,
    });
  }

  #aggregate<E extends CorrelatedEvent>(event: E): E {
    const key = similarKeyOf(event);
    const now = this.#now();
    let similar = this.#similar.get(key);
    if (similar === undefined || now - similar.since > this.#similarWindowMs) similar = { messages: new Set(), since: now };
    similar.messages.add(event.message);
    this.#similar.set(key, similar);
    if (similar.messages.size < this.#maxSimilar) return event;
    // Every similar event from here on is counted on one: the key no longer holds the message.
    return { ...event, message: `${COMBINED_PREFIX}${event.message}` };
  }
}

function similarKeyOf(event: CorrelatedEvent): string {
  const o = event.involvedObject;
  return JSON.stringify([
    event.source.component ?? "",
    event.source.host ?? "",
    o.kind ?? "",
    o.namespace ?? "",
    o.name ?? "",
    o.fieldPath ?? "",
    o.uid ?? "",
    o.apiVersion ?? "",
    event.type,
    event.reason,
  ]);
}

function keyOf(event: CorrelatedEvent): string {
  const combined = event.message.startsWith(COMBINED_PREFIX);
  return JSON.stringify([similarKeyOf(event), combined ? COMBINED_PREFIX : event.message]);
}
