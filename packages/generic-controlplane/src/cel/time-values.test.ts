import { describe, expect, it } from "vitest";
import { parseDuration, parseTimestamp } from "./time-values.js";

const nanos = (text: string) => {
  const d = parseDuration(text);
  return d === undefined ? undefined : d.seconds * 1_000_000_000n + BigInt(d.nanos);
};

describe("time values", () => {
  it("parses durations as Go's time.ParseDuration", () => {
    expect(nanos("0")).toBe(0n);
    expect(nanos("1h30m")).toBe(5_400_000_000_000n);
    expect(nanos("1.5s")).toBe(1_500_000_000n);
    expect(nanos("-300ms")).toBe(-300_000_000n);
    expect(nanos("2µs3ns")).toBe(2_003n);
    expect(nanos("")).toBeUndefined();
    expect(nanos("1")).toBeUndefined();
    expect(nanos("1d")).toBeUndefined();
    expect(nanos(".s")).toBeUndefined();
  });

  it("parses RFC 3339 timestamps with offsets and nanoseconds", () => {
    expect(parseTimestamp("2024-01-02T03:04:05Z")).toMatchObject({ seconds: 1704164645n, nanos: 0 });
    expect(parseTimestamp("2024-01-02T05:04:05.000000123+02:00")).toMatchObject({ seconds: 1704164645n, nanos: 123 });
    expect(parseTimestamp("2024-01-02")).toBeUndefined();
    expect(parseTimestamp("2024-13-02T03:04:05Z")).toBeUndefined();
  });
});
