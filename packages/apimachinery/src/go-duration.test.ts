import { describe, expect, it } from "vitest";
import { parseGoDuration } from "./go-duration.js";

// Cases from Go's time.TestParseDuration and its error table.
describe("parseGoDuration (Go's time.ParseDuration)", () => {
  it.each([
    ["0", 0],
    ["5s", 5000],
    ["30s", 30_000],
    ["1478s", 1_478_000],
    ["-5s", -5000],
    ["+5s", 5000],
    ["-0", 0],
    ["5.0s", 5000],
    ["5.6s", 5600],
    ["5.s", 5000],
    [".5s", 500],
    ["1.004s", 1004],
    ["100.00100s", 100_001],
    ["10ns", 10e-6],
    ["11us", 11e-3],
    ["12µs", 12e-3],
    ["13ms", 13],
    ["14s", 14_000],
    ["15m", 900_000],
    ["16h", 57_600_000],
    ["3h30m", 12_600_000],
    ["10.5s4m", 250_500],
    ["-2m3.4s", -123_400],
    ["1h2m3s4ms5us6ns", 3_723_004.005006],
    ["2562047h", 9_223_369_200_000],
  ])("reads %j as %d ms", (text, ms) => {
    expect(parseGoDuration(text)).toBeCloseTo(ms, 6);
  });

  it.each([
    ["", 'time: invalid duration ""'],
    ["3", 'time: missing unit in duration "3"'],
    ["-", 'time: invalid duration "-"'],
    ["s", 'time: invalid duration "s"'],
    [".", 'time: invalid duration "."'],
    ["-.", 'time: invalid duration "-."'],
    [".s", 'time: invalid duration ".s"'],
    ["+.s", 'time: invalid duration "+.s"'],
    ["1d", 'time: unknown unit "d" in duration "1d"'],
    ["invalid", 'time: invalid duration "invalid"'],
    ["3000000h", 'time: invalid duration "3000000h"'],
  ])("refuses %j with Go's message", (text, message) => {
    expect(() => parseGoDuration(text)).toThrow(message);
  });
});
