import { describe, expect, it } from "vitest";
import { base64ErrorOffset, canonicalBase64, canonicalTime, goTimeError } from "./wire-values.js";

const target = { kind: "Thing", version: "v1" };

describe("Go base64 decoding rules", () => {
  it.each([
    ["", undefined],
    ["YQ==", undefined],
    ["YWI=", undefined],
    ["YWJj", undefined],
    ["YW\r\nJj\n", undefined],
    ["YQ", 0],
    ["YWJjZ", 4],
    ["=", 0],
    ["YQ==\n", undefined],
    ["YQ== ", 4],
    ["YW-j", 2],
  ])("%j → %s", (text, offset) => {
    expect(base64ErrorOffset(text)).toBe(offset);
  });

  it("canonicalises and refuses non-strings", () => {
    expect(canonicalBase64("YW\nJj", target)).toBe("YWJj");
    expect(() => canonicalBase64(3, target)).toThrow(/cannot be handled as a Thing/);
  });
});

describe("metav1.Time", () => {
  it.each([
    ["2024-02-29T23:59:59Z", "2024-02-29T23:59:59Z"],
    ["2024-02-29T23:59:59.999Z", "2024-02-29T23:59:59Z"],
    ["2024-03-01T01:00:00+01:00", "2024-03-01T00:00:00Z"],
  ])("%s → %s", (input, output) => {
    expect(canonicalTime(input, target)).toBe(output);
  });

  it.each(["2023-02-29T00:00:00Z", "2024-01-01 00:00:00Z", "2024-01-01T00:00:00"])("rejects %s", (input) => {
    expect(() => canonicalTime(input, target)).toThrow(/parsing time/);
  });
});

describe("goTimeError", () => {
  it("answers the same for a time it has seen, a Time's and a MicroTime's rules kept apart", () => {
    const whole = "2024-01-02T03:04:05Z";
    for (let i = 0; i < 2; i++) {
      expect(goTimeError(whole, false)).toBeUndefined();
      expect(goTimeError(whole, true)).toContain("cannot parse");
      expect(goTimeError("2024-01-02T03:04:05.000000Z", true)).toBeUndefined();
      expect(goTimeError("2024-13-02T03:04:05Z", false)).toContain("month out of range");
    }
  });
});
