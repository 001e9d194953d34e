/** How one test ended; `timedout` and `interrupted` count as failures. */
export type TestState = "passed" | "failed" | "skipped" | "timedout" | "interrupted";

export interface TestResult {
  name: string;
  labels: string[];
  state: TestState;
  /** The assertion text, the timeout, or the skip reason. */
  message?: string;
  /** Where the failure was raised, when known. */
  stack?: string;
  durationMs: number;
  /** The steps (`ginkgo.By`) and log lines, timestamped, for the report's system-out. */
  output: string[];
}

export interface SuiteResult {
  driver: string;
  results: TestResult[];
  passed: number;
  failed: number;
  skipped: number;
  durationMs: number;
  startedAt: Date;
  /** The JUnit file written, if any. */
  junitFile?: string;
  interrupted: boolean;
  /** 1 when a test failed (or the run was interrupted, or setup/teardown failed), else 0. */
  exitCode: 0 | 1;
  /** Errors of the driver's setup or teardown. */
  suiteErrors: string[];
}

export function isFailure(state: TestState): boolean {
  return state === "failed" || state === "timedout" || state === "interrupted";
}
