import { describe, expect, it } from "vitest";
import { humanDuration, timestampSince } from "./human-duration.js";

const s = 1000;
const m = 60 * s;
const h = 60 * m;
const d = 24 * h;

describe("humanDuration (apimachinery HumanDuration)", () => {
  it.each([
    [-3 * s, "<invalid>"],
    [-1 * s, "0s"],
    [0, "0s"],
    [119 * s, "119s"],
    [2 * m, "2m"],
    [9 * m + 5 * s, "9m5s"],
    [10 * m + 5 * s, "10m"],
    [179 * m, "179m"],
    [3 * h, "3h"],
    [7 * h + 30 * m, "7h30m"],
    [47 * h, "47h"],
    [2 * d, "2d"],
    [7 * d + 5 * h, "7d5h"],
    [400 * d, "400d"],
    [3 * 365 * d + 10 * d, "3y10d"],
    [9 * 365 * d, "9y"],
    [-5 * s, "<invalid>"],
    [-500, "0s"],
    [150 * s, "2m30s"],
    [10 * m, "10m"],
    [3 * h + 1 * m, "3h1m"],
    [8 * h, "8h"],
    [50 * h, "2d2h"],
    [9 * d, "9d"],
    [3 * 365 * d, "3y"],
    [3 * 365 * d + 1 * d, "3y1d"],
  ])("%i ms → %s", (ms, text) => {
    expect(humanDuration(ms)).toBe(text);
  });

  it("reports a missing timestamp as <unknown>", () => {
    expect(timestampSince(undefined)).toBe("<unknown>");
    expect(timestampSince("2024-01-01T00:00:00Z", Date.parse("2024-01-01T00:05:00Z"))).toBe("5m");
  });
});
