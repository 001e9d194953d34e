import { create } from "@bufbuild/protobuf";
import { DurationSchema, TimestampSchema, type Duration, type Timestamp } from "@bufbuild/protobuf/wkt";

/**
 * Strings with `format: date-time` and `format: duration` are CEL timestamps and durations in
 * validation rules, as apiextensions types them: `self.expires > timestamp('2024-01-01T00:00:00Z')`,
 * `self.timeout < duration('1h')`. Values that do not parse stay strings.
 */

const RFC3339 = /^(\d{4}-\d{2}-\d{2})[Tt ](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?([Zz]|[+-]\d{2}:\d{2})$/;

export function parseTimestamp(text: string): Timestamp | undefined {
  const match = RFC3339.exec(text);
  if (match === null) return undefined;
  const [, date = "", time = "", fraction = "", zone = "Z"] = match;
  const millis = Date.parse(`${date}T${time}${zone.toUpperCase()}`);
  if (Number.isNaN(millis)) return undefined;
  return create(TimestampSchema, { seconds: BigInt(Math.floor(millis / 1000)), nanos: Number(fraction.padEnd(9, "0")) });
}

const UNIT_NANOS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n,
  μs: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
};

/** Go's `time.ParseDuration`: `1h30m`, `-1.5s`, `300ms`, `0`. */
export function parseDuration(text: string): Duration | undefined {
  let rest = text;
  let negative = false;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    negative = rest.startsWith("-");
    rest = rest.slice(1);
  }
  if (rest === "0") return create(DurationSchema, { seconds: 0n, nanos: 0 });
  if (rest === "") return undefined;
  let total = 0n;
  const part = /^(\d*)(?:\.(\d*))?(ns|us|µs|μs|ms|s|m|h)/;
  while (rest !== "") {
    const match = part.exec(rest);
    if (match === null) return undefined;
    const [whole, integer = "", fraction = "", unit = "s"] = match;
    if (integer === "" && fraction === "") return undefined;
    const scale = UNIT_NANOS[unit] ?? 1n;
    total += BigInt(integer || "0") * scale;
    if (fraction !== "") total += (BigInt(fraction) * scale) / 10n ** BigInt(fraction.length);
    rest = rest.slice(whole.length);
  }
  if (negative) total = -total;
  return create(DurationSchema, { seconds: total / 1_000_000_000n, nanos: Number(total % 1_000_000_000n) });
}
