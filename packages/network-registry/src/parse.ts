import { IPV6_CANONICAL, scanIPv4, scanIPv6 } from "@kubekit/apimachinery";
import ipaddr from "ipaddr.js";
import { IPAddress } from "./address.js";
import { NetworkRegistryError, type ParseRule } from "./errors.js";
import { Prefix } from "./prefix.js";
import { wordMask } from "./words.js";

/*
 * Strict parsing in two layers. The fast path reads text with apimachinery's scanner (the one
 * reader of IP text in kubekit, which yields words without allocating) and then applies KANA's
 * rule: the text must be the canonical printing of the value (four-part decimal IPv4 without
 * leading zeros; RFC 5952 IPv6; never IPv4-mapped), so that one value has one spelling in claims,
 * keys and diffs. Anything it refuses goes to the diagnosis path, which names the broken rule and
 * uses ipaddr.js's lenient reading to propose the fix (the same fix-ups Kubernetes allows on update).
 */

/** The words of the address the fast path last read. */
const words = new Uint32Array(4);

/** Whether `text[start, end)` is a canonical IPv6 address that is not IPv4-mapped (the IPv4 form is the canonical one); its value is then in `words`. */
function canonicalIPv6(text: string, start: number, end: number): boolean {
  return scanIPv6(text, start, end, words) === IPV6_CANONICAL && !(words[0] === 0 && words[1] === 0 && words[2] === 0xffff);
}

function hasColon(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (text.charCodeAt(i) === 58) return true;
  return false;
}

/** Options of {@link parseAddress} and {@link parsePrefix}. */
export interface ParseOptions {
  /**
   * Accept what Kubernetes' validation of legacy fields accepts (leading zeros read as
   * decimal, host bits, IPv4-mapped IPv6, non-RFC 5952 IPv6) and return the canonical value
   * with a warning per fix. Anything else is still an error.
   */
  lenient?: boolean;
}

/** A leniently parsed value and what was fixed to get it. */
export interface LenientParse<T> {
  value: T;
  warnings: string[];
}

/** The rules lenient parsing fixes (Kubernetes' legacy-field validation accepts these spellings). */
const LENIENT_RULES: ReadonlySet<ParseRule> = new Set<ParseRule>(["leading-zero", "host-bits-set", "ipv4-mapped", "non-canonical"]);

function isLenient(options: ParseOptions | undefined): boolean {
  // Anything but an object (such as the index Array.prototype.map passes) means strict, so `list.map(parsePrefix)` works.
  if (typeof options !== "object" || options === null) return false;
  if (options.lenient !== undefined && typeof options.lenient !== "boolean") {
    throw new NetworkRegistryError("invalid-argument", "parse options must be an object like { lenient: true }");
  }
  return options.lenient === true;
}

function lenient<T>(text: string, strict: (text: string) => T, fix: (text: string) => string | undefined): LenientParse<T> {
  try {
    return { value: strict(text), warnings: [] };
  } catch (error) {
    const rule = (error as NetworkRegistryError).rule;
    const fixed = rule !== undefined && LENIENT_RULES.has(rule) ? fix(text) : undefined;
    if (fixed === undefined) throw error;
    return { value: strict(fixed), warnings: [`${JSON.stringify(text)} is not canonical (${rule}); read as ${fixed}`] };
  }
}

/** Parse an address leniently (see {@link ParseOptions}): the canonical value plus warnings. */
export function parseAddress(text: string, options: ParseOptions & { lenient: true }): LenientParse<IPAddress>;
export function parseAddress(text: string, options: ParseOptions): IPAddress | LenientParse<IPAddress>;
/**
 * Parse a canonical IP address. Throws `invalid-address` naming the broken rule and the fix. Last, so that a callback
 * position (`texts.map(parseAddress)`) takes this signature.
 */
export function parseAddress(text: string): IPAddress;
export function parseAddress(text: string, options?: ParseOptions): IPAddress | LenientParse<IPAddress> {
  if (isLenient(options)) return lenient(text, strictAddress, fixAddress);
  return strictAddress(text);
}

function strictAddress(text: string): IPAddress {
  if (typeof text === "string") {
    const end = text.length;
    if (hasColon(text, 0, end)) {
      if (canonicalIPv6(text, 0, end)) return new IPAddress(6, words[0]!, words[1], words[2], words[3]);
    } else {
      const word = scanIPv4(text, 0, end);
      if (word >= 0) return new IPAddress(4, word);
    }
  }
  throw addressError(text);
}

/** Parse a prefix leniently (see {@link ParseOptions}): the canonical value plus warnings. */
export function parsePrefix(text: string, options: ParseOptions & { lenient: true }): LenientParse<Prefix>;
export function parsePrefix(text: string, options: ParseOptions): Prefix | LenientParse<Prefix>;
/**
 * Parse a canonical CIDR prefix. Throws `invalid-prefix` naming the broken rule and the fix. Last, so that a callback
 * position (`texts.map(parsePrefix)`) takes this signature.
 */
export function parsePrefix(text: string): Prefix;
export function parsePrefix(text: string, options?: ParseOptions): Prefix | LenientParse<Prefix> {
  if (isLenient(options)) return lenient(text, strictPrefix, fixPrefix);
  return strictPrefix(text);
}

function strictPrefix(text: string): Prefix {
  if (typeof text === "string") {
    const slash = text.indexOf("/");
    const end = text.length;
    if (slash > 0 && slash < end - 1 && slash >= end - 4) {
      let length = 0;
      let ok = true;
      for (let i = slash + 1; i < end; i++) {
        const c = text.charCodeAt(i);
        if (c < 48 || c > 57 || (i === slash + 1 && c === 48 && end - slash > 2)) {
          ok = false;
          break;
        }
        length = length * 10 + (c - 48);
      }
      if (ok) {
        if (hasColon(text, 0, slash)) {
          if (length <= 128 && canonicalIPv6(text, 0, slash)) {
            const w0 = words[0]!;
            const w1 = words[1]!;
            const w2 = words[2]!;
            const w3 = words[3]!;
            if (
              ((w0 & ~wordMask(length, 0)) | (w1 & ~wordMask(length, 1)) | (w2 & ~wordMask(length, 2)) | (w3 & ~wordMask(length, 3))) ===
              0
            ) {
              return new Prefix(6, w0, w1, w2, w3, length);
            }
          }
        } else if (length <= 32) {
          const w0 = scanIPv4(text, 0, slash);
          if (w0 >= 0 && (w0 & ~wordMask(length, 0)) === 0) return new Prefix(4, w0, 0, 0, 0, length);
        }
      }
    }
  }
  throw prefixError(text);
}

/** Parse text as a prefix, or as an address taken as a full-length prefix (`/32`, `/128`). */
export function parsePrefixOrAddress(text: string): Prefix {
  if (typeof text === "string" && !text.includes("/")) {
    const address = strictAddress(text);
    return Prefix.from(address, address.family === 4 ? 32 : 128);
  }
  return strictPrefix(text);
}

/** True when `text` is a canonical address. */
export function isCanonicalAddress(text: string): boolean {
  try {
    parseAddress(text);
    return true;
  } catch {
    return false;
  }
}

/** True when `text` is a canonical prefix. */
export function isCanonicalPrefix(text: string): boolean {
  try {
    parsePrefix(text);
    return true;
  } catch {
    return false;
  }
}

// ---------------------------------------------------------------------------------------------
// Diagnosis path: only runs for invalid input.

interface Problem {
  rule: ParseRule;
  reason: string;
}

/**
 * The canonical form of a legacy or sloppy spelling, when its meaning is unambiguous enough to
 * offer as a fix: `010.001.002.000/24` → `10.1.2.0/24`, `::ffff:192.168.0.0/112` → `192.168.0.0/16`,
 * `1.2.3.4/24` → `1.2.3.0/24`, `2001:db8::/064` → `2001:db8::/64`. Undefined when there is none.
 */
export function fixPrefix(text: string): string | undefined {
  if (typeof text !== "string") return undefined;
  const slash = text.indexOf("/");
  if (slash < 0) return undefined;
  const lengthText = text.slice(slash + 1);
  if (!/^\d+$/.test(lengthText)) return undefined;
  let length = Number.parseInt(lengthText, 10);
  const addressText = text.slice(0, slash);
  // A short IPv4 network (`10.1/16`) means what iproute2 reads: the missing octets are zero.
  const parts = addressText.split(".");
  const padded =
    !addressText.includes(":") && parts.length < 4 && parts.every((p) => /^\d+$/.test(p))
      ? [...parts, ...Array<string>(4 - parts.length).fill("0")].join(".")
      : addressText;
  const address = lenientAddress(padded);
  if (!address) return undefined;
  const fixed = address.address;
  if (address.mappedFrom6) {
    if (length < 96) return undefined;
    length -= 96;
  }
  if (length > (fixed.family === 4 ? 32 : 128)) return undefined;
  return Prefix.from(fixed, length).toString();
}

/** The canonical form of a sloppy address spelling (see {@link fixPrefix}), or undefined. */
export function fixAddress(text: string): string | undefined {
  if (typeof text !== "string") return undefined;
  return lenientAddress(text)?.address.toString();
}

function lenientAddress(text: string): { address: IPAddress; mappedFrom6: boolean } | undefined {
  if (text.includes(":")) {
    const noZone = text.split("%")[0] ?? "";
    let hexForm = noZone;
    const lastColon = noZone.lastIndexOf(":");
    const tail = noZone.slice(lastColon + 1);
    if (tail.includes(".")) {
      const v4 = lenientIPv4(tail);
      if (v4 === undefined) return undefined;
      hexForm = `${noZone.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
    }
    if (!ipaddr.IPv6.isValid(hexForm)) return undefined;
    const parts = ipaddr.IPv6.parse(hexForm).parts;
    const w = [0, 2, 4, 6].map((k) => (((parts[k] ?? 0) << 16) | (parts[k + 1] ?? 0)) >>> 0) as [number, number, number, number];
    // Only ::ffff:a.b.c.d is IPv4-mapped; ::a.b.c.d (deprecated IPv4-compatible) is the IPv6 address ::xxxx:yyyy.
    const mapped = w[0] === 0 && w[1] === 0 && w[2] === 0xffff;
    if (mapped) return { address: new IPAddress(4, w[3]), mappedFrom6: true };
    return { address: new IPAddress(6, ...w), mappedFrom6: false };
  }
  const v4 = lenientIPv4(text);
  return v4 === undefined ? undefined : { address: new IPAddress(4, v4), mappedFrom6: false };
}

/** Reads leading zeros as decimal (as Kubernetes' fix-ups do) and hex parts as hex; 1–3 parts classfully. */
function lenientIPv4(text: string): number | undefined {
  const parts = text.split(".");
  if (parts.length < 1 || parts.length > 4) return undefined;
  const values: number[] = [];
  for (const part of parts) {
    if (/^0x[0-9a-f]+$/i.test(part)) values.push(Number.parseInt(part.slice(2), 16));
    else if (/^\d+$/.test(part)) values.push(Number.parseInt(part, 10));
    else return undefined;
  }
  if (values.length === 4) {
    if (values.some((v) => v > 255)) return undefined;
    return ((values[0]! << 24) | (values[1]! << 16) | (values[2]! << 8) | values[3]!) >>> 0;
  }
  // Classful 1–3 part forms: the last part fills the remaining bytes (what inet_aton does).
  const head = values.slice(0, -1);
  const last = values[values.length - 1]!;
  if (head.some((v) => v > 255) || last >= 2 ** (8 * (4 - head.length))) return undefined;
  let value = 0;
  for (const v of head) value = value * 256 + v;
  return (value * 2 ** (8 * (4 - head.length)) + last) >>> 0;
}

function diagnoseIPv4(text: string): Problem {
  if (text === "") return { rule: "syntax", reason: "it is empty" };
  const parts = text.split(".");
  if (parts.some((p) => /^0x/i.test(p)))
    return { rule: "not-decimal", reason: "hexadecimal parts are not allowed; write each octet in decimal" };
  if (parts.some((p) => !/^\d+$/.test(p))) return { rule: "syntax", reason: "expected four decimal octets separated by dots" };
  if (parts.length !== 4) {
    return {
      rule: "not-four-parts",
      reason: `it has ${parts.length} part${parts.length === 1 ? "" : "s"}; only the four-part dotted-decimal form is allowed`,
    };
  }
  const zeroed = parts.find((p) => p.length > 1 && p.startsWith("0"));
  if (zeroed !== undefined) {
    return { rule: "leading-zero", reason: `octet "${zeroed}" has a leading zero, which some parsers read as octal` };
  }
  const big = parts.find((p) => Number(p) > 255);
  if (big !== undefined) return { rule: "octet-out-of-range", reason: `octet ${big} is larger than 255` };
  return { rule: "syntax", reason: "expected four decimal octets separated by dots" };
}

function diagnoseIPv6(text: string): Problem {
  if (text.includes("%")) return { rule: "zone-id", reason: "zone IDs (%…) are not allowed" };
  const lenient = lenientAddress(text);
  const lastColon = text.lastIndexOf(":");
  const tail = text.slice(lastColon + 1);
  if (tail.includes(".")) {
    const tailProblem = scanIPv4(tail) >= 0 ? undefined : diagnoseIPv4(tail);
    if (tailProblem) return { rule: tailProblem.rule, reason: `the embedded IPv4 part is invalid: ${tailProblem.reason}` };
  }
  if (!lenient) return { rule: "syntax", reason: "it is not an IPv6 address" };
  if (lenient.mappedFrom6) {
    return { rule: "ipv4-mapped", reason: "IPv4-mapped (and IPv4-compatible) IPv6 addresses are not allowed; use the IPv4 form" };
  }
  return { rule: "non-canonical", reason: "IPv6 must be written in RFC 5952 form (lower case, no leading zeros, longest zero run as ::)" };
}

function diagnoseAddress(text: string): Problem {
  return text.includes(":") ? diagnoseIPv6(text) : diagnoseIPv4(text);
}

function withSuggestion(message: string, suggestion: string | undefined, original: string): string {
  return suggestion !== undefined && suggestion !== original ? `${message}; did you mean ${suggestion}?` : message;
}

const WHITESPACE = /\s/;

/** The error for text with whitespace in it, suggesting the text without it when that is valid (or fixable). */
function whitespaceError(
  code: "invalid-address" | "invalid-prefix",
  text: string,
  fix: (text: string) => string | undefined,
): NetworkRegistryError {
  const compact = text.replace(/\s+/g, "");
  const suggestion = fix(compact);
  return new NetworkRegistryError(code, withSuggestion(`${JSON.stringify(text)} contains whitespace`, suggestion, text), {
    rule: "whitespace",
    ...(suggestion !== undefined ? { suggestion } : {}),
  });
}

function canonicalOrFixed<T extends { toString(): string }>(
  strict: (text: string) => T,
  fix: (text: string) => string | undefined,
): (text: string) => string | undefined {
  return (text) => {
    try {
      return strict(text).toString();
    } catch {
      return fix(text);
    }
  };
}

function addressError(input: unknown): NetworkRegistryError {
  if (typeof input !== "string") {
    return new NetworkRegistryError("invalid-address", `expected an IP address string, got ${typeof input}`, { rule: "syntax" });
  }
  const text = input;
  if (WHITESPACE.test(text)) return whitespaceError("invalid-address", text, canonicalOrFixed(strictAddress, fixAddress));
  if (text.includes("/")) {
    return new NetworkRegistryError("invalid-address", `${text} is a prefix, not an address`, { rule: "syntax" });
  }
  const problem = diagnoseAddress(text);
  const suggestion = fixAddress(text);
  return new NetworkRegistryError(
    "invalid-address",
    withSuggestion(`${text} is not a valid IP address: ${problem.reason}`, suggestion, text),
    { rule: problem.rule, ...(suggestion !== undefined && suggestion !== text ? { suggestion } : {}) },
  );
}

function prefixError(input: unknown): NetworkRegistryError {
  if (typeof input !== "string") {
    return new NetworkRegistryError("invalid-prefix", `expected a CIDR prefix string, got ${typeof input}`, { rule: "syntax" });
  }
  const text = input;
  if (WHITESPACE.test(text)) return whitespaceError("invalid-prefix", text, canonicalOrFixed(strictPrefix, fixPrefix));
  const suggestion = fixPrefix(text);
  const fail = (rule: ParseRule, message: string, fix = suggestion): NetworkRegistryError =>
    new NetworkRegistryError("invalid-prefix", withSuggestion(message, fix, text), {
      rule,
      ...(fix !== undefined && fix !== text ? { suggestion: fix } : {}),
    });
  const slash = text.indexOf("/");
  if (slash < 0) {
    const address = fixAddress(text);
    const full = address === undefined ? undefined : `${address}/${address.includes(":") ? 128 : 32}`;
    return fail("missing-length", `${text} has no prefix length`, full);
  }
  const addressText = text.slice(0, slash);
  const lengthText = text.slice(slash + 1);
  const addressOk = addressText.includes(":") ? canonicalIPv6(addressText, 0, addressText.length) : scanIPv4(addressText) >= 0;
  if (!addressOk) {
    const problem = diagnoseAddress(addressText);
    return fail(problem.rule, `${text} is not a valid prefix: ${problem.reason}`);
  }
  const family = addressText.includes(":") ? 6 : 4;
  const maxLength = family === 4 ? 32 : 128;
  if (!/^\d+$/.test(lengthText)) {
    return fail("syntax", `${text} is not a valid prefix: the length must be decimal digits only`);
  }
  if (lengthText.length > 1 && lengthText.startsWith("0")) {
    return fail("leading-zero", `${text} is not a valid prefix: the length "${lengthText}" has a leading zero`);
  }
  const length = Number.parseInt(lengthText, 10);
  if (length > maxLength) {
    return fail("length-out-of-range", `${text} is not a valid prefix: the length must be 0..${maxLength} for IPv${family}`);
  }
  return fail("host-bits-set", `${text} has host bits set`);
}

/**
 * Internal: reads a trusted table prefix, including the IPv4-mapped range `::ffff:0:0/96`
 * that user input may not use.
 */
export function parseTablePrefix(text: string): Prefix {
  const [address, length] = ipaddr.parseCIDR(text);
  if (address.kind() === "ipv4") {
    const [a, b, c, d] = address.toByteArray() as [number, number, number, number];
    return Prefix.from(new IPAddress(4, ((a << 24) | (b << 16) | (c << 8) | d) >>> 0), length);
  }
  const parts = (address as ipaddr.IPv6).parts;
  const w = [0, 2, 4, 6].map((k) => (((parts[k] ?? 0) << 16) | (parts[k + 1] ?? 0)) >>> 0) as [number, number, number, number];
  return Prefix.from(new IPAddress(6, ...w), length);
}
