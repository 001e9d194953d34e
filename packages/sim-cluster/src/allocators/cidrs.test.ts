import { describe, expect, it } from "vitest";
import { nodeSubnet, podRanges, serviceRanges } from "./cidrs.js";

describe("cluster ranges", () => {
  it("reads --service-cluster-ip-range as one range or two of different families, as kube-apiserver's option validation", () => {
    const dual = serviceRanges("fd00:10:96::/112,10.96.0.0/16");
    expect([dual.clusterIPs.family, dual.secondaryClusterIPs?.family]).toEqual(["IPv6", "IPv4"]);
    expect(serviceRanges("10.96.0.0/16").secondaryClusterIPs).toBeUndefined();
    expect(() => serviceRanges("10.96.0.0/16,10.97.0.0/16")).toThrow("must be of different IP family");
    expect(() => serviceRanges("10.96.0.0/16,fd00::/64")).toThrow(
      "specified --secondary-service-cluster-ip-range is too large; for 128-bit addresses, the mask must be >= 108",
    );
    expect(() => serviceRanges("10.96.0.0/16,fd00::/112,fd01::/112")).toThrow("at most 2 CIDRs");
  });

  it("gives node n the n-th /24 of an IPv4 pod range and the n-th /64 of an IPv6 one", () => {
    expect(podRanges("10.244.0.0/16,fd00:10:244::/56")).toHaveLength(2);
    expect(nodeSubnet("10.244.0.0/16", 3)).toBe("10.244.3.0/24");
    expect(nodeSubnet("fd00:10:244::/56", 3)).toBe("fd00:10:244:3::/64");
    expect(() => podRanges("10.244.0.0/25")).toThrow("invalid pod CIDR");
    expect(() => podRanges("10.244.0.0/16,10.245.0.0/16")).toThrow("invalid pod CIDR");
  });
});
