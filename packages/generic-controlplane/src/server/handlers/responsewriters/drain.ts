import { once } from "node:events";
import type { ServerResponse } from "node:http";

/**
 * Resolves once the response's write buffer drained, or once it closed (nothing more is written
 * then): what a streamed body waits for before producing its next page.
 */
export async function drainedOrClosed(res: ServerResponse): Promise<void> {
  if (res.destroyed || !res.writableNeedDrain) return;
  const abort = new AbortController();
  try {
    await Promise.race([once(res, "drain", { signal: abort.signal }), once(res, "close", { signal: abort.signal })]);
  } finally {
    abort.abort();
  }
}
