import { formatDuration } from "../framework/poll.js";
import type { SuiteResult, TestResult } from "./result.js";
import type { SuiteReporter } from "./run-suite.js";

const MARK: Record<TestResult["state"], string> = {
  passed: "PASS",
  failed: "FAIL",
  skipped: "SKIP",
  timedout: "TIMEOUT",
  interrupted: "INTERRUPTED",
};

/**
 * Progress for a terminal or a log. On a TTY one status line is redrawn in place (tests done,
 * the running tests and their latest step); otherwise one plain line per event, for CI logs.
 */
export function progressReporter(write: (text: string) => void, options: { tty: boolean }): SuiteReporter {
  let total = 0;
  let done = 0;
  const running = new Map<string, string>();
  const status = () => {
    if (!options.tty) return;
    const [name, step] = [...running.entries()].at(-1) ?? ["", ""];
    const line = `[${done}/${total}] ${running.size} running${name === "" ? "" : `: ${name}${step === "" ? "" : ` — ${step}`}`}`;
    const width = process.stdout.columns ?? 120;
    write(`\r\x1b[2K${line.length > width - 1 ? `${line.slice(0, width - 2)}…` : line}`);
  };
  const clear = () => options.tty && write("\r\x1b[2K");
  return {
    suiteStart(info) {
      total = info.total;
      write(`Running ${info.total} tests with driver "${info.driver}"${info.dryRun ? " (dry run)" : ""}\n`);
    },
    testStart(name) {
      running.set(name, "");
      if (!options.tty) write(`START ${name}\n`);
      status();
    },
    step(name, text) {
      running.set(name, text);
      if (!options.tty) write(`  STEP ${name}: ${text}\n`);
      status();
    },
    testEnd(result) {
      running.delete(result.name);
      done++;
      clear();
      const why = result.message === undefined ? "" : `\n    ${result.message.split("\n").join("\n    ")}`;
      write(`${MARK[result.state]} ${result.name} (${formatDuration(result.durationMs)})${why}\n`);
      status();
    },
    suiteEnd(suite: SuiteResult) {
      clear();
      write(summary(suite));
    },
  };
}

/** The closing summary: counts, every failure and every skip with its reason. */
export function summary(suite: SuiteResult): string {
  const lines = [
    `\nRan ${suite.results.length - suite.skipped} of ${suite.results.length} tests in ${formatDuration(suite.durationMs)}: ${suite.passed} passed, ${suite.failed} failed, ${suite.skipped} skipped`,
  ];
  for (const error of suite.suiteErrors) lines.push(`  ERROR ${error}`);
  const failed = suite.results.filter((r) => r.state !== "passed" && r.state !== "skipped");
  if (failed.length > 0) lines.push("Failures:", ...failed.map((r) => `  [${MARK[r.state]}] ${r.name}\n      ${r.message ?? ""}`));
  const skipped = suite.results.filter((r) => r.state === "skipped");
  if (skipped.length > 0) lines.push("Skipped:", ...skipped.map((r) => `  ${r.name}\n      ${r.message ?? ""}`));
  if (suite.junitFile !== undefined) lines.push(`JUnit report: ${suite.junitFile}`);
  return `${lines.join("\n")}\n`;
}
