import { formatIPv4, parseIPv4 } from "../allocators/cluster-ip.js";

const LOOPBACK = parseIPv4("127.0.0.0")!;

/** Whether `ip` is an IPv4 address in 127.0.0.0/8 (Linux routes all of it to `lo`). */
export function isLoopback(ip: string): boolean {
  const value = parseIPv4(ip);
  return value !== undefined && value >>> 24 === LOOPBACK >>> 24;
}

/** Whether `cidr` lies wholly inside 127.0.0.0/8. */
export function isLoopbackCIDR(cidr: string): boolean {
  const [address, bits] = cidr.split("/");
  return isLoopback(address ?? "") && Number(bits) >= 8;
}

export interface TrafficRanges {
  podCIDR: string;
  serviceCIDR: string;
  nodeCIDR: string;
}

/**
 * Three neighbouring /16s of 127.0.0.0/8 for pods, ClusterIPs and nodes, at a random offset so
 * that clusters started side by side (parallel test files) do not bind the same addresses.
 */
export function randomTrafficRanges(random: () => number = Math.random): TrafficRanges {
  const second = 16 + 4 * Math.floor(random() * 59);
  const range = (offset: number) => `${formatIPv4((LOOPBACK + (second + offset) * 65536) >>> 0)}/16`;
  return { podCIDR: range(0), serviceCIDR: range(1), nodeCIDR: range(2) };
}

/** Throws unless every range is loopback: traffic mode binds only loopback addresses. */
export function assertLoopbackRanges(ranges: TrafficRanges): void {
  for (const [option, cidr] of Object.entries(ranges) as Array<[string, string]>) {
    if (!isLoopbackCIDR(cidr))
      throw new Error(`traffic mode binds only loopback addresses: ${option} ${JSON.stringify(cidr)} must lie in 127.0.0.0/8`);
  }
}
