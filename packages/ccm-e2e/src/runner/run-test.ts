import { randomBytes } from "node:crypto";
import { isNotFound, type KubeClient } from "@kubekit/client";
import type { CcmDriver, TestOutcome, Timeouts, TrafficClient } from "../driver/types.js";
import { isCcmE2eError } from "../errors.js";
import type { TestContext } from "../framework/context.js";
import { formatDuration, poll } from "../framework/poll.js";
import { labelsOf, missingRequirements, type SuiteTest } from "../framework/registry.js";
import { NAMESPACES } from "../framework/resources.js";
import type { TestResult, TestState } from "./result.js";

export interface RunTestOptions {
  client: KubeClient;
  driver: CcmDriver;
  timeouts: Timeouts;
  external: TrafficClient;
  /** The driver's in-cluster vantage point, else the run's dialer pods. */
  inCluster: TrafficClient;
  /** `--upgrade-target`, without its `v`. */
  upgradeTarget?: string;
  /** The run's signal: aborting it interrupts the test (its cleanup still runs). */
  signal: AbortSignal;
  onStep?: (text: string) => void;
}

function elapsed(start: number): string {
  return `${((Date.now() - start) / 1000).toFixed(3)}s`;
}

/**
 * One test: skip with the reason if the driver lacks what it needs; otherwise a fresh namespace,
 * the driver's beforeEach, the body under the test timeout, then, whatever happened, the test's
 * own cleanups in reverse order, the driver's afterEach and the namespace's deletion.
 */
export async function runTest(test: SuiteTest, options: RunTestOptions): Promise<TestResult> {
  const start = Date.now();
  const output: string[] = [];
  const record = (line: string) => output.push(`[${elapsed(start)}] ${line}`);
  const result = (state: TestState, message?: string, stack?: string): TestResult => ({
    name: test.name,
    labels: labelsOf(test.name),
    state,
    ...(message === undefined ? {} : { message }),
    ...(stack === undefined ? {} : { stack }),
    durationMs: Date.now() - start,
    output,
  });

  const missing = missingRequirements(test, options.driver);
  if (missing !== undefined) return result("skipped", missing);
  if (options.signal.aborted) return result("interrupted", "interrupted before the test started");

  const controller = new AbortController();
  const onAbort = () => controller.abort(new Error("interrupted"));
  options.signal.addEventListener("abort", onAbort);
  const testTimer = setTimeout(() => controller.abort(new Error("timeout")), options.timeouts.test);

  const namespace = `ccm-e2e-${randomBytes(3).toString("hex")}`;
  const cleanups: (() => Promise<void>)[] = [];
  const context: TestContext = {
    name: test.name,
    client: options.client,
    namespace,
    driver: options.driver,
    timeouts: options.timeouts,
    external: options.external,
    inCluster: options.inCluster,
    upgradeTarget: options.upgradeTarget,
    signal: controller.signal,
    step: (text) => {
      record(`STEP: ${text}`);
      options.onStep?.(text);
    },
    log: record,
    defer: (cleanup) => cleanups.push(cleanup),
  };

  let state = "passed" as TestState;
  let message: string | undefined;
  let stack: string | undefined;
  const failWith = (error: unknown) => {
    if (isCcmE2eError(error, "skipped")) {
      state = "skipped";
      message = error.message;
      return;
    }
    if (controller.signal.aborted) {
      const timedOut = (controller.signal.reason as Error | undefined)?.message === "timeout";
      state = timedOut ? "timedout" : "interrupted";
      message = timedOut ? `the test did not finish within ${formatDuration(options.timeouts.test)}` : "interrupted";
      if (error instanceof Error) message += `: ${error.message}`;
      return;
    }
    state = "failed";
    message = error instanceof Error ? error.message : String(error);
    stack = error instanceof Error ? error.stack?.split("\n").slice(1).join("\n") : undefined;
  };

  const info = { name: test.name, namespace };
  try {
    await options.client.create(NAMESPACES, undefined, {
      apiVersion: "v1",
      kind: "Namespace",
      metadata: { name: namespace, labels: { "e2e-run": "ccm-e2e", "e2e-framework": "ccm-e2e" } },
    });
    record(`created namespace ${namespace}`);
    // Listen before the hook and body start: either may abort the run synchronously.
    const aborted = new Promise<never>((_resolve, reject) => {
      if (controller.signal.aborted) reject(controller.signal.reason as Error);
      controller.signal.addEventListener("abort", () => reject(controller.signal.reason as Error), { once: true });
    });
    aborted.catch(() => {});
    const body = async () => {
      await options.driver.beforeEach?.(info);
      await test.run(context);
    };
    await Promise.race([body(), aborted]);
  } catch (error) {
    failWith(error);
  } finally {
    clearTimeout(testTimer);
    options.signal.removeEventListener("abort", onAbort);
  }

  // Cleanups get their own time: the test's signal may already be aborted.
  for (const cleanup of cleanups.reverse()) {
    try {
      await cleanup();
    } catch (error) {
      record(`cleanup failed: ${(error as Error).message}`);
    }
  }
  const outcome: TestOutcome = state === "timedout" ? "failed" : state;
  try {
    await options.driver.afterEach?.(info, outcome);
  } catch (error) {
    record(`afterEach failed: ${(error as Error).message}`);
  }
  try {
    await deleteNamespace(options.client, namespace, options.timeouts.namespaceDelete);
    record(`deleted namespace ${namespace}`);
  } catch (error) {
    const text = `namespace ${namespace} was not deleted: ${(error as Error).message}`;
    record(text);
    if (state === "passed") {
      state = "failed";
      message = text;
    }
  }
  return result(state, message, stack);
}

async function deleteNamespace(client: KubeClient, name: string, timeoutMs: number): Promise<void> {
  try {
    await client.delete(NAMESPACES, undefined, name);
  } catch (error) {
    if (isNotFound(error)) return;
    throw error;
  }
  await poll(`namespace ${name} to be deleted`, { timeoutMs }, async () => {
    try {
      await client.get(NAMESPACES, undefined, name);
      return undefined;
    } catch (error) {
      if (isNotFound(error)) return true;
      throw error;
    }
  });
}
