// Port of Go's src/net/netip/netip_test.go (TestParseAddr: its valid inputs with their String()
// output, and its invalid inputs), run against parseIP and the word scanner it reads text with.
import { describe, expect, it } from "vitest";
import { formatIP, formatPrefix, parseCIDRSloppy, parseIP, parseIPSloppy, parsePrefix } from "./ip.js";
import { formatIPv6Words, IPV6_CANONICAL, IPV6_INVALID, IPV6_VALID, scanIPv4, scanIPv6 } from "./scan.js";

describe("parseIP (netip.ParseAddr)", () => {
  it.each([
    ["0.0.0.0", "0.0.0.0"],
    ["192.168.140.255", "192.168.140.255"],
    ["::", "::"],
    ["::1", "::1"],
    ["fd7a:115c:a1e0:ab12:4843:cd96:626b:430b", "fd7a:115c:a1e0:ab12:4843:cd96:626b:430b"],
    ["fd7a:115c::626b:430b", "fd7a:115c::626b:430b"],
    ["fd7a:115c:a1e0:ab12:4843:cd96::", "fd7a:115c:a1e0:ab12:4843:cd96::"],
    ["fd7a:115c:a1e0:ab12:4843:cd96:626b::", "fd7a:115c:a1e0:ab12:4843:cd96:626b:0"],
    ["fd7a:115c:a1e0::4843:cd96:626b:430b", "fd7a:115c:a1e0:0:4843:cd96:626b:430b"],
    ["::ffff:192.168.140.255", "::ffff:192.168.140.255"],
    ["fd7a:115c:a1e0:ab12:4843:cd96:626b:430b%eth0", "fd7a:115c:a1e0:ab12:4843:cd96:626b:430b%eth0"],
    ["1:2::ffff:192.168.140.255%eth1", "1:2::ffff:c0a8:8cff%eth1"],
    ["FD9E:1A04:F01D::1", "fd9e:1a04:f01d::1"],
  ])("reads %j and prints it as %j", (text, printed) => {
    const ip = parseIP(text);
    expect(ip).toBeDefined();
    expect(formatIP(ip!)).toBe(printed);
    expect(parseIP(printed)).toEqual(ip);
  });

  it.each([
    "",
    "bad",
    "1234",
    "1.2.3.4%eth0",
    ".1.2.3",
    "1.2.3.",
    "1..2.3",
    "1.2.3.4.5",
    "0300.0250.0214.0377",
    "0xc0.0xa8.0x8c.0xff",
    "192.168.12345",
    "127.0.1",
    "192.1234567",
    "127.1",
    "192.168.300.1",
    "192.168.0.1.5.6",
    "1:2:3:4:5:6:7",
    "1:2:3:4:5:6:7:8:9",
    "1:2:3:4::5:6:7:8",
    "fe801::1",
    "fe80:tail:scal:e::",
    "fe80::1%",
    "ffff:ffff:ffff:ffff:ffff:ffff:ffff:192.168.140.255",
    "ffff::ffff:ffff:ffff:ffff:ffff:ffff:192.168.140.255",
    "::ffff:192.168.140.bad",
    "fe80::1::1",
    "fe80:1?:1",
    "fe80:",
    "010.000.015.001",
    "000001.00000002.00000003.000000004",
    "::ffff:1.2.03.4",
  ])("refuses %j", (text) => {
    expect(parseIP(text)).toBeUndefined();
  });
});

describe("the word scanner", () => {
  it("writes an IPv6 address into the caller's words, reading only the given range", () => {
    const words = new Uint32Array(4);
    expect(scanIPv6("[2001:db8::a:b]:80", 1, 14, words)).toBe(IPV6_CANONICAL);
    expect([...words]).toEqual([0x20010db8, 0, 0, 0x000a000b]);
    expect(scanIPv4("x10.1.2.255/8", 1, 11)).toBe(0x0a0102ff);
    expect(scanIPv4("255.255.255.255")).toBe(0xffffffff);
  });

  it.each([
    ["2001:db8::1", IPV6_CANONICAL],
    ["::", IPV6_CANONICAL],
    ["::ffff:1.2.3.4", IPV6_CANONICAL],
    ["1:0:0:1::", IPV6_CANONICAL],
    ["2001:DB8::1", IPV6_VALID],
    ["2001:db8:0:0::1", IPV6_VALID],
    ["2001:0db8::1", IPV6_VALID],
    ["2001:db8:0:0:1::1", IPV6_VALID],
    ["1::2:3:4:5:6:7", IPV6_VALID],
    ["::ffff:102:304", IPV6_VALID],
    ["::1.2.3.4", IPV6_VALID],
    ["2001:db8::1%eth0", IPV6_INVALID],
  ])("says whether %j is the canonical printing", (text, answer) => {
    expect(scanIPv6(text, 0, text.length, new Uint32Array(4))).toBe(answer);
  });

  it.each([
    [[0x20010db8, 0, 0, 1], "2001:db8::1"],
    [[0, 0, 0, 0], "::"],
    [[0, 0, 0, 1], "::1"],
    [[0x00010000, 0, 0x00010000, 0], "1::1:0:0:0"],
    [[0x20010db8, 0x00000001, 0, 0x00010000], "2001:db8:0:1::1:0"],
    [[0xfd7a115c, 0xa1e0ab12, 0x4843cd96, 0x626b430b], "fd7a:115c:a1e0:ab12:4843:cd96:626b:430b"],
  ])("prints the words %j as %j, which the scanner calls canonical", (words, text) => {
    const [w0, w1, w2, w3] = words as [number, number, number, number];
    expect(formatIPv6Words(w0, w1, w2, w3)).toBe(text);
    const back = new Uint32Array(4);
    expect(scanIPv6(text, 0, text.length, back)).toBe(IPV6_CANONICAL);
    expect([...back]).toEqual(words);
  });

  it("reads leading zeros as decimal only in the sloppy form", () => {
    expect(scanIPv4("010.001.0.0255")).toBe(-1);
    expect(scanIPv4("010.001.0.0255", 0, 14, "sloppy")).toBe(0x0a0100ff);
    const words = new Uint32Array(4);
    expect(scanIPv6("::ffff:010.0.0.1", 0, 16, words)).toBe(IPV6_INVALID);
    expect(scanIPv6("::ffff:010.0.0.1", 0, 16, words, "sloppy")).toBe(IPV6_VALID);
    expect([...words]).toEqual([0, 0, 0xffff, 0x0a000001]);
  });
});

describe("prefixes", () => {
  it("reads netip prefixes: no zone, no leading zero in the length, host bits kept", () => {
    expect(formatPrefix(parsePrefix("10.1.2.3/8")!)).toBe("10.1.2.3/8");
    expect(formatPrefix(parsePrefix("2001:DB8::/32")!)).toBe("2001:db8::/32");
    for (const text of ["10.0.0.0/08", "10.0.0.0/33", "::/129", "fe80::%eth0/64", "10.0.0.0/", "10.0.0.0"]) {
      expect(parsePrefix(text), text).toBeUndefined();
    }
  });

  it("reads sloppy addresses and CIDRs as k8s.io/utils/net does", () => {
    expect(formatIP(parseIPSloppy("010.0.0.1")!)).toBe("10.0.0.1");
    expect(parseIPSloppy("::ffff:1.2.3.4")).toMatchObject({ family: 4, mapped: true });
    expect(formatPrefix(parseCIDRSloppy("010.0.0.0/008")!)).toBe("10.0.0.0/8");
    expect(parseCIDRSloppy("::ffff:1.2.3.0/120")).toMatchObject({ bits: 120, address: { family: 6, mapped: true } });
  });
});
