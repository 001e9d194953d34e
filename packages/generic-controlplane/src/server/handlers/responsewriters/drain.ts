import type { Writable } from "node:stream";

/**
 * Resolves once a response's (or its socket's) write buffer drained, or once it closed (nothing more is written
 * then); rejects on its error: what a streamed body waits for before producing its next page. Plain listeners, as
 * this runs once per page of every large list: an AbortSignal for `events.once` cost an AbortError each time.
 */
export function drainedOrClosed(res: Writable): Promise<void> {
  if (res.destroyed || !res.writableNeedDrain) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const settle = (error?: Error): void => {
      res.off("drain", onDrain);
      res.off("close", onDrain);
      res.off("error", settle);
      if (error === undefined) resolve();
      else reject(error);
    };
    const onDrain = (): void => settle();
    res.on("drain", onDrain);
    res.on("close", onDrain);
    res.on("error", settle);
  });
}
