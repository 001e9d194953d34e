/*
 * Runs asynchronous work with a bounded number in flight. Every item is attempted whatever
 * happens to the others: a failure is collected, not thrown, so one bad write never holds up
 * the rest. An item's function returns false to stop starting new items (e.g. the Lease is lost).
 */

export interface BoundedOutcome {
  /** Items whose function threw, with what it threw, in start order. */
  failed: unknown[];
  /** Whether an item asked to stop before every item was started. */
  stopped: boolean;
}

export async function runBounded<T>(items: readonly T[], inFlight: number, run: (item: T) => Promise<boolean>): Promise<BoundedOutcome> {
  const failed: unknown[] = [];
  let next = 0;
  let stopped = false;
  const lane = async () => {
    while (!stopped && next < items.length) {
      const item = items[next++]!;
      try {
        if (!(await run(item))) stopped = true;
      } catch (error) {
        failed.push(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(inFlight, items.length)) }, lane));
  return { failed, stopped };
}
