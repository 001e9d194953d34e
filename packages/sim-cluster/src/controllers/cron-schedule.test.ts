import { describe, expect, it } from "vitest";
import { mostRecentTime, nextTime, parseSchedule, type CronSchedule } from "./cron-schedule.js";

function schedule(text: string): CronSchedule {
  const parsed = parseSchedule(text);
  if ("error" in parsed) throw new Error(parsed.error);
  return parsed;
}

const at = (iso: string) => Date.parse(iso);
const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

describe("cron schedules (robfig/cron ParseStandard)", () => {
  it("refuses what ParseStandard refuses, with its messages", () => {
    expect(parseSchedule("* * * *")).toEqual({ error: "expected exactly 5 fields, found 4: [* * * *]" });
    expect(parseSchedule("@fortnightly")).toEqual({ error: "unrecognized descriptor: @fortnightly" });
    expect(parseSchedule("0-60 * * * *")).toEqual({ error: "end of range (60) above maximum (59): 0-60" });
    expect(parseSchedule("x * * * *")).toEqual({ error: 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax' });
    expect(parseSchedule("*/0 * * * *")).toEqual({ error: "step of range should be a positive number: */0" });
  });

  it("finds the next time: steps, lists, names, descriptors", () => {
    expect(iso(nextTime(schedule("*/15 * * * *"), at("2026-03-01T10:07:30Z")))).toBe("2026-03-01T10:15:00.000Z");
    expect(iso(nextTime(schedule("@hourly"), at("2026-03-01T10:00:00Z")))).toBe("2026-03-01T11:00:00.000Z");
    expect(iso(nextTime(schedule("0 9 * JAN-MAR MON"), at("2026-03-31T10:00:00Z")))).toBe("2027-01-04T09:00:00.000Z");
    expect(iso(nextTime(schedule("30 2 1,15 * ?"), at("2026-03-01T03:00:00Z")))).toBe("2026-03-15T02:30:00.000Z");
    expect(nextTime(schedule("0 0 30 2 *"), at("2026-01-01T00:00:00Z"))).toBeUndefined();
  });

  it("ORs the day of month and day of week when both are restricted, ANDs them when one is *", () => {
    // The 13th, or any Friday.
    expect(iso(nextTime(schedule("0 0 13 * 5"), at("2026-03-01T00:00:00Z")))).toBe("2026-03-06T00:00:00.000Z");
    expect(iso(nextTime(schedule("0 0 * * 5"), at("2026-03-01T00:00:00Z")))).toBe("2026-03-06T00:00:00.000Z");
  });

  it("evaluates the schedule in a time zone", () => {
    // 09:00 in Tokyo is 00:00 UTC; in New York (EST, UTC-5 in January) 14:00 UTC.
    expect(iso(nextTime(schedule("0 9 * * *"), at("2026-01-10T12:00:00Z"), "Asia/Tokyo"))).toBe("2026-01-11T00:00:00.000Z");
    expect(iso(nextTime(schedule("0 9 * * *"), at("2026-01-10T12:00:00Z"), "America/New_York"))).toBe("2026-01-10T14:00:00.000Z");
  });

  it("finds the most recent missed time and counts the misses", () => {
    expect(mostRecentTime(schedule("*/10 * * * *"), at("2026-03-01T10:00:00Z"), at("2026-03-01T10:35:00Z"))).toEqual({
      time: at("2026-03-01T10:30:00Z"),
      missed: 3,
    });
    const many = mostRecentTime(schedule("* * * * *"), at("2026-03-01T00:00:00Z"), at("2026-03-02T00:00:30Z"));
    expect(iso(many.time)).toBe("2026-03-02T00:00:00.000Z");
    expect(many.missed).toBeGreaterThan(100);
  });
});
