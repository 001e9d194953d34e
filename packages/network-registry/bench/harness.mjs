/**
 * A tiny timing harness: run a function in growing batches until enough wall time has passed,
 * report nanoseconds per call. A sink keeps results alive so the JIT cannot drop the work.
 */
export let sink = 0;

export function consume(value) {
  sink = (sink + (value === undefined || value === null || value === false ? 0 : 1)) | 0;
}

/**
 * Nanoseconds of CPU time per call: the best of several timing windows. The benchmark machine
 * may be shared, so time is taken from process.cpuUsage() (time spent running, not waiting for
 * a core; it includes GC helper threads), and the least disturbed window is reported.
 */
export function measure(fn, { minMs = 400, warmupMs = 60, windows = 5 } = {}) {
  let ops = 0;
  const cpuNs = () => {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) * 1000;
  };
  const run = (budgetNs) => {
    let count = 0;
    let batch = 1;
    const wallStart = process.hrtime.bigint();
    const cpuStart = cpuNs();
    while (process.hrtime.bigint() - wallStart < budgetNs) {
      for (let i = 0; i < batch; i++) consume(fn(ops++));
      count += batch;
      if (batch < 1 << 12) batch *= 2;
    }
    return (cpuNs() - cpuStart) / count;
  };
  run(BigInt(warmupMs) * 1_000_000n);
  let best = Infinity;
  for (let w = 0; w < windows; w++) best = Math.min(best, run(BigInt(Math.ceil(minMs / windows)) * 1_000_000n));
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
  return `${(baseline / ours).toFixed(baseline / ours >= 100 ? 0 : 1)}×`;
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
