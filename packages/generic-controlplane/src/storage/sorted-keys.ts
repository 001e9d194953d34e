import { firstAbove, firstAtOrAbove, partitionPoint } from "./sorted.js";

/** Keys per chunk a chunk is split at; a chunk under a quarter of it is merged into its neighbour. */
const DEFAULT_MAX_CHUNK = 512;

/**
 * A set of keys kept in ascending order, for range scans from any key, as a list of sorted
 * chunks (the layout of Python's sortedcontainers): adding or deleting a key moves at most one
 * chunk's worth of entries, where one sorted array of every key moves half of it (hundreds of
 * microseconds a create at tens of thousands of keys), and merging a batch of new keys in at the
 * next read copies every key whenever reads and writes alternate.
 */
export class SortedKeys {
  readonly #maxChunk: number;
  #chunks: string[][] = [];
  #size = 0;

  constructor(maxChunk = DEFAULT_MAX_CHUNK) {
    if (!Number.isInteger(maxChunk) || maxChunk < 4) throw new RangeError(`chunk size ${maxChunk} is not an integer of at least 4`);
    this.#maxChunk = maxChunk;
  }

  get size(): number {
    return this.#size;
  }

  /** Adds `key`; false when it was there already. */
  add(key: string): boolean {
    const chunks = this.#chunks;
    if (chunks.length === 0) {
      chunks.push([key]);
      this.#size = 1;
      return true;
    }
    // A key above every other goes at the end of the last chunk.
    const index = Math.min(this.#chunkFor(key), chunks.length - 1);
    const chunk = chunks[index]!;
    const at = firstAtOrAbove(chunk, key);
    if (chunk[at] === key) return false;
    chunk.splice(at, 0, key);
    this.#size++;
    if (chunk.length > this.#maxChunk) {
      const half = chunk.length >>> 1;
      chunks.splice(index, 1, chunk.slice(0, half), chunk.slice(half));
    }
    return true;
  }

  /** Deletes `key`; false when it was not there. */
  delete(key: string): boolean {
    const chunks = this.#chunks;
    const index = this.#chunkFor(key);
    const chunk = chunks[index];
    if (chunk === undefined) return false;
    const at = firstAtOrAbove(chunk, key);
    if (chunk[at] !== key) return false;
    chunk.splice(at, 1);
    this.#size--;
    if (chunk.length === 0) chunks.splice(index, 1);
    else if (chunk.length < this.#maxChunk >>> 2) this.#mergeSmall(index);
    return true;
  }

  /** The keys at or above `start` (above it, with `exclusive`), ascending. */
  *from(start: string, exclusive = false): Generator<string, void, undefined> {
    const chunks = this.#chunks;
    let index = exclusive ? this.#chunkAbove(start) : this.#chunkFor(start);
    if (index === chunks.length) return;
    // Only the first chunk starts below `start`; every later one is above it throughout.
    let at = exclusive ? firstAbove(chunks[index]!, start) : firstAtOrAbove(chunks[index]!, start);
    for (; index < chunks.length; index++, at = 0) {
      const chunk = chunks[index]!;
      for (; at < chunk.length; at++) yield chunk[at]!;
    }
  }

  clear(): void {
    this.#chunks = [];
    this.#size = 0;
  }

  /** The first chunk whose last key is at or above `key` (the chunk count when none is). */
  #chunkFor(key: string): number {
    return partitionPoint(this.#chunks, (chunk) => chunk[chunk.length - 1]! >= key);
  }

  /** The first chunk whose last key is above `key`. */
  #chunkAbove(key: string): number {
    return partitionPoint(this.#chunks, (chunk) => chunk[chunk.length - 1]! > key);
  }

  /** Joins a chunk that deletes left small with a neighbour, while the two fit in one chunk. */
  #mergeSmall(index: number): void {
    const chunks = this.#chunks;
    const neighbour = index + 1 < chunks.length ? index + 1 : index - 1;
    if (neighbour < 0) return;
    const [low, high] = neighbour > index ? [index, neighbour] : [neighbour, index];
    if (chunks[low]!.length + chunks[high]!.length > this.#maxChunk) return;
    chunks.splice(low, 2, chunks[low]!.concat(chunks[high]!));
  }
}
