/**
 * apimachinery's `duration.HumanDuration`: the compact ages kubectl shows (`5m`, `3h12m`, `2d5h`),
 * used by printer columns that upstream renders as strings (events' LAST SEEN).
 */
export function humanDuration(milliseconds: number): string {
  const seconds = Math.trunc(milliseconds / 1000);
  // Up to two seconds in the future counts as "now" to tolerate clock skew.
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    return h === 0 ? `${Math.trunc(hours / 24)}d` : `${Math.trunc(hours / 24)}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  if (hours < 24 * 365 * 8) {
    const days = Math.trunc(hours / 24) % 365;
    const years = Math.trunc(hours / 24 / 365);
    return days === 0 ? `${years}y` : `${years}y${days}d`;
  }
  return `${Math.trunc(hours / 24 / 365)}y`;
}

/** `translateTimestampSince`: `<unknown>` for a missing timestamp, else the age relative to `now`. */
export function timestampSince(timestamp: unknown, now: number = Date.now()): string {
  if (typeof timestamp !== "string" || timestamp === "") return "<unknown>";
  const at = Date.parse(timestamp);
  if (Number.isNaN(at)) return "<unknown>";
  return humanDuration(now - at);
}
