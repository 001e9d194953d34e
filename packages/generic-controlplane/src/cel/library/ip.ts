import { CelScalar, celError, celFunc, celMethod } from "@bufbuild/cel";
import {
  formatIP,
  formatPrefix,
  isGlobalUnicast,
  isLinkLocalMulticast,
  isLinkLocalUnicast,
  isLoopback,
  isUnspecified,
  maskedPrefix,
  parseIP,
  parsePrefix,
  prefixContains,
  type IPAddress,
  type IPPrefix,
} from "@kubekit/apimachinery";
import { OpaqueType } from "./opaque.js";

/**
 * Kubernetes' IP and CIDR libraries (apiserver `library/ip.go`, `library/cidr.go`): `ip()`,
 * `isIP`, `ip.isCanonical`, `family`, `isUnspecified`, `isLoopback`, `isLinkLocalMulticast`,
 * `isLinkLocalUnicast`, `isGlobalUnicast`; `cidr()`, `isCIDR`, `containsIP`, `containsCIDR`,
 * `ip`, `masked`, `prefixLength`; `string()` of either.
 */

export const ipType = new OpaqueType<IPAddress>("net.IP");
export const cidrType = new OpaqueType<IPPrefix>("net.CIDR");

/** `ip()`'s rules: netip syntax, and neither IPv4-mapped IPv6 addresses nor zones. */
function toIP(text: string): IPAddress | string {
  const ip = parseIP(text);
  if (ip === undefined) return `IP Address "${text}" parse error during conversion from string: ParseAddr("${text}"): unable to parse IP`;
  if (ip.mapped) return "IPv4-mapped IPv6 address is not allowed";
  if (ip.zone !== "") return "IP address with zone value is not allowed";
  return ip;
}

function toCIDR(text: string): IPPrefix | string {
  const prefix = parsePrefix(text);
  if (prefix === undefined)
    return `network address parse error during conversion from string: netip.ParsePrefix("${text}"): invalid prefix`;
  if (prefix.address.mapped) return "IPv4-mapped IPv6 address is not allowed";
  return prefix;
}

function wrapIP(ip: IPAddress) {
  return ipType.wrap(ip, formatIP(ip));
}

function wrapCIDR(prefix: IPPrefix) {
  return cidrType.wrap(prefix, formatPrefix(prefix));
}

function ipArgument(value: unknown): IPAddress {
  if (typeof value === "string") {
    const ip = toIP(value);
    if (typeof ip === "string") throw celError(ip);
    return ip;
  }
  return ipType.expect(value);
}

function cidrArgument(value: unknown): IPPrefix {
  if (typeof value === "string") {
    const prefix = toCIDR(value);
    if (typeof prefix === "string") throw celError(prefix);
    return prefix;
  }
  return cidrType.expect(value);
}

export const ipLibrary = [
  celFunc("ip", [CelScalar.STRING], CelScalar.DYN, (text) => wrapIP(ipArgument(text))),
  celFunc("isIP", [CelScalar.STRING], CelScalar.BOOL, (text) => typeof toIP(text) !== "string"),
  celFunc("ip.isCanonical", [CelScalar.STRING], CelScalar.BOOL, (text) => formatIP(ipArgument(text)) === text),
  celMethod("family", CelScalar.DYN, [], CelScalar.INT, function () {
    return BigInt(ipType.expect(this).family);
  }),
  celMethod("isUnspecified", CelScalar.DYN, [], CelScalar.BOOL, function () {
    return isUnspecified(ipType.expect(this));
  }),
  celMethod("isLoopback", CelScalar.DYN, [], CelScalar.BOOL, function () {
    return isLoopback(ipType.expect(this));
  }),
  celMethod("isLinkLocalMulticast", CelScalar.DYN, [], CelScalar.BOOL, function () {
    return isLinkLocalMulticast(ipType.expect(this));
  }),
  celMethod("isLinkLocalUnicast", CelScalar.DYN, [], CelScalar.BOOL, function () {
    return isLinkLocalUnicast(ipType.expect(this));
  }),
  celMethod("isGlobalUnicast", CelScalar.DYN, [], CelScalar.BOOL, function () {
    return isGlobalUnicast(ipType.expect(this));
  }),
  celFunc("cidr", [CelScalar.STRING], CelScalar.DYN, (text) => wrapCIDR(cidrArgument(text))),
  celFunc("isCIDR", [CelScalar.STRING], CelScalar.BOOL, (text) => typeof toCIDR(text) !== "string"),
  celMethod("containsIP", CelScalar.DYN, [CelScalar.DYN], CelScalar.BOOL, function (ip) {
    return prefixContains(cidrType.expect(this), ipArgument(ip));
  }),
  celMethod("containsCIDR", CelScalar.DYN, [CelScalar.DYN], CelScalar.BOOL, function (other) {
    const outer = cidrType.expect(this);
    const inner = cidrArgument(other);
    return inner.bits >= outer.bits && prefixContains(outer, inner.address);
  }),
  celMethod("ip", CelScalar.DYN, [], CelScalar.DYN, function () {
    return wrapIP(cidrType.expect(this).address);
  }),
  celMethod("masked", CelScalar.DYN, [], CelScalar.DYN, function () {
    return wrapCIDR(maskedPrefix(cidrType.expect(this)));
  }),
  celMethod("prefixLength", CelScalar.DYN, [], CelScalar.INT, function () {
    return BigInt(cidrType.expect(this).bits);
  }),
];

/** `string(ip)` and `string(cidr)`. */
export function ipText(value: unknown): string | undefined {
  const ip = ipType.unwrap(value);
  if (ip !== undefined) return formatIP(ip);
  const prefix = cidrType.unwrap(value);
  return prefix === undefined ? undefined : formatPrefix(prefix);
}
