import { describe, expect, it } from "vitest";
import { parseGoDuration } from "./index.js";

// The README example's claims, checked against the sources (the consumer check runs it as published).
describe("README example", () => {
  it("reads Go durations in milliseconds", () => {
    expect(parseGoDuration("1m30s")).toBe(90_000);
    expect(parseGoDuration("1.5h")).toBe(5_400_000);
  });
});
