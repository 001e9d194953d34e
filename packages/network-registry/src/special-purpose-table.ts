/**
 * The IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890, updated by RFC 8190),
 * plus multicast, class E and the global-unicast defaults, each with the action a cluster
 * address plan should take. Classification is by longest match.
 *
 * Sources: https://www.iana.org/assignments/iana-ipv4-special-registry/ and
 * https://www.iana.org/assignments/iana-ipv6-special-registry/, including the additions of
 * RFC 9637 (3fff::/20), RFC 9602 (5f00::/16), RFC 9665 and RFC 9780. Check new registry entries
 * against the live registries when updating.
 */

/** What the registry does with a record in a range: refuse it, accept with a warning, or accept. */
export type SpecialPurposeAction = "reject" | "warn" | "allow";

export interface SpecialPurposeRange {
  readonly prefix: string;
  readonly name: string;
  readonly rfc: string;
  readonly action: SpecialPurposeAction;
}

export const IPV4_SPECIAL_PURPOSE: readonly SpecialPurposeRange[] = [
  { prefix: "0.0.0.0/8", name: "This network", rfc: "RFC 791", action: "reject" },
  { prefix: "0.0.0.0/32", name: "This host on this network", rfc: "RFC 1122", action: "reject" },
  { prefix: "10.0.0.0/8", name: "Private-Use", rfc: "RFC 1918", action: "allow" },
  { prefix: "100.64.0.0/10", name: "Shared Address Space (carrier-grade NAT)", rfc: "RFC 6598", action: "warn" },
  { prefix: "127.0.0.0/8", name: "Loopback", rfc: "RFC 1122", action: "reject" },
  { prefix: "169.254.0.0/16", name: "Link Local (includes cloud metadata 169.254.169.254)", rfc: "RFC 3927", action: "reject" },
  { prefix: "172.16.0.0/12", name: "Private-Use", rfc: "RFC 1918", action: "allow" },
  { prefix: "192.0.0.0/24", name: "IETF Protocol Assignments", rfc: "RFC 6890", action: "warn" },
  { prefix: "192.0.0.0/29", name: "IPv4 Service Continuity Prefix", rfc: "RFC 7335", action: "warn" },
  { prefix: "192.0.0.8/32", name: "IPv4 dummy address", rfc: "RFC 7600", action: "warn" },
  { prefix: "192.0.0.9/32", name: "Port Control Protocol Anycast", rfc: "RFC 7723", action: "warn" },
  { prefix: "192.0.0.10/32", name: "Traversal Using Relays around NAT Anycast", rfc: "RFC 8155", action: "warn" },
  { prefix: "192.0.0.170/32", name: "NAT64/DNS64 Discovery", rfc: "RFC 8880", action: "warn" },
  { prefix: "192.0.0.171/32", name: "NAT64/DNS64 Discovery", rfc: "RFC 8880", action: "warn" },
  { prefix: "192.0.2.0/24", name: "Documentation (TEST-NET-1)", rfc: "RFC 5737", action: "warn" },
  { prefix: "192.31.196.0/24", name: "AS112-v4", rfc: "RFC 7535", action: "warn" },
  { prefix: "192.52.193.0/24", name: "AMT", rfc: "RFC 7450", action: "warn" },
  { prefix: "192.88.99.0/24", name: "Deprecated (6to4 Relay Anycast)", rfc: "RFC 7526", action: "warn" },
  { prefix: "192.88.99.2/32", name: "6a44-relay anycast address", rfc: "RFC 6751", action: "warn" },
  { prefix: "192.168.0.0/16", name: "Private-Use", rfc: "RFC 1918", action: "allow" },
  { prefix: "192.175.48.0/24", name: "Direct Delegation AS112 Service", rfc: "RFC 7534", action: "warn" },
  { prefix: "198.18.0.0/15", name: "Benchmarking", rfc: "RFC 2544", action: "warn" },
  { prefix: "198.51.100.0/24", name: "Documentation (TEST-NET-2)", rfc: "RFC 5737", action: "warn" },
  { prefix: "203.0.113.0/24", name: "Documentation (TEST-NET-3)", rfc: "RFC 5737", action: "warn" },
  { prefix: "224.0.0.0/4", name: "Multicast", rfc: "RFC 5771", action: "reject" },
  {
    prefix: "240.0.0.0/4",
    name: "Reserved (class E; usable on some networks, but network gear may drop it)",
    rfc: "RFC 1112",
    action: "warn",
  },
  { prefix: "255.255.255.255/32", name: "Limited Broadcast", rfc: "RFC 8190", action: "reject" },
];

export const IPV6_SPECIAL_PURPOSE: readonly SpecialPurposeRange[] = [
  { prefix: "::/128", name: "Unspecified Address", rfc: "RFC 4291", action: "reject" },
  { prefix: "::1/128", name: "Loopback Address", rfc: "RFC 4291", action: "reject" },
  { prefix: "::/96", name: "Deprecated IPv4-compatible IPv6", rfc: "RFC 4291", action: "reject" },
  { prefix: "::ffff:0:0/96", name: "IPv4-mapped Address", rfc: "RFC 4291", action: "reject" },
  { prefix: "64:ff9b::/96", name: "IPv4-IPv6 Translation (NAT64 well-known)", rfc: "RFC 6052", action: "warn" },
  { prefix: "64:ff9b:1::/48", name: "IPv4-IPv6 Translation (local use)", rfc: "RFC 8215", action: "warn" },
  { prefix: "100::/64", name: "Discard-Only Address Block", rfc: "RFC 6666", action: "reject" },
  { prefix: "100:0:0:1::/64", name: "Dummy IPv6 Prefix", rfc: "RFC 9780", action: "reject" },
  { prefix: "2001::/23", name: "IETF Protocol Assignments", rfc: "RFC 2928", action: "warn" },
  { prefix: "2001::/32", name: "TEREDO", rfc: "RFC 4380", action: "warn" },
  { prefix: "2001:1::1/128", name: "Port Control Protocol Anycast", rfc: "RFC 7723", action: "warn" },
  { prefix: "2001:1::2/128", name: "Traversal Using Relays around NAT Anycast", rfc: "RFC 8155", action: "warn" },
  { prefix: "2001:1::3/128", name: "DNS-SD Service Registration Protocol Anycast", rfc: "RFC 9665", action: "warn" },
  { prefix: "2001:2::/48", name: "Benchmarking", rfc: "RFC 5180", action: "warn" },
  { prefix: "2001:3::/32", name: "AMT", rfc: "RFC 7450", action: "warn" },
  { prefix: "2001:4:112::/48", name: "AS112-v6", rfc: "RFC 7535", action: "warn" },
  { prefix: "2001:10::/28", name: "Deprecated (previously ORCHID)", rfc: "RFC 4843", action: "warn" },
  { prefix: "2001:20::/28", name: "ORCHIDv2", rfc: "RFC 7343", action: "warn" },
  { prefix: "2001:30::/28", name: "Drone Remote ID Protocol Entity Tags (DETs)", rfc: "RFC 9374", action: "warn" },
  { prefix: "2001:db8::/32", name: "Documentation", rfc: "RFC 3849", action: "warn" },
  { prefix: "2002::/16", name: "6to4", rfc: "RFC 3056", action: "warn" },
  { prefix: "2620:4f:8000::/48", name: "Direct Delegation AS112 Service", rfc: "RFC 7534", action: "warn" },
  { prefix: "3fff::/20", name: "Documentation", rfc: "RFC 9637", action: "warn" },
  { prefix: "5f00::/16", name: "Segment Routing (SRv6) SIDs", rfc: "RFC 9602", action: "warn" },
  { prefix: "fc00::/7", name: "Unique-Local", rfc: "RFC 4193", action: "allow" },
  { prefix: "fe80::/10", name: "Link-Local Unicast", rfc: "RFC 4291", action: "reject" },
  { prefix: "fec0::/10", name: "Deprecated site-local", rfc: "RFC 3879", action: "warn" },
  { prefix: "ff00::/8", name: "Multicast", rfc: "RFC 4291", action: "reject" },
  { prefix: "2000::/3", name: "Global Unicast (public space; routes here shadow Internet destinations)", rfc: "RFC 4291", action: "warn" },
];

/** What applies where no table entry matches. */
export const IPV4_DEFAULT: SpecialPurposeRange = {
  prefix: "0.0.0.0/0",
  name: "Global Unicast (public space; routes here shadow Internet destinations)",
  rfc: "RFC 791",
  action: "warn",
};
export const IPV6_DEFAULT: SpecialPurposeRange = {
  prefix: "::/0",
  name: "Reserved by IETF (unassigned IPv6 space)",
  rfc: "RFC 4291",
  action: "warn",
};
