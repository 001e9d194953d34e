import type { Pod } from "../resources/pods.js";
import { COMPLETION_INDEX } from "../resources/jobs.js";

/** Ordered, non-overlapping intervals of completion indexes: `[[0, 2], [5, 5]]` is "0-2,5". */
export type Intervals = Array<[number, number]>;

const INDEX = /^\d+$/;

/**
 * Parses an index list as `status.completedIndexes` and success policy rules write it ("1,3-5,7"):
 * increasing, non-overlapping, below `completions`. Returns the intervals, or what is wrong
 * (validateIndexesFormat's messages).
 */
export function parseIndexes(text: string, completions: number): Intervals | string {
  const intervals: Intervals = [];
  if (text === "") return intervals;
  let previous = -1;
  for (const part of text.split(",")) {
    const bounds = part.split("-");
    if (bounds.length > 2 || bounds.some((b) => !INDEX.test(b))) return `cannot convert string to integer for index: "${part}"`;
    const first = Number(bounds[0]);
    const last = Number(bounds[bounds.length - 1]);
    if (last >= completions) return `too large index: "${bounds[bounds.length - 1] ?? ""}"`;
    if (first > last) return `non-increasing order, previous: ${first}, current: ${last}`;
    if (first <= previous) return `non-increasing order, previous: ${previous}, current: ${first}`;
    intervals.push([first, last]);
    previous = last;
  }
  return intervals;
}

/** The set of indexes of an index list, ignoring one that does not parse (as the controller does). */
export function indexSet(text: string | undefined, completions: number): Set<number> {
  const parsed = parseIndexes(text ?? "", completions);
  const set = new Set<number>();
  if (typeof parsed === "string") return set;
  for (const [first, last] of parsed) for (let i = first; i <= last; i++) set.add(i);
  return set;
}

/** The compact form of a set of indexes ("1,3-5,7"). */
export function formatIndexes(indexes: Iterable<number>): string {
  const sorted = [...new Set(indexes)].sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j]! + 1) j++;
    parts.push(i === j ? String(sorted[i]) : j === i + 1 ? `${sorted[i]},${sorted[j]}` : `${sorted[i]}-${sorted[j]}`);
    i = j + 1;
  }
  return parts.join(",");
}

/** A pod's completion index, from its annotation (or label); undefined when it has none or a bad one. */
export function completionIndexOf(pod: Pod): number | undefined {
  const text = pod.metadata?.annotations?.[COMPLETION_INDEX] ?? pod.metadata?.labels?.[COMPLETION_INDEX];
  return text !== undefined && INDEX.test(text) ? Number(text) : undefined;
}
