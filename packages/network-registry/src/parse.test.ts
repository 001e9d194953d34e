import fc from "fast-check";
import ipaddr from "ipaddr.js";
import { describe, expect, it } from "vitest";
import { NetworkRegistryError } from "./errors.js";
import { fixPrefix, parseAddress, parsePrefix, parsePrefixOrAddress } from "./parse.js";

function failure(fn: () => unknown): NetworkRegistryError {
  try {
    fn();
  } catch (error) {
    if (error instanceof NetworkRegistryError) return error;
    throw error;
  }
  throw new Error("expected a NetworkRegistryError");
}

describe("parseAddress: every strictness rule", () => {
  it.each([
    // [input, rule, suggestion]
    ["010.0.0.1", "leading-zero", "10.0.0.1"],
    ["10.01.0.1", "leading-zero", "10.1.0.1"],
    ["10.1", "not-four-parts", "10.0.0.1"],
    ["10.1.2", "not-four-parts", "10.1.0.2"],
    ["167772161", "not-four-parts", "10.0.0.1"],
    ["0x0a.0.0.1", "not-decimal", "10.0.0.1"],
    ["256.0.0.1", "octet-out-of-range", undefined],
    ["1.2.3.4.5", "not-four-parts", undefined],
    ["1.2.3.", "syntax", undefined],
    ["", "syntax", undefined],
    [" 10.0.0.1", "whitespace", "10.0.0.1"],
    ["fe80::1%eth0", "zone-id", "fe80::1"],
    ["::ffff:1.2.3.4", "ipv4-mapped", "1.2.3.4"],
    ["::ffff:102:304", "ipv4-mapped", "1.2.3.4"],
    ["::1.2.3.4", "non-canonical", "::102:304"],
    ["::ffff:0177.0.0.1", "leading-zero", "177.0.0.1"],
    ["2001:DB8::1", "non-canonical", "2001:db8::1"],
    ["2001:db8:0:0:1:0:0:1", "non-canonical", "2001:db8::1:0:0:1"],
    ["2001:0db8::1", "non-canonical", "2001:db8::1"],
    ["2001:db8::0:1", "non-canonical", "2001:db8::1"],
    ["2001:db8:0::1", "non-canonical", "2001:db8::1"],
    ["1:0:0:0:1::1", "non-canonical", "1::1:0:0:1"],
    ["2001:db8::1:0:0:0", "non-canonical", "2001:db8:0:0:1::"],
    ["64:ff9b::192.0.2.1", "non-canonical", "64:ff9b::c000:201"],
    ["2001:db8:::1", "syntax", undefined],
    ["2001:db8::1::2", "syntax", undefined],
    ["1:2:3:4:5:6:7:8:9", "syntax", undefined],
    ["12345::1", "syntax", undefined],
    ["2001:db8::g", "syntax", undefined],
  ])("%s breaks rule %s", (input, rule, suggestion) => {
    const error = failure(() => parseAddress(input));
    expect(error.code).toBe("invalid-address");
    expect(error.rule).toBe(rule);
    expect(error.suggestion).toBe(suggestion);
    expect(error.message).toContain(input);
    if (suggestion !== undefined) expect(error.message).toContain(`did you mean ${suggestion}?`);
  });

  it.each([
    ["0.0.0.0", "0.0.0.0"],
    ["10.0.0.1", "10.0.0.1"],
    ["255.255.255.255", "255.255.255.255"],
    ["::", "::"],
    ["::1", "::1"],
    ["1::", "1::"],
    ["2001:db8::1", "2001:db8::1"],
    ["2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"],
    ["2001:0:0:1::1", "2001:0:0:1::1"],
    ["fe80::1", "fe80::1"],
  ])("accepts canonical %s", (input, expected) => {
    expect(parseAddress(input).toString()).toBe(expected);
  });

  it("rejects a prefix where an address is expected", () => {
    expect(failure(() => parseAddress("10.0.0.0/8")).code).toBe("invalid-address");
  });

  it("round-trips every IPv4 address and agrees with ipaddr.js", () => {
    fc.assert(
      fc.property(fc.nat({ max: 0xffffffff }), (value) => {
        const text = ipaddr.fromByteArray([value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255]).toString();
        const parsed = parseAddress(text);
        expect(parsed.family).toBe(4);
        expect(parsed.w0).toBe(value);
        expect(parsed.toString()).toBe(text);
      }),
      { numRuns: 300 },
    );
  });

  it("prints IPv6 exactly as ipaddr.js's RFC 5952 form and parses it back", () => {
    const group = fc.oneof(fc.constant(0), fc.constant(0), fc.integer({ min: 0, max: 0xffff }));
    fc.assert(
      fc.property(fc.array(group, { minLength: 8, maxLength: 8 }), (parts) => {
        const reference = new ipaddr.IPv6(parts);
        if (reference.isIPv4MappedAddress()) return;
        const text = reference.toRFC5952String();
        const parsed = parseAddress(text);
        expect(parsed.toString()).toBe(text);
        expect(parsed.toBigInt()).toBe(parts.reduce((acc, p) => (acc << 16n) | BigInt(p), 0n));
        // The non-compressed spelling is valid IPv6 but not canonical.
        const long = reference.toNormalizedString();
        if (long !== text) expect(failure(() => parseAddress(long)).rule).toBe("non-canonical");
      }),
      { numRuns: 300 },
    );
  });
});

describe("parsePrefix: every strictness rule", () => {
  it.each([
    ["10.0.0.1/24", "host-bits-set", "10.0.0.0/24"],
    ["2001:db8::1/64", "host-bits-set", "2001:db8::/64"],
    ["10.0.0.0/024", "leading-zero", "10.0.0.0/24"],
    ["2001:db8::/064", "leading-zero", "2001:db8::/64"],
    ["010.001.002.000/24", "leading-zero", "10.1.2.0/24"],
    ["::ffff:192.168.0.0/112", "ipv4-mapped", "192.168.0.0/16"],
    ["10.0.0.0/33", "length-out-of-range", undefined],
    ["2001:db8::/129", "length-out-of-range", undefined],
    ["10.0.0.0/+8", "syntax", undefined],
    ["10.0.0.0/", "syntax", undefined],
    ["10.0.0.0/8/8", "syntax", undefined],
    ["10.0.0.0", "missing-length", "10.0.0.0/32"],
    ["2001:db8::", "missing-length", "2001:db8::/128"],
    ["10.1/16", "not-four-parts", "10.1.0.0/16"],
    ["192.168/16", "not-four-parts", "192.168.0.0/16"],
    [" 10.0.0.0/8", "whitespace", "10.0.0.0/8"],
    ["10.0.0.0 /8", "whitespace", "10.0.0.0/8"],
    ["0x0a.0.0.0/8", "not-decimal", "10.0.0.0/8"],
    ["fe80::%eth0/64", "zone-id", "fe80::/64"],
    ["2001:DB8::/32", "non-canonical", "2001:db8::/32"],
  ])("%s breaks rule %s", (input, rule, suggestion) => {
    const error = failure(() => parsePrefix(input));
    expect(error.code).toBe("invalid-prefix");
    expect(error.rule).toBe(rule);
    expect(error.suggestion).toBe(suggestion);
    if (suggestion !== undefined) expect(error.message).toContain(`did you mean ${suggestion}?`);
  });

  it("says whitespace when there is whitespace", () => {
    expect(() => parsePrefix("10.0.0.0/8 ")).toThrow('"10.0.0.0/8 " contains whitespace; did you mean 10.0.0.0/8?');
    expect(() => parseAddress("\t10.0.0.1")).toThrow(/contains whitespace/);
    expect(() => parseAddress("10.0.0.1\n")).toThrow(/contains whitespace; did you mean 10.0.0.1\?/);
  });

  it("explains host bits the way users expect", () => {
    expect(() => parsePrefix("10.0.0.1/24")).toThrow("10.0.0.1/24 has host bits set; did you mean 10.0.0.0/24?");
  });

  it.each([["0.0.0.0/0"], ["10.0.0.0/8"], ["10.1.2.3/32"], ["::/0"], ["2001:db8::/32"], ["fd00:1:2:3::/64"], ["::1/128"]])(
    "accepts canonical %s",
    (text) => {
      expect(parsePrefix(text).toString()).toBe(text);
    },
  );

  it("parsePrefixOrAddress takes a bare address as a full-length prefix", () => {
    expect(parsePrefixOrAddress("10.1.2.3").toString()).toBe("10.1.2.3/32");
    expect(parsePrefixOrAddress("2001:db8::1").toString()).toBe("2001:db8::1/128");
    expect(parsePrefixOrAddress("10.0.0.0/8").toString()).toBe("10.0.0.0/8");
  });

  it("offers the Kubernetes update fix-ups", () => {
    expect(fixPrefix("010.001.002.000/24")).toBe("10.1.2.0/24");
    expect(fixPrefix("::ffff:192.168.0.0/112")).toBe("192.168.0.0/16");
    expect(fixPrefix("1.2.3.4/24")).toBe("1.2.3.0/24");
    expect(fixPrefix("2001:db8::/064")).toBe("2001:db8::/64");
    expect(fixPrefix("not an address/8")).toBeUndefined();
  });

  it("agrees with ipaddr.js on which IPv4 prefixes are canonical", () => {
    fc.assert(
      fc.property(fc.nat({ max: 0xffffffff }), fc.integer({ min: 0, max: 32 }), (value, length) => {
        const address = ipaddr.fromByteArray([value >>> 24, (value >>> 16) & 255, (value >>> 8) & 255, value & 255]).toString();
        const text = `${address}/${length}`;
        const network = ipaddr.IPv4.networkAddressFromCIDR(text).toString();
        if (network === address) expect(parsePrefix(text).toString()).toBe(text);
        else expect(failure(() => parsePrefix(text)).suggestion).toBe(`${network}/${length}`);
      }),
      { numRuns: 300 },
    );
  });
});

describe("lenient parsing for importing existing configuration", () => {
  it.each([
    ["10.0.0.1/24", "10.0.0.0/24", "host-bits-set"],
    ["010.001.002.000/24", "10.1.2.0/24", "leading-zero"],
    ["10.0.0.0/024", "10.0.0.0/24", "leading-zero"],
    ["::ffff:192.168.0.0/112", "192.168.0.0/16", "ipv4-mapped"],
    ["2001:DB8::/32", "2001:db8::/32", "non-canonical"],
  ])("reads %s as %s with a warning", (input, value, rule) => {
    const result = parsePrefix(input, { lenient: true });
    expect(result.value.toString()).toBe(value);
    expect(result.warnings).toEqual([`${JSON.stringify(input)} is not canonical (${rule}); read as ${value}`]);
  });

  it("returns canonical input without warnings", () => {
    expect(parsePrefix("10.0.0.0/8", { lenient: true })).toEqual({ value: parsePrefix("10.0.0.0/8"), warnings: [] });
    expect(parseAddress("010.0.0.1", { lenient: true }).value.toString()).toBe("10.0.0.1");
  });

  it.each([
    ["10.1/16", "not-four-parts"],
    ["0x0a.0.0.0/8", "not-decimal"],
    ["fe80::%eth0/64", "zone-id"],
    [" 10.0.0.0/8", "whitespace"],
    ["10.0.0.0/33", "length-out-of-range"],
  ])("still refuses %s (%s), which Kubernetes' legacy validation refuses too", (input, rule) => {
    const error = failure(() => parsePrefix(input, { lenient: true }));
    expect(error.rule).toBe(rule);
  });

  it("stays strict when mapped over a list (the index is not an options object)", () => {
    expect(["10.0.0.0/8", "fd00::/64"].map(parsePrefix).map(String)).toEqual(["10.0.0.0/8", "fd00::/64"]);
    expect(["10.0.0.1"].map(parseAddress).map(String)).toEqual(["10.0.0.1"]);
  });

  it("validates its options", () => {
    expect(failure(() => parsePrefix("10.0.0.0/8", { lenient: "yes" } as unknown as { lenient: true })).code).toBe("invalid-argument");
  });
});
