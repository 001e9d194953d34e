import { isIP } from "node:net";
import { fieldInvalid, type FieldError } from "@kubekit/generic-controlplane/registry";
import { parseIPv4 } from "../allocators/cluster-ip.js";

/** How endpoint addresses are checked beyond their syntax. */
export interface EndpointAddressRules {
  /**
   * Accept addresses in 127.0.0.0/8. Upstream refuses them (ValidateNonSpecialIP); a cluster in
   * traffic mode gives its pods loopback addresses, so its endpoints carry them.
   */
  allowLoopback?: boolean;
}

const IPV4_LOOPBACK = parseIPv4("127.0.0.0")!;
const IPV4_LINK_LOCAL = parseIPv4("169.254.0.0")!;
const IPV4_LINK_LOCAL_MULTICAST = parseIPv4("224.0.0.0")!;

function inRange(value: number, base: number, prefix: number): boolean {
  const mask = (0xffffffff << (32 - prefix)) >>> 0;
  return (value & mask) >>> 0 === base;
}

/**
 * ValidateNonSpecialIP: an endpoint may not point at the unspecified address, loopback or
 * link-local ranges, with upstream's messages.
 */
export function validateNonSpecialIP(ip: string, field: string, rules: EndpointAddressRules = {}): FieldError[] {
  const v4 = parseIPv4(ip);
  const lower = ip.toLowerCase();
  const unspecified = v4 === 0 || lower === "::";
  const loopback = (v4 !== undefined && inRange(v4, IPV4_LOOPBACK, 8)) || lower === "::1";
  const linkLocal = (v4 !== undefined && inRange(v4, IPV4_LINK_LOCAL, 16)) || /^fe[89ab][0-9a-f]?:/.test(lower);
  const linkLocalMulticast = (v4 !== undefined && inRange(v4, IPV4_LINK_LOCAL_MULTICAST, 24)) || lower.startsWith("ff02:");
  if (unspecified) return [fieldInvalid(field, ip, "may not be unspecified (0.0.0.0, ::)")];
  if (loopback && !rules.allowLoopback) return [fieldInvalid(field, ip, "may not be in the loopback range (127.0.0.0/8, ::1/128)")];
  if (linkLocal) return [fieldInvalid(field, ip, "may not be in the link-local range (169.254.0.0/16, fe80::/10)")];
  if (linkLocalMulticast) return [fieldInvalid(field, ip, "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)")];
  return [];
}

/** The address of a core/v1 Endpoints subset: any valid IP that is not special. */
export function validateEndpointIP(ip: string, field: string, rules: EndpointAddressRules = {}): FieldError[] {
  if (isIP(ip) === 0) return [fieldInvalid(field, ip, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)")];
  return validateNonSpecialIP(ip, field, rules);
}
