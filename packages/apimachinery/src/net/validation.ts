import { parseCIDRSloppy, parseIPSloppy } from "./ip.js";

/**
 * k8s.io/apimachinery/pkg/util/validation's IP rules for the API's fields, with upstream's
 * messages: each returns the messages of the problems it finds (none for a valid value), for the
 * caller to attach to its field. They read values as `netutils.ParseIPSloppy` does, as Kubernetes
 * 1.32 validates every IP field.
 */

/** `IsValidIP`. */
export function validateIP(value: string): string[] {
  return parseIPSloppy(value) === undefined ? ["must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"] : [];
}

/** `IsValidIPv4Address`: an IPv4 address (an IPv4-mapped IPv6 one included, as Go's `To4` sees it). */
export function validateIPv4Address(value: string): string[] {
  return parseIPSloppy(value)?.family === 4 ? [] : ["must be a valid IPv4 address"];
}

/** `IsValidIPv6Address`: an IPv6 address that is not IPv4-mapped. */
export function validateIPv6Address(value: string): string[] {
  return parseIPSloppy(value)?.family === 6 ? [] : ["must be a valid IPv6 address"];
}

/** `IsValidCIDR`. */
export function validateCIDR(value: string): string[] {
  return parseCIDRSloppy(value) === undefined ? ["must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"] : [];
}
