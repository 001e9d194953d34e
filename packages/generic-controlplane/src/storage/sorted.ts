/**
 * The first index from `from` on whose item `isPast` holds, in a list where it holds from some
 * index to the end (a sorted list cut at a key or revision): a binary search.
 */
export function partitionPoint<T>(items: readonly T[], isPast: (item: T) => boolean, from = 0): number {
  let low = from;
  let high = items.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (isPast(items[middle]!)) high = middle;
    else low = middle + 1;
  }
  return low;
}

/** In sorted keys, the index of the first at or above `value`. */
export const firstAtOrAbove = (sorted: readonly string[], value: string): number => partitionPoint(sorted, (key) => key >= value);

/** In sorted keys, the index of the first above `value`. */
export const firstAbove = (sorted: readonly string[], value: string): number => partitionPoint(sorted, (key) => key > value);
