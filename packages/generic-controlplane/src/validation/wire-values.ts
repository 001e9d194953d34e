import { decodeError, type DecodeTarget } from "./decode-errors.js";

/**
 * The value encodings Go's JSON decoding enforces for built-in types before any validation runs:
 * `[]byte` as padded standard base64, `metav1.Time` as RFC 3339 and `metav1.MicroTime` as RFC 3339
 * with exactly six fractional digits. A violation is a 400 decode error, not a 422, so it is
 * reported as `BadRequest` with apiserver's `cannot be handled as a` wording.
 */

export { decodeError, type DecodeTarget };

const BASE64_ALPHABET = /^[A-Za-z0-9+/]$/;

/**
 * The byte offset Go's `base64.StdEncoding` reports as `illegal base64 data at input byte N`, or
 * `undefined` when the text decodes. Like Go, CR and LF are skipped anywhere.
 */
export function base64ErrorOffset(text: string): number | undefined {
  const n = text.length;
  let si = 0;
  const skipNewlines = (): void => {
    while (si < n && (text[si] === "\n" || text[si] === "\r")) si++;
  };
  while (si < n) {
    for (let j = 0; j < 4;) {
      if (si === n) {
        if (j === 0) return undefined;
        return si - j;
      }
      const c = text[si] ?? "";
      si++;
      if (BASE64_ALPHABET.test(c)) {
        j++;
        continue;
      }
      if (c === "\n" || c === "\r") continue;
      if (c !== "=") return si - 1;
      if (j < 2) return si - 1;
      if (j === 2) {
        skipNewlines();
        if (si === n) return n;
        if (text[si] !== "=") return si - 1;
        si++;
      }
      skipNewlines();
      return si < n ? si : undefined;
    }
  }
  return undefined;
}

/** Checks a base64 value and returns its canonical form (what upstream echoes back after a round trip). */
export function canonicalBase64(text: unknown, target: DecodeTarget): string {
  if (typeof text !== "string")
    throw decodeError(target, `illegal base64 data: expected a string, got ${text === null ? "null" : typeof text}`);
  const offset = base64ErrorOffset(text);
  if (offset !== undefined) throw decodeError(target, `illegal base64 data at input byte ${offset}`);
  return Buffer.from(text.replace(/[\r\n]/g, ""), "base64").toString("base64");
}

/** Decoded size in bytes of canonical base64. */
export function base64DecodedLength(canonical: string): number {
  const padding = canonical.endsWith("==") ? 2 : canonical.endsWith("=") ? 1 : 0;
  return (canonical.length / 4) * 3 - padding;
}

const RFC3339_LAYOUT = "2006-01-02T15:04:05Z07:00";
const RFC3339_MICRO_LAYOUT = "2006-01-02T15:04:05.000000Z07:00";

interface LayoutElement {
  layout: string;
  pattern: RegExp;
}

const DATE_TIME: LayoutElement[] = [
  { layout: "2006", pattern: /^\d{4}/ },
  { layout: "-", pattern: /^-/ },
  { layout: "01", pattern: /^\d{2}/ },
  { layout: "-", pattern: /^-/ },
  { layout: "02", pattern: /^\d{2}/ },
  { layout: "T", pattern: /^T/ },
  { layout: "15", pattern: /^\d{2}/ },
  { layout: ":", pattern: /^:/ },
  { layout: "04", pattern: /^\d{2}/ },
  { layout: ":", pattern: /^:/ },
  { layout: "05", pattern: /^\d{2}/ },
];
const ZONE: LayoutElement = { layout: "Z07:00", pattern: /^(?:Z|[+-]\d{2}:\d{2})/ };

/**
 * Parses like Go's `time.Parse` with the RFC 3339 layouts apimachinery uses and returns epoch
 * microseconds, or throws with Go's `parsing time … cannot parse … as …` wording.
 */
function parseGoTime(value: string, micro: boolean, invalid: (reason: string) => never): { epochSeconds: number; micros: number } {
  const layout = micro ? RFC3339_MICRO_LAYOUT : RFC3339_LAYOUT;
  const fail = (rest: string, element: string): never => {
    return invalid(
      `parsing time ${JSON.stringify(value)} as ${JSON.stringify(layout)}: cannot parse ${JSON.stringify(rest)} as ${JSON.stringify(element)}`,
    );
  };
  let rest = value;
  const parts: string[] = [];
  for (const element of DATE_TIME) {
    const match = element.pattern.exec(rest);
    if (!match) return fail(rest, element.layout);
    parts.push(match[0]);
    rest = rest.slice(match[0].length);
  }
  let fraction = "";
  if (micro) {
    const match = /^\.\d{6}/.exec(rest);
    if (!match) return fail(rest, ".000000");
    fraction = match[0].slice(1);
    rest = rest.slice(7);
  } else {
    // Parsing (only) accepts a fraction even when the layout has none; Time keeps whole seconds.
    const match = /^[.,]\d+/.exec(rest);
    if (match) rest = rest.slice(match[0].length);
  }
  const zone = ZONE.pattern.exec(rest);
  if (!zone) return fail(rest, ZONE.layout);
  rest = rest.slice(zone[0].length);
  if (rest !== "") invalid(`parsing time ${JSON.stringify(value)}: extra text: ${JSON.stringify(rest)}`);
  const [year, , month, , day, , hour, , minute, , second] = parts.map((part) => Number(part));
  const ranges: Array<[number | undefined, number, number, string]> = [
    [month, 1, 12, "month"],
    [day, 1, 31, "day"],
    [hour, 0, 23, "hour"],
    [minute, 0, 59, "minute"],
    [second, 0, 59, "second"],
  ];
  for (const [v, min, max, name] of ranges) {
    if (v === undefined || v < min || v > max) invalid(`parsing time ${JSON.stringify(value)}: ${name} out of range`);
  }
  const utc = Date.UTC(year ?? 0, (month ?? 1) - 1, day ?? 1, hour ?? 0, minute ?? 0, second ?? 0);
  const check = new Date(utc);
  if (check.getUTCDate() !== day) invalid(`parsing time ${JSON.stringify(value)}: day out of range`);
  let offsetSeconds = 0;
  if (zone[0] !== "Z") {
    const sign = zone[0].startsWith("-") ? -1 : 1;
    offsetSeconds = sign * (Number(zone[0].slice(1, 3)) * 3600 + Number(zone[0].slice(4, 6)) * 60);
  }
  return { epochSeconds: Math.floor(utc / 1000) - offsetSeconds, micros: fraction === "" ? 0 : Number(fraction) };
}

function decodeFailure(target: DecodeTarget): (reason: string) => never {
  return (reason) => {
    throw decodeError(target, reason);
  };
}

class TimeSyntax extends Error {}

/**
 * Times known to parse: every write type-checks each timestamp its object holds (creation, managed
 * fields, conditions), and most of them are the same few recent seconds. Forgotten all at once
 * when full.
 */
const parsedTimes = new Set<string>();
const parsedMicroTimes = new Set<string>();
const PARSED_TIMES_KEPT = 4096;

/**
 * Go's `time.Parse` error for a `metav1.Time` (RFC 3339) or `metav1.MicroTime` string, or
 * undefined when it parses. The empty string counts as unset, as the strategies treat it.
 */
export function goTimeError(value: string, micro: boolean): string | undefined {
  if (value === "") return undefined;
  const parsed = micro ? parsedMicroTimes : parsedTimes;
  if (parsed.has(value)) return undefined;
  try {
    parseGoTime(value, micro, (reason) => {
      throw new TimeSyntax(reason);
    });
    if (parsed.size >= PARSED_TIMES_KEPT) parsed.clear();
    parsed.add(value);
    return undefined;
  } catch (error) {
    if (error instanceof TimeSyntax) return error.message;
    throw error;
  }
}

function formatSeconds(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
}

/** `metav1.Time` → canonical `2006-01-02T15:04:05Z` (UTC, whole seconds). `null` means unset. */
export function canonicalTime(value: unknown, target: DecodeTarget): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value !== "string") throw decodeError(target, `parsing time: expected a string, got ${typeof value}`);
  if (value === "") return undefined;
  return formatSeconds(parseGoTime(value, false, decodeFailure(target)).epochSeconds);
}

/** `metav1.MicroTime` → canonical `2006-01-02T15:04:05.000000Z` (UTC). `null` means unset. */
export function canonicalMicroTime(value: unknown, target: DecodeTarget): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value !== "string") throw decodeError(target, `parsing time: expected a string, got ${typeof value}`);
  if (value === "") return undefined;
  const { epochSeconds, micros } = parseGoTime(value, true, decodeFailure(target));
  return formatMicroTime(epochSeconds, micros);
}

export function formatMicroTime(epochSeconds: number, micros: number): string {
  return formatSeconds(epochSeconds).replace(/Z$/, `.${String(micros).padStart(6, "0")}Z`);
}

/**
 * Rewrites `object[key]` through `normalize`, deleting it when the result is unset, so each
 * strategy can canonicalise its time fields in one line per field.
 */
export function normalizeField(
  object: Record<string, unknown> | undefined,
  key: string,
  normalize: (value: unknown) => string | undefined,
): void {
  if (!object || !(key in object)) return;
  const value = normalize(object[key]);
  if (value === undefined) delete object[key];
  else object[key] = value;
}
