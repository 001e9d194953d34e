import { ClusterIPAllocator, formatIP, parseIP, type IPFamily } from "./cluster-ip.js";

/**
 * kube-apiserver's `--service-cluster-ip-range`: one CIDR, or two of different families
 * ("v4,v6" or "v6,v4") for a dual-stack cluster, the first being the primary family. An IPv6
 * range must have a mask of at least /108, as the apiserver's option validation demands.
 */
export function serviceRanges(text: string): { clusterIPs: ClusterIPAllocator; secondaryClusterIPs?: ClusterIPAllocator } {
  const cidrs = text.split(",").map((c) => c.trim());
  if (cidrs.length > 2)
    throw new Error(
      `invalid service CIDR ${JSON.stringify(text)}: --service-cluster-ip-range can contain at most 2 CIDRs, one of each family`,
    );
  const names = ["--service-cluster-ip-range", "--secondary-service-cluster-ip-range"];
  const ranges = cidrs.map((cidr, i) => {
    const range = new ClusterIPAllocator(cidr);
    if (range.family === "IPv6" && Number(cidr.split("/")[1]) < 108)
      throw new Error(`specified ${names[i]} is too large; for 128-bit addresses, the mask must be >= 108`);
    return range;
  });
  const [clusterIPs, secondaryClusterIPs] = ranges;
  if (secondaryClusterIPs !== undefined && secondaryClusterIPs.family === clusterIPs!.family) {
    throw new Error(
      `invalid service CIDR ${JSON.stringify(text)}: --service-cluster-ip-range[0] and --service-cluster-ip-range[1] must be of different IP family`,
    );
  }
  return { clusterIPs: clusterIPs!, ...(secondaryClusterIPs !== undefined ? { secondaryClusterIPs } : {}) };
}

/** The mask size each node's range gets, as kube-controller-manager's `--node-cidr-mask-size-ipv4/-ipv6` defaults. */
const NODE_MASK: Record<IPFamily, number> = { IPv4: 24, IPv6: 64 };

/** The cluster's pod ranges (`--cluster-cidr`, "v4" or "v4,v6"), checked to hold per-node ranges. */
export function podRanges(text: string): string[] {
  const cidrs = text.split(",").map((c) => c.trim());
  const families = new Set<string>();
  for (const cidr of cidrs) {
    const [address, bits] = cidr.split("/");
    const ip = parseIP(address ?? "");
    if (ip === undefined || !/^\d+$/.test(bits ?? "") || Number(bits) > NODE_MASK[ip.family] - 8 || families.has(ip.family)) {
      throw new Error(
        `invalid pod CIDR ${JSON.stringify(text)}: want an IPv4 range of /16 or wider, optionally with an IPv6 range of /56 or wider after a comma`,
      );
    }
    families.add(ip.family);
  }
  if (cidrs.length > 2) throw new Error(`invalid pod CIDR ${JSON.stringify(text)}: at most one range of each family`);
  return cidrs;
}

/** The n-th node range of a cluster pod range: a /24 of an IPv4 range, a /64 of an IPv6 one (the node IPAM allocator's default sizes). */
export function nodeSubnet(cidr: string, index: number): string {
  const ip = parseIP(cidr.split("/")[0] ?? "")!;
  const mask = NODE_MASK[ip.family];
  const width = ip.family === "IPv4" ? 32 : 128;
  return `${formatIP({ family: ip.family, value: ip.value + (BigInt(index) << BigInt(width - mask)) })}/${mask}`;
}
