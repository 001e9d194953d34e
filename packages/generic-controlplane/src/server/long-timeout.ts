/** Node fires a timer longer than 2^31-1 ms after 1 ms (with a warning), so longer waits are chained. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * `setTimeout` for any finite or infinite delay: waits of more than ~24.8 days re-arm until the
 * deadline (an infinite one never fires). Returns a function that cancels it.
 */
export function setLongTimeout(callback: () => void, delayMs: number): () => void {
  let timer: NodeJS.Timeout | undefined;
  const deadline = Date.now() + delayMs;
  const arm = (remaining: number): void => {
    if (remaining > MAX_TIMER_MS) {
      timer = setTimeout(() => arm(deadline - Date.now()), MAX_TIMER_MS);
    } else {
      timer = setTimeout(callback, Math.max(0, remaining));
    }
  };
  arm(delayMs);
  return () => clearTimeout(timer);
}
