import { normalizeReference } from "./records.js";
import type { ResourceReference } from "./types.js";

/*
 * What the registry stamps on the records it grants: the time (formatted once per millisecond)
 * and the frozen reference (shared by consecutive allocations for the same object), so that a
 * burst of allocations formats and copies each only once.
 */
export class RecordStamps {
  readonly #clock: () => Date;
  #lastDateMs = Number.NaN;
  #lastDate = "";
  #lastReference: ResourceReference | undefined;

  constructor(clock: () => Date) {
    this.#clock = clock;
  }

  /** Frozen copy of a reference; consecutive allocations for the same reference share one. */
  frozenReference(reference: ResourceReference): ResourceReference {
    const last = this.#lastReference;
    if (
      last !== undefined &&
      last.group === reference.group &&
      last.resource === reference.resource &&
      last.namespace === reference.namespace &&
      last.name === reference.name &&
      last.uid === reference.uid
    ) {
      return last;
    }
    this.#lastReference = Object.freeze(normalizeReference(reference));
    return this.#lastReference;
  }

  /** ISO-8601 time from the clock, formatted once per millisecond. */
  now(): string {
    const ms = this.#clock().getTime();
    if (ms !== this.#lastDateMs) {
      this.#lastDateMs = ms;
      this.#lastDate = new Date(ms).toISOString();
    }
    return this.#lastDate;
  }
}
