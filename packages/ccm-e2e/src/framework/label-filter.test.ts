import { describe, expect, it } from "vitest";
import { parseLabelFilter } from "./label-filter.js";

const lb = ["Feature:LoadBalancer", "Slow"];
const disruptive = ["Feature:CloudProvider", "Disruptive"];
const conformance = ["Conformance"];

describe("parseLabelFilter", () => {
  it("selects everything when empty", () => {
    expect(parseLabelFilter("  ")([])).toBe(true);
  });

  it("matches labels case-insensitively", () => {
    const filter = parseLabelFilter("feature:loadbalancer");
    expect(filter(lb)).toBe(true);
    expect(filter(conformance)).toBe(false);
  });

  it("gives && precedence over || and ,", () => {
    const filter = parseLabelFilter("Conformance || Feature:LoadBalancer && !Slow");
    expect(filter(conformance)).toBe(true);
    expect(filter(lb)).toBe(false);
    expect(filter(["Feature:LoadBalancer"])).toBe(true);
    expect(parseLabelFilter("Disruptive, Conformance")(disruptive)).toBe(true);
  });

  it("groups with parentheses and negates groups", () => {
    const filter = parseLabelFilter("!(Disruptive || Slow) && (Conformance, Feature:LoadBalancer)");
    expect(filter(conformance)).toBe(true);
    expect(filter(lb)).toBe(false);
    expect(filter(["Feature:LoadBalancer"])).toBe(true);
    expect(filter(disruptive)).toBe(false);
  });

  it("matches /regex/ against labels", () => {
    const filter = parseLabelFilter("/^feature:/ && !/load/");
    expect(filter(disruptive)).toBe(true);
    expect(filter(lb)).toBe(false);
  });

  it("reads /regex/ as Go's RE2 syntax, case-insensitively", () => {
    expect(parseLabelFilter("/(?i)^FEATURE:/")(lb)).toBe(true);
    expect(parseLabelFilter("/^\\pL+$/")(["Slow"])).toBe(true);
    expect(() => parseLabelFilter("/a(?=b)/")).toThrow(
      "bad regular expression /a(?=b)/: error parsing regexp: invalid or unsupported Perl syntax: `(?=`",
    );
  });

  it("rejects malformed filters with the reason", () => {
    expect(() => parseLabelFilter("Slow & Disruptive")).toThrow('a lone "&" at 5; write "&&"');
    expect(() => parseLabelFilter("(Slow")).toThrow("a parenthesis is not closed");
    expect(() => parseLabelFilter("Slow &&")).toThrow("ends where a label was expected");
    expect(() => parseLabelFilter("Slow)")).toThrow("unexpected text after a complete expression");
    expect(() => parseLabelFilter("/[/")).toThrow("bad regular expression");
  });
});
