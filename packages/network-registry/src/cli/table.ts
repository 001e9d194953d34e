/** kubectl's printing of tables and ages, so `kana list` reads like `kubectl get`. */

/** Columns padded to the widest cell plus three spaces (kubectl's tabwriter), header upper-case. */
export function renderTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: readonly string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]! + 3)))
      .join("")
      .trimEnd();
  return `${[line(headers.map((h) => h.toUpperCase())), ...rows.map(line)].join("\n")}\n`;
}

/** apimachinery's `duration.HumanDuration`: `45s`, `5m3s`, `2h10m`, `3d4h`, `1y20d`. */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  const days = Math.floor(hours / 24);
  if (hours < 24 * 8) return hours % 24 === 0 ? `${days}d` : `${days}d${hours % 24}h`;
  if (days < 365 * 2) return `${days}d`;
  const years = Math.floor(days / 365);
  if (years < 8) return days % 365 === 0 ? `${years}y` : `${years}y${days % 365}d`;
  return `${years}y`;
}

/** The AGE column of an object created at `timestamp`. */
export function age(timestamp: string | undefined, now: number = Date.now()): string {
  if (timestamp === undefined) return "<unknown>";
  const created = Date.parse(timestamp);
  return Number.isNaN(created) ? "<unknown>" : humanDuration(now - created);
}
