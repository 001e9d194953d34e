import { CcmE2eError } from "../errors.js";

export interface PollOptions {
  timeoutMs: number;
  intervalMs?: number;
  signal?: AbortSignal | undefined;
}

/**
 * Calls `attempt` until it returns a value other than undefined, or fails with a `timeout` error
 * naming `what`, the deadline and the last thing `attempt` saw (its error or its own note). An
 * attempt's error is not fatal: the condition may simply not hold yet.
 */
export async function poll<T>(
  what: string,
  options: PollOptions,
  attempt: (note: (text: string) => void) => Promise<T | undefined>,
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  const interval = options.intervalMs ?? Math.min(1000, Math.max(20, options.timeoutMs / 50));
  let last = "";
  const note = (text: string) => (last = text);
  for (;;) {
    if (options.signal?.aborted) throw new CcmE2eError("interrupted", `interrupted while waiting for ${what}`);
    try {
      const value = await attempt(note);
      if (value !== undefined) return value;
    } catch (error) {
      if (error instanceof CcmE2eError && (error.code === "assertion-failed" || error.code === "interrupted")) throw error;
      last = error instanceof Error ? error.message : String(error);
    }
    const left = deadline - Date.now();
    if (left <= 0) {
      throw new CcmE2eError(
        "timeout",
        `timed out after ${formatDuration(options.timeoutMs)} waiting for ${what}${last === "" ? "" : ` (last: ${last})`}`,
      );
    }
    if (!(await sleep(Math.min(interval, left), options.signal)))
      throw new CcmE2eError("interrupted", `interrupted while waiting for ${what}`);
  }
}

/** Waits `ms`; resolves false at once if `signal` aborts first. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${ms}ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${Number(seconds.toFixed(1))}s`;
  const minutes = Math.floor(seconds / 60);
  const rest = Math.round(seconds - minutes * 60);
  return rest === 0 ? `${minutes}m` : `${minutes}m${rest}s`;
}
