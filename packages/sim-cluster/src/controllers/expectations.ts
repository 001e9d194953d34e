/**
 * What a controller is waiting to see in its cache after its own creates and deletes
 * (upstream's ControllerExpectations): until then, a sync would count stale pods and create or
 * delete again. Expectations lapse after `ttlMs`, in case an event was missed.
 */
export class Expectations {
  readonly #pending = new Map<string, { adds: number; deletes: Set<string>; at: number }>();
  readonly #ttlMs: number;

  constructor(ttlMs = 30_000) {
    this.#ttlMs = ttlMs;
  }

  satisfied(key: string): boolean {
    const entry = this.#pending.get(key);
    if (entry === undefined) return true;
    if ((entry.adds <= 0 && entry.deletes.size === 0) || Date.now() - entry.at > this.#ttlMs) {
      this.#pending.delete(key);
      return true;
    }
    return false;
  }

  expectCreations(key: string, count: number): void {
    this.#pending.set(key, { adds: count, deletes: new Set(), at: Date.now() });
  }

  expectDeletions(key: string, names: readonly string[]): void {
    this.#pending.set(key, { adds: 0, deletes: new Set(names), at: Date.now() });
  }

  /** Expects `adds` creations and the deletion of `deletes` at once (a sync that does both). */
  expect(key: string, adds: number, deletes: readonly string[]): void {
    this.#pending.set(key, { adds, deletes: new Set(deletes), at: Date.now() });
  }

  creationObserved(key: string): void {
    const entry = this.#pending.get(key);
    if (entry !== undefined) entry.adds--;
  }

  deletionObserved(key: string, name: string): void {
    this.#pending.get(key)?.deletes.delete(name);
  }

  forget(key: string): void {
    this.#pending.delete(key);
  }
}
