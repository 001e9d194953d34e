import { describe, expect, it } from "vitest";
import { parseTablePrefix as parsePrefix } from "./parse.js";
import { Prefix } from "./prefix.js";
import { SpecialPurposePolicy, defaultSpecialPurposePolicy } from "./special-purpose.js";
import { IPV4_SPECIAL_PURPOSE, IPV6_SPECIAL_PURPOSE } from "./special-purpose-table.js";

const policy = defaultSpecialPurposePolicy;

/** Expected action for every range of the table; the test fails if the table and this list drift. */
const EXPECTED: Record<string, "reject" | "warn" | "allow"> = {
  "0.0.0.0/8": "reject",
  "0.0.0.0/32": "reject",
  "10.0.0.0/8": "allow",
  "100.64.0.0/10": "warn",
  "127.0.0.0/8": "reject",
  "169.254.0.0/16": "reject",
  "172.16.0.0/12": "allow",
  "192.0.0.0/24": "warn",
  "192.0.0.0/29": "warn",
  "192.0.0.8/32": "warn",
  "192.0.0.9/32": "warn",
  "192.0.0.10/32": "warn",
  "192.0.0.170/32": "warn",
  "192.0.0.171/32": "warn",
  "192.0.2.0/24": "warn",
  "192.31.196.0/24": "warn",
  "192.52.193.0/24": "warn",
  "192.88.99.0/24": "warn",
  "192.88.99.2/32": "warn",
  "192.168.0.0/16": "allow",
  "192.175.48.0/24": "warn",
  "198.18.0.0/15": "warn",
  "198.51.100.0/24": "warn",
  "203.0.113.0/24": "warn",
  "224.0.0.0/4": "reject",
  "240.0.0.0/4": "warn",
  "255.255.255.255/32": "reject",
  "::/128": "reject",
  "::1/128": "reject",
  "::/96": "reject",
  "::ffff:0:0/96": "reject",
  "64:ff9b::/96": "warn",
  "64:ff9b:1::/48": "warn",
  "100::/64": "reject",
  "100:0:0:1::/64": "reject",
  "2001::/23": "warn",
  "2001::/32": "warn",
  "2001:1::1/128": "warn",
  "2001:1::2/128": "warn",
  "2001:1::3/128": "warn",
  "2001:2::/48": "warn",
  "2001:3::/32": "warn",
  "2001:4:112::/48": "warn",
  "2001:10::/28": "warn",
  "2001:20::/28": "warn",
  "2001:30::/28": "warn",
  "2001:db8::/32": "warn",
  "2002::/16": "warn",
  "2620:4f:8000::/48": "warn",
  "3fff::/20": "warn",
  "5f00::/16": "warn",
  "fc00::/7": "allow",
  "fe80::/10": "reject",
  "fec0::/10": "warn",
  "ff00::/8": "reject",
  "2000::/3": "warn",
};

describe("IANA special-purpose policy", () => {
  const table = [...IPV4_SPECIAL_PURPOSE, ...IPV6_SPECIAL_PURPOSE];

  it("has an expected action for every range and nothing more", () => {
    expect(table.map((r) => r.prefix).sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  it.each(table.map((r) => [r.prefix, r.name, EXPECTED[r.prefix]] as const))("%s (%s) → %s", (text, name, action) => {
    const prefix = parsePrefix(text);
    expect(prefix.toString()).toBe(text); // the table itself is canonical
    const whole = policy.check(prefix);
    expect(whole.findings[0]?.range.prefix).toBe(text);
    expect(whole.findings[0]?.range.action).toBe(action);
    // The verdict is the most severe of the range and everything inside it.
    const inner = whole.findings.map((f) => f.range.action);
    expect(whole.action).toBe(inner.includes("reject") ? "reject" : inner.includes("warn") ? "warn" : "allow");
    // Longest match: the last address of a range is classified by the range itself unless a more
    // specific range holds it.
    const last = Prefix.from(prefix.last(), prefix.bits);
    const innermost = table
      .filter((r) => parsePrefix(r.prefix).contains(last))
      .sort((a, b) => parsePrefix(b.prefix).length - parsePrefix(a.prefix).length)[0];
    expect(policy.check(last).findings[0]?.range.prefix).toBe(innermost?.prefix);
    if (whole.action === action && action !== "allow") expect(whole.message).toContain(name);
  });

  it.each([
    ["8.8.8.0/24", "warn", "public space"],
    ["4000::/3", "warn", "Reserved by IETF"],
    ["0.0.0.0/0", "reject", "Loopback"],
    ["240.0.0.0/4", "reject", "Limited Broadcast"],
    ["240.0.0.0/8", "warn", "class E"],
    ["192.168.0.0/15", "warn", "public space"],
    ["10.96.0.0/12", "allow", ""],
    ["fd00:10:96::/112", "allow", ""],
    ["169.254.169.254/32", "reject", "Link Local"],
    ["2001:db8::/64", "warn", "Documentation"],
  ])("%s → %s", (text, action, reason) => {
    const verdict = policy.check(text);
    expect(verdict.action).toBe(action);
    expect(verdict.message).toContain(reason);
  });

  it("lets the caller override and extend the table", () => {
    const custom = new SpecialPurposePolicy([
      { prefix: "240.0.0.0/4", action: "allow" },
      { prefix: "10.96.0.0/12", action: "warn", name: "kubeadm default service range" },
      { prefix: "0.0.0.0/0", action: "reject" },
    ]);
    expect(custom.check("240.1.0.0/16").action).toBe("allow");
    expect(custom.check("10.96.0.0/16").message).toContain("kubeadm default service range");
    expect(custom.check("8.8.8.0/24").action).toBe("reject");
    expect(policy.check("240.1.0.0/16").action).toBe("warn");
    expect(() => new SpecialPurposePolicy([{ prefix: "10.0.0.0/8", action: "maybe" as "warn" }])).toThrow(/action must be/);
  });
});
