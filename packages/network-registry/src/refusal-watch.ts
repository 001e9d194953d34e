import type { Prefix } from "./prefix.js";

/*
 * What can change a refused record's outcome. A refusal depends only on the grants that overlap
 * the record, its parent, and the addresses its nearest-free search visited (between the record
 * and the suggestion, or its whole search range when there is none). A new grant elsewhere cannot
 * grant it, change its blocker or its suggestion; a removed grant or a new carve-out can make a
 * nearer block free anywhere in the search range. So after a change only the refused records
 * whose watched ranges it touches are decided again.
 */

/** An address range of one family, first and last address as integers. */
export interface AddressRange {
  readonly family: 4 | 6;
  readonly first: bigint;
  readonly last: bigint;
}

export function rangeOf(prefix: Prefix): AddressRange {
  return { family: prefix.family, first: prefix.first().toBigInt(), last: prefix.last().toBigInt() };
}

/** The smallest range holding both. */
export function hull(a: AddressRange, b: AddressRange): AddressRange {
  return { family: a.family, first: a.first < b.first ? a.first : b.first, last: a.last > b.last ? a.last : b.last };
}

function touches(ranges: readonly AddressRange[], change: AddressRange): boolean {
  return ranges.some((r) => r.family === change.family && r.first <= change.last && change.first <= r.last);
}

export interface RefusalWatch {
  /** Where a new grant can change the outcome. */
  readonly added: readonly AddressRange[];
  /** Where a removed grant (or a new carve-out) can. */
  readonly freed: readonly AddressRange[];
}

export function watchTouched(watch: RefusalWatch, added: readonly AddressRange[], freed: readonly AddressRange[]): boolean {
  return added.some((change) => touches(watch.added, change)) || freed.some((change) => touches(watch.freed, change));
}
