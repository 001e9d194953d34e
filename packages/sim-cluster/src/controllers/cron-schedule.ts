/**
 * Cron schedules as the CronJob controller reads them (robfig/cron's ParseStandard): five fields
 * (minute, hour, day of month, month, day of week) of `*`, `?`, numbers, names (JAN-DEC,
 * SUN-SAT), ranges, lists and steps, or a descriptor (`@yearly`, `@annually`, `@monthly`,
 * `@weekly`, `@daily`, `@midnight`, `@hourly`), evaluated in a time zone. The day of month and
 * day of week are ANDed when either is `*`, else ORed, as cron does. No cron library on npm
 * follows these rules exactly (the day rule, `?`, the error texts upstream's validation shows),
 * so they are written out here.
 */
export interface CronSchedule {
  minute: Set<number>;
  hour: Set<number>;
  dayOfMonth: Set<number>;
  month: Set<number>;
  dayOfWeek: Set<number>;
  /** Either day field was `*` (or `?`): the days are ANDed. */
  anyDay: boolean;
}

const DESCRIPTORS: Record<string, string> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];
const DAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];

interface Bounds {
  min: number;
  max: number;
  names?: readonly string[];
  namesFrom?: number;
}

const FIELDS: Bounds[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  { min: 1, max: 12, names: MONTHS, namesFrom: 1 },
  { min: 0, max: 6, names: DAYS, namesFrom: 0 },
];

/** Parses a standard schedule; the error text is robfig/cron's. */
export function parseSchedule(text: string): CronSchedule | { error: string } {
  let spec = text.trim();
  if (spec.startsWith("@")) {
    if (!Object.hasOwn(DESCRIPTORS, spec)) return { error: `unrecognized descriptor: ${spec}` };
    spec = DESCRIPTORS[spec]!;
  }
  const fields = spec.split(/\s+/).filter((f) => f !== "");
  if (fields.length !== 5) return { error: `expected exactly 5 fields, found ${fields.length}: [${fields.join(" ")}]` };
  const sets: Array<Set<number>> = [];
  let anyDay = false;
  for (const [i, field] of fields.entries()) {
    const bounds = FIELDS[i]!;
    const parsed = parseField(field, bounds);
    if (typeof parsed === "string") return { error: parsed };
    if ((i === 2 || i === 4) && (field === "*" || field === "?")) anyDay = true;
    sets.push(parsed);
  }
  return { minute: sets[0]!, hour: sets[1]!, dayOfMonth: sets[2]!, month: sets[3]!, dayOfWeek: sets[4]!, anyDay };
}

function parseValue(text: string, bounds: Bounds): number | string {
  const lower = text.toLowerCase();
  const named = bounds.names?.indexOf(lower) ?? -1;
  if (named >= 0) return named + (bounds.namesFrom ?? 0);
  if (!/^\d+$/.test(text)) return `failed to parse int from ${text}: strconv.Atoi: parsing "${text}": invalid syntax`;
  return Number(text);
}

function parseField(field: string, bounds: Bounds): Set<number> | string {
  const values = new Set<number>();
  for (const part of field.split(",")) {
    const [range = "", stepText, extra] = part.split("/");
    if (extra !== undefined) return `too many slashes: ${part}`;
    let start: number;
    let end: number;
    if (range === "*" || range === "?") {
      start = bounds.min;
      end = bounds.max;
    } else {
      const [low = "", high, more] = range.split("-");
      if (more !== undefined) return `too many hyphens: ${range}`;
      const a = parseValue(low, bounds);
      if (typeof a === "string") return a;
      start = a;
      if (high === undefined) end = stepText === undefined ? a : bounds.max;
      else {
        const b = parseValue(high, bounds);
        if (typeof b === "string") return b;
        end = b;
      }
    }
    let step = 1;
    if (stepText !== undefined) {
      const s = parseValue(stepText, { min: 0, max: Number.MAX_SAFE_INTEGER });
      if (typeof s === "string") return s;
      if (s === 0) return `step of range should be a positive number: ${part}`;
      step = s;
    }
    if (start < bounds.min) return `beginning of range (${start}) below minimum (${bounds.min}): ${part}`;
    if (end > bounds.max) return `end of range (${end}) above maximum (${bounds.max}): ${part}`;
    if (start > end) return `beginning of range (${start}) beyond end of range (${end}): ${part}`;
    for (let v = start; v <= end; v += step) values.add(v);
  }
  return values;
}

/** Whether a time zone name is one the runtime knows (IANA names, and UTC). */
export function isKnownTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The wall clock in `zone` at `ms`. */
export function wallClock(
  ms: number,
  zone: string,
): { year: number; month: number; day: number; hour: number; minute: number; weekday: number } {
  let formatter = formatters.get(zone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      weekday: "short",
    });
    formatters.set(zone, formatter);
  }
  const parts: Record<string, string> = {};
  for (const part of formatter.formatToParts(ms)) parts[part.type] = part.value;
  return {
    year: Number(parts["year"]),
    month: Number(parts["month"]),
    day: Number(parts["day"]),
    hour: Number(parts["hour"]),
    minute: Number(parts["minute"]),
    weekday: DAYS.indexOf((parts["weekday"] ?? "").toLowerCase()),
  };
}

const MINUTE = 60_000;
/** robfig/cron gives up after five years without a match (e.g. February 30th). */
const SEARCH_LIMIT_MS = 5 * 366 * 24 * 60 * MINUTE;

/** The first time after `afterMs` (whole minutes) the schedule fires in `zone`, or undefined when it never does. */
export function nextTime(schedule: CronSchedule, afterMs: number, zone = "UTC"): number | undefined {
  let t = Math.floor(afterMs / MINUTE) * MINUTE + MINUTE;
  const limit = afterMs + SEARCH_LIMIT_MS;
  while (t <= limit) {
    const w = wallClock(t, zone);
    if (!schedule.month.has(w.month)) {
      t += (24 * 60 - w.hour * 60 - w.minute) * MINUTE;
      continue;
    }
    const dom = schedule.dayOfMonth.has(w.day);
    const dow = schedule.dayOfWeek.has(w.weekday);
    if (!(schedule.anyDay ? dom && dow : dom || dow)) {
      t += (24 * 60 - w.hour * 60 - w.minute) * MINUTE;
      continue;
    }
    if (!schedule.hour.has(w.hour)) {
      t += (60 - w.minute) * MINUTE;
      continue;
    }
    if (!schedule.minute.has(w.minute)) {
      t += MINUTE;
      continue;
    }
    return t;
  }
  return undefined;
}

/**
 * mostRecentScheduleTime: the latest time in (`earliestMs`, `nowMs`] the schedule fired, and how
 * many times it fired in that window (upstream warns past 100 missed starts).
 */
export function mostRecentTime(schedule: CronSchedule, earliestMs: number, nowMs: number, zone = "UTC"): { time?: number; missed: number } {
  let time: number | undefined;
  let missed = 0;
  for (let t = nextTime(schedule, earliestMs, zone); t !== undefined && t <= nowMs; t = nextTime(schedule, t, zone)) {
    time = t;
    missed++;
    if (missed > 100) {
      // Too many to walk one by one: the latest lies in the shortest recent window holding one.
      for (const windowMs of [60, 24 * 60, 32 * 24 * 60, 366 * 24 * 60].map((m) => m * MINUTE)) {
        let latest: number | undefined;
        for (
          let u = nextTime(schedule, Math.max(t, nowMs - windowMs), zone);
          u !== undefined && u <= nowMs;
          u = nextTime(schedule, u, zone)
        )
          latest = u;
        if (latest !== undefined) return { time: latest, missed };
      }
      return { time, missed };
    }
  }
  return { ...(time !== undefined ? { time } : {}), missed };
}
