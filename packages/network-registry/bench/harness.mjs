/**
 * A tiny timing harness: run a function in growing batches until enough wall time has passed,
 * report nanoseconds per call. A sink keeps results alive so the JIT cannot drop the work.
 */
export let sink = 0;

export function consume(value) {
  sink = (sink + (value === undefined || value === null || value === false ? 0 : 1)) | 0;
}

/**
 * Nanoseconds of CPU time per call: the best of several windows of a fixed number of calls.
 * The work is fixed, not the time, so a fast machine does the same calls as a slow one (and
 * stateful measurements such as allocation never run out of space). The benchmark machine may
 * be shared, so time is taken from process.cpuUsage() (time spent running, not waiting for a
 * core; it includes GC helper threads), and the least disturbed window is reported.
 */
export function measure(fn, { calls, warmup = Math.ceil(calls / 4), windows = 5 }) {
  let ops = 0;
  const cpuNs = () => {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) * 1000;
  };
  const run = (count) => {
    const cpuStart = cpuNs();
    for (let i = 0; i < count; i++) consume(fn(ops++));
    return (cpuNs() - cpuStart) / count;
  };
  run(warmup);
  let best = Infinity;
  for (let w = 0; w < windows; w++) best = Math.min(best, run(calls));
  return best;
}

/** Deterministic PRNG (xorshift32) so every run measures the same data. */
export function random(seed = 0x9e3779b9) {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    return x;
  };
}

export function formatNs(ns) {
  if (ns >= 1e6) return `${(ns / 1e6).toFixed(2)} ms`;
  if (ns >= 1e3) return `${(ns / 1e3).toFixed(2)} µs`;
  return `${ns.toFixed(1)} ns`;
}

export function ratio(baseline, ours) {
  const r = baseline / ours;
  return `${r >= 100 ? r.toFixed(0) : r >= 0.1 ? r.toFixed(1) : r.toPrecision(2)}×`;
}

/** Print rows as an aligned table. */
export function table(title, header, rows) {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
  const line = (cells) => cells.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join("  ");
  console.log(`\n${title}`);
  console.log(line(header));
  console.log(widths.map((w) => "-".repeat(w)).join("  "));
  for (const row of rows) console.log(line(row));
}
