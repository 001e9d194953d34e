/**
 * Scratch buffers a streamed list copies each write's bytes into, reused once the socket has taken
 * them: a list of 10,000 objects would otherwise allocate its whole size (megabytes, outside the
 * heap) anew on every request, and that allocation, with the collections it sets off, cost the
 * server more than the copy itself.
 */
const SLAB_BYTES = 1 << 20;
/**
 * Smaller writes get a buffer of their own as before: many small lists at once would otherwise each
 * hold a whole reusable buffer, and the few they keep could not be reused by the next ones.
 */
const POOLED_FROM_BYTES = 64 * 1024;
/** Free buffers kept for the next write (a few lists in flight at once); more are left to the collector. */
const KEPT_SLABS = 4;
const free: Buffer[] = [];

export interface PageBytes {
  bytes: Buffer;
  /** Hands the buffer back once the socket has taken `bytes`: call it from the write's callback, once. */
  readonly release: () => void;
}

const nothingToRelease = (): void => {};

/** One write's bytes: `parts` copied, in order, into a reused buffer when they are large and fit one. */
export function pageBytes(parts: ReadonlyArray<string | Buffer>): PageBytes {
  let length = 0;
  for (const part of parts) length += typeof part === "string" ? Buffer.byteLength(part) : part.length;
  if (length < POOLED_FROM_BYTES || length > SLAB_BYTES) {
    return { bytes: Buffer.concat(parts.map((part) => (typeof part === "string" ? Buffer.from(part) : part))), release: nothingToRelease };
  }
  const slab = free.pop() ?? Buffer.allocUnsafeSlow(SLAB_BYTES);
  let offset = 0;
  for (const part of parts) {
    if (typeof part === "string") offset += slab.write(part, offset);
    else {
      slab.set(part, offset);
      offset += part.length;
    }
  }
  let released = false;
  return {
    bytes: slab.subarray(0, offset),
    release: () => {
      if (released) return;
      released = true;
      if (free.length < KEPT_SLABS) free.push(slab);
    },
  };
}
