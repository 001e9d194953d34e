import { once } from "node:events";
import type { Writable } from "node:stream";

/**
 * Resolves once a response's (or its socket's) write buffer drained, or once it closed (nothing more is written
 * then): what a streamed body waits for before producing its next page.
 */
export async function drainedOrClosed(res: Writable): Promise<void> {
  if (res.destroyed || !res.writableNeedDrain) return;
  const abort = new AbortController();
  try {
    await Promise.race([once(res, "drain", { signal: abort.signal }), once(res, "close", { signal: abort.signal })]);
  } finally {
    abort.abort();
  }
}
