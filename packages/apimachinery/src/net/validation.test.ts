// Port of k8s.io/apimachinery/pkg/util/validation/ip_test.go (TestIsValidIP, TestIsValidCIDR): the
// cases and their legacy-validation column (`legacyErr`), which is the rule Kubernetes 1.32 applies.
import { describe, expect, it } from "vitest";
import { formatIP, parseCIDRSloppy, parseIPSloppy } from "./ip.js";
import { validateCIDR, validateIP, validateIPv4Address, validateIPv6Address } from "./validation.js";

describe("validateIP (IsValidIP)", () => {
  it.each([
    "1.2.3.4",
    "0.0.0.0",
    "255.255.255.255",
    "1234::abcd",
    "::",
    "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
    "0:0:0:0:0:0:0:0",
    "0001:002:03:4::",
    "1234::ABCD",
    "1.1.1.01",
    "::ffff:1.1.1.1",
  ])("accepts %j", (value) => {
    expect(validateIP(value)).toEqual([]);
  });

  it.each([
    "",
    "aaaaaaa",
    "myhost.mydomain",
    "1.2.3.0/24",
    "1.2.3.400",
    "-1.0.0.0",
    "2001:db8::10005",
    "1.2.3.4:80",
    "[2001:db8::1]",
    "[2001:db8::1]:80",
    "example.com:80",
    "1234::abcd%eth0",
    "169.254.0.0%eth0",
  ])("refuses %j with upstream's message", (value) => {
    expect(validateIP(value)).toEqual(["must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"]);
  });
});

describe("validateCIDR (IsValidCIDR)", () => {
  it.each([
    "1.0.0.0/8",
    "0.0.0.0/0",
    "1.1.1.1/32",
    "2001:4860:4860::/48",
    "::/0",
    "::1/128",
    "2a00:79e0:2:0::/64",
    "2001:DB8::/64",
    "1.1.01.0/24",
    "::ffff:1.1.1.0/24",
    "::ffff:1.1.1.0/120",
    "1.2.3.4/24",
    "2001:db8::1/64",
    "192.168.0.0/016",
  ])("accepts %j", (value) => {
    expect(validateCIDR(value)).toEqual([]);
  });

  it.each([
    "",
    "aaaaaaa",
    "1.2.3.4",
    "192.168.0.1/healthz",
    "192.168.0.1/0/99",
    "192.168.0.0/-16",
    "192.168.0.0/+16",
    "1.2.3.0/33",
    "::/129",
  ])("refuses %j with upstream's message", (value) => {
    expect(validateCIDR(value)).toEqual(["must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)"]);
  });
});

describe("address families (IsValidIPv4Address, IsValidIPv6Address)", () => {
  it.each([
    ["1.2.3.4", true, false],
    ["010.001.002.003", true, false],
    ["::ffff:1.2.3.4", true, false],
    ["2001:db8::1", false, true],
    ["::1", false, true],
    ["1.2.3", false, false],
  ])("%j: IPv4 %s, IPv6 %s", (value, v4, v6) => {
    expect(validateIPv4Address(value)).toEqual(v4 ? [] : ["must be a valid IPv4 address"]);
    expect(validateIPv6Address(value)).toEqual(v6 ? [] : ["must be a valid IPv6 address"]);
  });
});

// k8s.io/utils/net parse_test.go: leading zeros are decimal, not octal.
describe("parseIPSloppy and parseCIDRSloppy", () => {
  it("reads leading zeros as decimal and prints the canonical form", () => {
    expect(formatIP(parseIPSloppy("010.000.000.001")!)).toBe("10.0.0.1");
    expect(formatIP(parseIPSloppy("::ffff:010.1.1.1")!)).toBe("10.1.1.1");
    expect(formatIP(parseIPSloppy("2001:DB8:0:0::1")!)).toBe("2001:db8::1");
    const cidr = parseCIDRSloppy("010.001.0.0/016")!;
    expect([formatIP(cidr.address), cidr.bits]).toEqual(["10.1.0.0", 16]);
  });
});
