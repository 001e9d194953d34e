import { watchTouched, type AddressRange, type RefusalWatch } from "./refusal-watch.js";

/*
 * The registry's refused records and the grant changes since they were last decided: which
 * records a change can affect is this file's one job (see refusal-watch.ts for why a change
 * touches only some of them); deciding them is the registry's.
 */

export interface Refusable {
  /** While refused: the ranges whose changes can change its outcome (unset: decide it at the next change). */
  watch?: RefusalWatch | undefined;
}

export class RefusedRecords<R extends Refusable> {
  readonly #records = new Set<R>();
  #added: AddressRange[] = [];
  #freed: AddressRange[] = [];

  get size(): number {
    return this.#records.size;
  }

  has(record: R): boolean {
    return this.#records.has(record);
  }

  /** A record without a grant, decided at the next change whatever it touches. */
  add(record: R): void {
    record.watch = undefined;
    this.#records.add(record);
  }

  delete(record: R): void {
    this.#records.delete(record);
  }

  /** A grant was added over this range: refusals watching it may change. */
  grantAdded(range: AddressRange): void {
    this.#added.push(range);
  }

  /** A grant was removed (or a carve-out added) over this range. */
  grantFreed(range: AddressRange): void {
    this.#freed.push(range);
  }

  /** Every refusal was just decided against the whole registry: earlier changes no longer matter. */
  forgetChanges(): void {
    this.#added = [];
    this.#freed = [];
  }

  /**
   * Adds to `candidates` the refused records the changes since the last call can affect (and
   * those never decided); whether any was added.
   */
  collect(candidates: Set<R>): boolean {
    const added = this.#added;
    const freed = this.#freed;
    this.forgetChanges();
    let found = false;
    for (const record of this.#records) {
      if (candidates.has(record)) continue;
      if (record.watch === undefined || watchTouched(record.watch, added, freed)) {
        candidates.add(record);
        found = true;
      }
    }
    return found;
  }
}
