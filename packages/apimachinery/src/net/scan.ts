/**
 * The one reader of IP address text, written for hot paths: it walks the characters once and
 * yields 32-bit words, allocating nothing, so a caller that keeps addresses as words (an index, a
 * trie) never builds a byte array or a substring. `parseIP`, `parsePrefix` and the sloppy readers
 * are built on it, and so is every package that needs an address from text.
 *
 * The forms are Go's: `"strict"` is `net/netip` (four decimal IPv4 parts without leading zeros;
 * RFC 4291 IPv6 in either case, with an optional trailing dotted quad); `"sloppy"` is
 * k8s.io/utils/net's `ParseIPSloppy`, where an IPv4 part may have leading zeros, read as decimal.
 * Zones (`%eth0`) are the caller's business: the scanner reads the address before one.
 */

/** How IPv4 parts may be written: `"strict"` as Go's `net/netip`, `"sloppy"` as `netutils.ParseIPSloppy` (leading zeros read as decimal). */
export type IPTextForm = "strict" | "sloppy";

/** {@link scanIPv6}'s answer: not an address. */
export const IPV6_INVALID = 0;
/** {@link scanIPv6}'s answer: an address, written other than `formatIP` prints it. */
export const IPV6_VALID = 1;
/** {@link scanIPv6}'s answer: an address, written exactly as `formatIP` prints it (RFC 5952; `::ffff:a.b.c.d` when IPv4-mapped). */
export const IPV6_CANONICAL = 2;

export type IPv6Scan = typeof IPV6_INVALID | typeof IPV6_VALID | typeof IPV6_CANONICAL;

/**
 * The IPv4 address in `text[start, end)` as an unsigned 32-bit integer, or -1 when it is not one:
 * exactly four decimal parts of at most 255; in the strict form each part has one to three digits
 * and no leading zero.
 */
export function scanIPv4(text: string, start = 0, end = text.length, form: IPTextForm = "strict"): number {
  return form === "strict" ? scanStrictIPv4(text, start, end) : scanSloppyIPv4(text, start, end);
}

function scanStrictIPv4(text: string, start: number, end: number): number {
  let value = 0;
  let part = 0;
  let digits = 0;
  let dots = 0;
  let leadingZero = false;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      if (leadingZero) return -1;
      if (digits === 0 && c === 48) leadingZero = true;
      part = part * 10 + (c - 48);
      if (++digits > 3) return -1;
    } else if (c === 46) {
      if (digits === 0 || part > 255 || ++dots > 3) return -1;
      value = value * 256 + part;
      part = 0;
      digits = 0;
      leadingZero = false;
    } else {
      return -1;
    }
  }
  if (digits === 0 || part > 255 || dots !== 3) return -1;
  return value * 256 + part;
}

/** As {@link scanStrictIPv4}, but a part may have any number of leading zeros; only its value is bounded. */
function scanSloppyIPv4(text: string, start: number, end: number): number {
  let value = 0;
  let part = 0;
  let digits = 0;
  let dots = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c >= 48 && c <= 57) {
      part = part * 10 + (c - 48);
      if (part > 255) return -1;
      digits++;
    } else if (c === 46) {
      if (digits === 0 || ++dots > 3) return -1;
      value = value * 256 + part;
      part = 0;
      digits = 0;
    } else {
      return -1;
    }
  }
  if (digits === 0 || dots !== 3) return -1;
  return value * 256 + part;
}

/** Scratch for the groups of one IPv6 scan; the scan is synchronous, so one buffer serves every call. */
const groups = new Int32Array(8);

/**
 * Reads the IPv6 address in `text[start, end)` into `words[0..3]` (big-endian 32-bit words) and
 * says whether it is one ({@link IPV6_INVALID} when not, and `words` is then unspecified) and
 * whether the text is the canonical printing ({@link IPV6_CANONICAL}): lower case, no leading
 * zeros, the first longest run of two or more zero groups written `::`, no dotted quad except
 * in `::ffff:a.b.c.d`.
 */
export function scanIPv6(text: string, start: number, end: number, words: Uint32Array, form: IPTextForm = "strict"): IPv6Scan {
  if (end - start < 2) return IPV6_INVALID;
  let i = start;
  let count = 0;
  let compressedAt = -1;
  let plain = true; // lower case, no leading zeros, no dotted quad
  let quadAt = -1;
  if (text.charCodeAt(i) === 58) {
    if (text.charCodeAt(i + 1) !== 58) return IPV6_INVALID;
    compressedAt = 0;
    i += 2;
  }
  while (i < end) {
    const groupStart = i;
    let value = 0;
    let digits = 0;
    for (; i < end; i++) {
      const c = text.charCodeAt(i);
      let h = c - 48;
      if (h < 0 || h > 9) {
        const lower = c | 0x20;
        if (lower < 97 || lower > 102) break;
        if (lower !== c) plain = false;
        h = lower - 87;
      }
      if (++digits <= 4) value = (value << 4) | h;
    }
    if (i < end && text.charCodeAt(i) === 46) {
      // A dotted quad ends the address and fills its last two groups.
      if (count > 6) return IPV6_INVALID;
      const quad = scanIPv4(text, groupStart, end, form);
      if (quad < 0) return IPV6_INVALID;
      groups[count++] = quad >>> 16;
      groups[count++] = quad & 0xffff;
      quadAt = groupStart;
      plain = false;
      break;
    }
    if (digits === 0 || digits > 4 || count === 8) return IPV6_INVALID;
    if (digits > 1 && text.charCodeAt(groupStart) === 48) plain = false;
    groups[count++] = value;
    if (i === end) break;
    if (text.charCodeAt(i) !== 58) return IPV6_INVALID;
    i++;
    if (i < end && text.charCodeAt(i) === 58) {
      if (compressedAt >= 0) return IPV6_INVALID;
      compressedAt = count;
      i++;
    } else if (i === end) {
      return IPV6_INVALID;
    }
  }
  if (compressedAt < 0 ? count !== 8 : count > 7) return IPV6_INVALID;
  // Expand `::` in place, from the end.
  if (compressedAt >= 0) {
    const tail = count - compressedAt;
    for (let k = 0; k < tail; k++) groups[7 - k] = groups[count - 1 - k]!;
    for (let k = compressedAt; k < 8 - tail; k++) groups[k] = 0;
  }
  const w0 = ((groups[0]! << 16) | groups[1]!) >>> 0;
  const w1 = ((groups[2]! << 16) | groups[3]!) >>> 0;
  const w2 = ((groups[4]! << 16) | groups[5]!) >>> 0;
  words[0] = w0;
  words[1] = w1;
  words[2] = w2;
  words[3] = ((groups[6]! << 16) | groups[7]!) >>> 0;
  if (w0 === 0 && w1 === 0 && w2 === 0xffff) {
    // IPv4-mapped: printed as `::ffff:` and a strict dotted quad.
    const canonical = quadAt === start + 7 && text.startsWith("::ffff:", start) && (form === "strict" || scanIPv4(text, quadAt, end) >= 0);
    return canonical ? IPV6_CANONICAL : IPV6_VALID;
  }
  return plain && compressionIsCanonical(compressedAt, count) ? IPV6_CANONICAL : IPV6_VALID;
}

/** RFC 5952: `::` stands for the first longest run of two or more zero groups, and only for it. */
function compressionIsCanonical(compressedAt: number, count: number): boolean {
  const run = compressedRun(groups);
  return compressedAt < 0 ? run < 0 : run >> 4 === compressedAt && (run & 15) === 8 - count;
}

/**
 * The zero groups RFC 5952 prints as `::`: the first longest run of two or more, as
 * `start << 4 | length`, or -1 when there is none.
 */
function compressedRun(groupValues: ArrayLike<number>): number {
  let bestStart = -1;
  let bestLength = 1;
  let runStart = -1;
  for (let k = 0; k <= 8; k++) {
    if (k < 8 && groupValues[k] === 0) {
      if (runStart < 0) runStart = k;
    } else if (runStart >= 0) {
      if (k - runStart > bestLength) {
        bestStart = runStart;
        bestLength = k - runStart;
      }
      runStart = -1;
    }
  }
  return bestStart < 0 ? -1 : (bestStart << 4) | bestLength;
}

/** Scratch for printing; printing is synchronous too. */
const printed = new Int32Array(8);

/**
 * The canonical (RFC 5952) text of an IPv6 address held as four big-endian 32-bit words: lower
 * case, no leading zeros, the first longest run of two or more zero groups as `::`. What
 * `formatIP` prints for an address that is not IPv4-mapped; {@link scanIPv6} calls exactly
 * this text canonical.
 */
export function formatIPv6Words(w0: number, w1: number, w2: number, w3: number): string {
  printed[0] = w0 >>> 16;
  printed[1] = w0 & 0xffff;
  printed[2] = w1 >>> 16;
  printed[3] = w1 & 0xffff;
  printed[4] = w2 >>> 16;
  printed[5] = w2 & 0xffff;
  printed[6] = w3 >>> 16;
  printed[7] = w3 & 0xffff;
  const run = compressedRun(printed);
  const skipFrom = run < 0 ? 8 : run >> 4;
  const skipTo = run < 0 ? 8 : skipFrom + (run & 15);
  let text = "";
  for (let k = 0; k < 8; k++) {
    if (k === skipFrom) {
      text += "::";
      k = skipTo - 1;
      continue;
    }
    if (k > 0 && k !== skipTo) text += ":";
    text += printed[k]!.toString(16);
  }
  return text;
}
