/** Nanoseconds per unit, as Go's `time.ParseDuration` reads them. */
const UNITS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, μs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * Go's `time.ParseDuration` in milliseconds: a signed sequence of decimal numbers with units
 * (`300ms`, `-1.5h`, `2h45m`); a lone `0` needs no unit. Throws Go's error text
 * (`time: invalid duration "x"`, `time: missing unit in duration "5"`, `time: unknown unit "d" in
 * duration "1d"`) so callers can quote it as upstream does.
 */
export function parseGoDuration(text: string): number {
  const quoted = JSON.stringify(text);
  let rest = text;
  let sign = 1;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    if (rest.startsWith("-")) sign = -1;
    rest = rest.slice(1);
  }
  if (rest === "0") return 0;
  if (rest === "") throw new Error(`time: invalid duration ${quoted}`);
  let total = 0;
  while (rest !== "") {
    const number = /^(\d*)(?:\.(\d*))?/.exec(rest)!;
    const [whole, integer = "", fraction] = number;
    if (integer === "" && (fraction === undefined || fraction === "")) throw new Error(`time: invalid duration ${quoted}`);
    rest = rest.slice(whole.length);
    const unit = /^[^\d.]*/.exec(rest)![0];
    if (unit === "") throw new Error(`time: missing unit in duration ${quoted}`);
    const perUnit = UNITS[unit];
    if (perUnit === undefined) throw new Error(`time: unknown unit ${JSON.stringify(unit)} in duration ${quoted}`);
    rest = rest.slice(unit.length);
    total += Number(`${integer || "0"}.${fraction ?? "0"}`) * perUnit;
  }
  // Go's int64 nanoseconds hold about 292 years (2,562,047 h).
  if (total * 1e6 >= 2 ** 63) throw new Error(`time: invalid duration ${quoted}`);
  return sign * total;
}
