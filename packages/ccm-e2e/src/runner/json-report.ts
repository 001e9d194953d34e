import { isFailure, type SuiteResult, type TestState } from "./result.js";

/** One test in the JSON report (`ccm-e2e run -o json`). */
export interface JsonTestReport {
  name: string;
  labels: string[];
  state: TestState;
  /** The assertion text, the timeout, or the skip reason. */
  message?: string;
  durationMs: number;
  /** Steps and log lines; failures only, as in the JUnit file. */
  output?: string[];
}

/** The whole run as `ccm-e2e run -o json` prints it: one document, stable keys, for CI systems without JUnit. */
export interface JsonSuiteReport {
  driver: string;
  startedAt: string;
  durationMs: number;
  passed: number;
  failed: number;
  skipped: number;
  interrupted: boolean;
  exitCode: 0 | 1;
  suiteErrors: string[];
  tests: JsonTestReport[];
}

export function jsonReport(suite: SuiteResult): JsonSuiteReport {
  return {
    driver: suite.driver,
    startedAt: suite.startedAt.toISOString(),
    durationMs: suite.durationMs,
    passed: suite.passed,
    failed: suite.failed,
    skipped: suite.skipped,
    interrupted: suite.interrupted,
    exitCode: suite.exitCode,
    suiteErrors: suite.suiteErrors,
    tests: suite.results.map((r) => ({
      name: r.name,
      labels: r.labels,
      state: r.state,
      ...(r.message === undefined ? {} : { message: r.message }),
      durationMs: r.durationMs,
      ...(isFailure(r.state) && r.output.length > 0 ? { output: r.output } : {}),
    })),
  };
}
