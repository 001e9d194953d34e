/**
 * IP addresses and prefixes as Kubernetes reads them, implemented once: `parseIP`/`parsePrefix`
 * as Go's `net/netip` (strict dotted quads, no leading zeros, RFC 4291 IPv6 text; what CEL's
 * `ip()` and `cidr()` use), `parseIPSloppy`/`parseCIDRSloppy` as k8s.io/utils/net (Go's older
 * `net.ParseIP`/`ParseCIDR`, which read leading zeros as decimal; what legacy API fields are
 * validated with), and printing in the canonical form (RFC 5952 for IPv6). The text is read by
 * `scan.ts`, which callers that keep addresses as words use directly.
 */

import { formatIPv6Words, IPV6_INVALID, scanIPv4, scanIPv6, type IPTextForm } from "./scan.js";

export interface IPAddress {
  family: 4 | 6;
  bytes: Uint8Array;
  /** The zone of `fe80::1%eth0`; Kubernetes rejects addresses with one. */
  zone: string;
  /** Whether the text was an IPv6 address holding an IPv4 one (`::ffff:1.2.3.4`). */
  mapped: boolean;
}

/** Words of the address being read; every reader copies them out before returning. */
const words = new Uint32Array(4);

function ipv4Bytes(word: number): Uint8Array {
  const bytes = new Uint8Array(4);
  bytes[0] = word >>> 24;
  bytes[1] = word >>> 16;
  bytes[2] = word >>> 8;
  bytes[3] = word;
  return bytes;
}

function ipv6Bytes(): Uint8Array {
  const bytes = new Uint8Array(16);
  for (let k = 0; k < 4; k++) {
    const word = words[k]!;
    bytes[4 * k] = word >>> 24;
    bytes[4 * k + 1] = word >>> 16;
    bytes[4 * k + 2] = word >>> 8;
    bytes[4 * k + 3] = word;
  }
  return bytes;
}

function wordsAreMapped(): boolean {
  return words[0] === 0 && words[1] === 0 && words[2] === 0xffff;
}

/** The address in `text[0, end)` with the given zone; the family is IPv6 when the text has a colon anywhere. */
function readAddress(text: string, end: number, zone: string, colon: boolean, form: IPTextForm): IPAddress | undefined {
  if (colon) {
    if (scanIPv6(text, 0, end, words, form) === IPV6_INVALID) return undefined;
    return { family: 6, bytes: ipv6Bytes(), zone, mapped: wordsAreMapped() };
  }
  const word = scanIPv4(text, 0, end, form);
  return word < 0 ? undefined : { family: 4, bytes: ipv4Bytes(word), zone: "", mapped: false };
}

export function parseIP(text: string): IPAddress | undefined {
  if (text.includes(":")) {
    const zoneAt = text.indexOf("%");
    if (zoneAt < 0) return readAddress(text, text.length, "", true, "strict");
    if (zoneAt === text.length - 1) return undefined;
    return readAddress(text, zoneAt, text.slice(zoneAt + 1), true, "strict");
  }
  return readAddress(text, text.length, "", false, "strict");
}

/** An address as written (an IPv4-mapped IPv6 address stays IPv6), without zone; leading zeros allowed. */
function parseSloppyAsWritten(text: string, end = text.length): IPAddress | undefined {
  return readAddress(text, end, "", text.lastIndexOf(":", end - 1) >= 0, "sloppy");
}

/**
 * `netutils.ParseIPSloppy` (Go's `net.ParseIP` before 1.17): IPv4 parts may have leading zeros,
 * read as decimal (`010.0.0.1` is 10.0.0.1); no zones. An IPv4-mapped IPv6 address is the IPv4
 * address (family 4, `mapped` set), as Go's `To4` sees it.
 */
export function parseIPSloppy(text: string): IPAddress | undefined {
  const ip = parseSloppyAsWritten(text);
  if (ip?.mapped !== true) return ip;
  return { family: 4, bytes: ip.bytes.slice(12), zone: "", mapped: true };
}

/**
 * A prefix length in `text[start, end)`: decimal digits (without a leading zero unless
 * `leadingZeros`), at most `max`; -1 otherwise.
 */
function scanBits(text: string, start: number, max: number, leadingZeros: boolean): number {
  const end = text.length;
  if (start === end || (!leadingZeros && end - start > 1 && text.charCodeAt(start) === 48)) return -1;
  let bits = 0;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < 48 || c > 57) return -1;
    bits = bits * 10 + (c - 48);
    if (bits > max) return -1;
  }
  return bits;
}

/**
 * `netutils.ParseCIDRSloppy` (Go's `net.ParseCIDR` before 1.17): a sloppy address, `/`, and a
 * decimal length (leading zeros allowed) up to the address's width as written. Host bits may be set.
 */
export function parseCIDRSloppy(text: string): IPPrefix | undefined {
  const slash = text.indexOf("/");
  if (slash < 0) return undefined;
  const address = parseSloppyAsWritten(text, slash);
  if (address === undefined) return undefined;
  const bits = scanBits(text, slash + 1, address.bytes.length * 8, true);
  return bits < 0 ? undefined : { address, bits };
}

export function formatIP(ip: IPAddress): string {
  const b = ip.bytes;
  if (ip.family === 4) return b.join(".");
  if (ip.mapped) return `::ffff:${b.subarray(12).join(".")}`;
  const word = (k: number) => ((b[k]! << 24) | (b[k + 1]! << 16) | (b[k + 2]! << 8) | b[k + 3]!) >>> 0;
  const text = formatIPv6Words(word(0), word(4), word(8), word(12));
  return ip.zone === "" ? text : `${text}%${ip.zone}`;
}

function inPrefix(bytes: Uint8Array, prefix: number[], bits: number): boolean {
  for (let bit = 0; bit < bits; bit++) {
    const byte = Math.floor(bit / 8);
    const mask = 0x80 >> (bit % 8);
    if (((bytes[byte] ?? 0) & mask) !== ((prefix[byte] ?? 0) & mask)) return false;
  }
  return true;
}

export function isUnspecified(ip: IPAddress): boolean {
  return ip.bytes.every((b) => b === 0);
}
export function isLoopback(ip: IPAddress): boolean {
  return ip.family === 4 ? ip.bytes[0] === 127 : ip.bytes.slice(0, 15).every((b) => b === 0) && ip.bytes[15] === 1;
}
export function isMulticast(ip: IPAddress): boolean {
  return ip.family === 4 ? inPrefix(ip.bytes, [224], 4) : ip.bytes[0] === 0xff;
}
export function isLinkLocalMulticast(ip: IPAddress): boolean {
  return ip.family === 4 ? inPrefix(ip.bytes, [224, 0, 0], 24) : inPrefix(ip.bytes, [0xff, 0x02], 16);
}
export function isLinkLocalUnicast(ip: IPAddress): boolean {
  return ip.family === 4 ? inPrefix(ip.bytes, [169, 254], 16) : inPrefix(ip.bytes, [0xfe, 0x80], 10);
}
export function isGlobalUnicast(ip: IPAddress): boolean {
  if (ip.family === 4 && ip.bytes.every((b) => b === 255)) return false;
  return !isUnspecified(ip) && !isLoopback(ip) && !isMulticast(ip) && !isLinkLocalUnicast(ip);
}

export interface IPPrefix {
  address: IPAddress;
  bits: number;
}

export function parsePrefix(text: string): IPPrefix | undefined {
  const slash = text.lastIndexOf("/");
  if (slash < 0) return undefined;
  // A zone is not allowed in a prefix, so any `%` is refused with it.
  if (text.lastIndexOf("%", slash) >= 0) return undefined;
  const address = readAddress(text, slash, "", text.lastIndexOf(":", slash) >= 0, "strict");
  if (address === undefined) return undefined;
  const bits = scanBits(text, slash + 1, address.bytes.length * 8, false);
  return bits < 0 ? undefined : { address, bits };
}

export function maskedPrefix(prefix: IPPrefix): IPPrefix {
  const bytes = new Uint8Array(prefix.address.bytes.length);
  for (let bit = 0; bit < prefix.bits; bit++) {
    const byte = Math.floor(bit / 8);
    bytes[byte] = (bytes[byte] ?? 0) | ((prefix.address.bytes[byte] ?? 0) & (0x80 >> (bit % 8)));
  }
  return { address: { ...prefix.address, bytes }, bits: prefix.bits };
}

export function prefixContains(prefix: IPPrefix, ip: IPAddress): boolean {
  return prefix.address.family === ip.family && inPrefix(ip.bytes, [...prefix.address.bytes], prefix.bits);
}

export function formatPrefix(prefix: IPPrefix): string {
  return `${formatIP(prefix.address)}/${prefix.bits}`;
}
