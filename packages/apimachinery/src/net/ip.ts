/**
 * IP addresses and prefixes as Kubernetes reads them, implemented once: `parseIP`/`parsePrefix`
 * as Go's `net/netip` (strict dotted quads, no leading zeros, RFC 4291 IPv6 text; what CEL's
 * `ip()` and `cidr()` use), `parseIPSloppy`/`parseCIDRSloppy` as k8s.io/utils/net (Go's older
 * `net.ParseIP`/`ParseCIDR`, which read leading zeros as decimal; what legacy API fields are
 * validated with), and printing in the canonical form (RFC 5952 for IPv6).
 */

export interface IPAddress {
  family: 4 | 6;
  bytes: Uint8Array;
  /** The zone of `fe80::1%eth0`; Kubernetes rejects addresses with one. */
  zone: string;
  /** Whether the text was an IPv6 address holding an IPv4 one (`::ffff:1.2.3.4`). */
  mapped: boolean;
}

/** Whether an IPv4 part may have leading zeros (read as decimal), as Go's `net.ParseIP` before 1.17. */
type Leniency = "strict" | "sloppy";

function parseIPv4(text: string, leniency: Leniency = "strict"): Uint8Array | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  const bytes = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const part = parts[i] ?? "";
    const valid = leniency === "sloppy" ? /^[0-9]+$/.test(part) : /^[0-9]{1,3}$/.test(part) && !(part.length > 1 && part.startsWith("0"));
    if (!valid) return undefined;
    const value = Number(part);
    if (value > 255) return undefined;
    bytes[i] = value;
  }
  return bytes;
}

function parseIPv6(text: string, leniency: Leniency = "strict"): Uint8Array | undefined {
  let head = text;
  let tail: number[] = [];
  const embeddedAt = text.lastIndexOf(":");
  const last = text.slice(embeddedAt + 1);
  if (last.includes(".")) {
    const v4 = parseIPv4(last, leniency);
    if (v4 === undefined) return undefined;
    head = text.slice(0, embeddedAt + 1) + "0:0";
    tail = [...v4];
  }
  const halves = head.split("::");
  if (halves.length > 2) return undefined;
  const groups = (part: string): number[] | undefined => {
    if (part === "") return [];
    const out: number[] = [];
    for (const group of part.split(":")) {
      if (!/^[0-9a-fA-F]{1,4}$/.test(group)) return undefined;
      out.push(parseInt(group, 16));
    }
    return out;
  };
  const left = groups(halves[0] ?? "");
  const right = halves.length === 2 ? groups(halves[1] ?? "") : [];
  if (left === undefined || right === undefined) return undefined;
  const missing = 8 - left.length - right.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const all = [...left, ...Array<number>(halves.length === 2 ? missing : 0).fill(0), ...right];
  const bytes = new Uint8Array(16);
  all.forEach((group, i) => {
    bytes[2 * i] = group >> 8;
    bytes[2 * i + 1] = group & 0xff;
  });
  if (tail.length === 4) bytes.set(tail, 12);
  return bytes;
}

export function parseIP(text: string): IPAddress | undefined {
  if (text.includes(":")) {
    const zoneAt = text.indexOf("%");
    const zone = zoneAt >= 0 ? text.slice(zoneAt + 1) : "";
    if (zoneAt >= 0 && zone === "") return undefined;
    const bytes = parseIPv6(zoneAt >= 0 ? text.slice(0, zoneAt) : text);
    if (bytes === undefined) return undefined;
    return { family: 6, bytes, zone, mapped: isMapped(bytes) };
  }
  const bytes = parseIPv4(text);
  return bytes === undefined ? undefined : { family: 4, bytes, zone: "", mapped: false };
}

function isMapped(bytes: Uint8Array): boolean {
  return bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
}

/** An address as written (an IPv4-mapped IPv6 address stays IPv6), without zone; leading zeros allowed. */
function parseSloppyAsWritten(text: string): IPAddress | undefined {
  if (text.includes(":")) {
    const bytes = parseIPv6(text, "sloppy");
    return bytes === undefined ? undefined : { family: 6, bytes, zone: "", mapped: isMapped(bytes) };
  }
  const bytes = parseIPv4(text, "sloppy");
  return bytes === undefined ? undefined : { family: 4, bytes, zone: "", mapped: false };
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
 * `netutils.ParseCIDRSloppy` (Go's `net.ParseCIDR` before 1.17): a sloppy address, `/`, and a
 * decimal length (leading zeros allowed) up to the address's width as written. Host bits may be set.
 */
export function parseCIDRSloppy(text: string): IPPrefix | undefined {
  const slash = text.indexOf("/");
  if (slash < 0) return undefined;
  const address = parseSloppyAsWritten(text.slice(0, slash));
  const bitsText = text.slice(slash + 1);
  if (address === undefined || !/^[0-9]+$/.test(bitsText)) return undefined;
  const bits = Number(bitsText);
  if (bits > address.bytes.length * 8) return undefined;
  return { address, bits };
}

export function formatIP(ip: IPAddress): string {
  if (ip.family === 4) return [...ip.bytes].join(".");
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((ip.bytes[i] ?? 0) << 8) | (ip.bytes[i + 1] ?? 0));
  if (ip.mapped) return `::ffff:${[...ip.bytes.slice(12)].join(".")}`;
  // RFC 5952: compress the first longest run of two or more zero groups.
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  const text = bestStart < 0 ? hex.join(":") : `${hex.slice(0, bestStart).join(":")}::${hex.slice(bestStart + bestLength).join(":")}`;
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
  const address = parseIP(text.slice(0, slash));
  const bitsText = text.slice(slash + 1);
  if (address === undefined || address.zone !== "" || !/^(0|[1-9][0-9]*)$/.test(bitsText)) return undefined;
  const bits = Number(bitsText);
  if (bits > address.bytes.length * 8) return undefined;
  return { address, bits };
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
