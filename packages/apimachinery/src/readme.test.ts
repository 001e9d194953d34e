import { describe, expect, it } from "vitest";
import { Quantity, applyMergePatch, parseGoDuration, parseLabelSelector, validateIP } from "./index.js";

// The README example's claims, checked against the sources (the consumer check runs it as published).
describe("README example", () => {
  it("prints quantities canonically and compares them across formats", () => {
    expect(Quantity.parse("1.5Gi").toString()).toBe("1536Mi");
    expect(Quantity.parse("1Gi").cmp(Quantity.parse("1024Mi"))).toBe(0);
  });

  it("matches a parsed label selector", () => {
    expect(parseLabelSelector("app=web,tier in (a,b)").matches({ app: "web", tier: "a" })).toBe(true);
  });

  it("reads Go durations in milliseconds", () => {
    expect(parseGoDuration("1m30s")).toBe(90_000);
  });

  it("words a bad IP as upstream and applies a merge patch", () => {
    expect(validateIP("10.0.0.300")).toEqual(["must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"]);
    expect(applyMergePatch({ a: 1, b: { c: 2 } }, { b: { c: null, d: 3 } })).toEqual({ a: 1, b: { d: 3 } });
  });
});
