import { compileRegexp, type Regexp } from "@kubekit/apimachinery/regex";
import { homedir } from "node:os";
import { join } from "node:path";
import { KubeClient, loadKubeconfig, type ClientConfig } from "@kubekit/client";
import { hostTraffic } from "../driver/host-traffic.js";
import { loadDriver, validateDriver } from "../driver/load.js";
import { resolveTimeouts } from "../driver/timeouts.js";
import { podVantagePoint } from "../framework/pod-vantage-point.js";
import type { CcmDriver } from "../driver/types.js";
import { CcmE2eError } from "../errors.js";
import { parseLabelFilter } from "../framework/label-filter.js";
import { labelsOf, selectTests, type SuiteTest } from "../framework/registry.js";
import { SUITE } from "../suite/index.js";
import { writeJunit } from "./junit.js";
import { isFailure, type SuiteResult, type TestResult } from "./result.js";
import { runTest } from "./run-test.js";
import { parseUpgradeTarget } from "./upgrade-target.js";

/** Progress callbacks, for a live display or a log. */
export interface SuiteReporter {
  suiteStart?(info: { driver: string; total: number; dryRun: boolean }): void;
  testStart?(name: string): void;
  step?(name: string, text: string): void;
  testEnd?(result: TestResult): void;
  suiteEnd?(result: SuiteResult): void;
}

export interface RunSuiteOptions {
  /**
   * Path of the kubeconfig (its current context, or `context`). Without it, kubectl's rules: the
   * `$KUBECONFIG` files merged, else `~/.kube/config`.
   */
  kubeconfig?: string;
  context?: string;
  /** A driver, or the path of a driver module or YAML file. */
  driver: CcmDriver | string;
  /** The tests to choose from; the ported suite by default. */
  tests?: readonly SuiteTest[];
  /** Regular expressions over the full test name (`--focus`, `--skip`). */
  focus?: string;
  skip?: string;
  /** A Ginkgo label filter (`--label-filter`). */
  labelFilter?: string;
  /** Writes `junit_01.xml` there. */
  junitDir?: string;
  /** Tests run at once (default 1). */
  parallel?: number;
  /**
   * The version the upgrade and downgrade tests move the cluster to (`--upgrade-target`, upstream's
   * flag), a semantic version such as `1.33.1`; without it those tests are skipped.
   */
  upgradeTarget?: string;
  /** Lists what would run, contacting neither the cluster nor the cloud. */
  dryRun?: boolean;
  /** Aborting it interrupts the run: running tests clean up, the rest are reported interrupted. */
  signal?: AbortSignal;
  reporter?: SuiteReporter;
}

/** Ginkgo compiles `--focus` and `--skip` with Go's `regexp`: RE2 syntax, matching in linear time. */
function compileRegex(flag: string, source: string | undefined): Regexp | undefined {
  if (source === undefined || source === "") return undefined;
  try {
    return compileRegexp(source);
  } catch (error) {
    throw new CcmE2eError(
      "invalid-argument",
      `${flag}: invalid regular expression ${JSON.stringify(source)}: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/**
 * Runs the selected tests against the cluster of a kubeconfig with a driver and reports each
 * outcome; never throws for a failing test (see `exitCode`). The driver's teardown runs even when
 * the run is interrupted.
 */
export async function runSuite(options: RunSuiteOptions): Promise<SuiteResult> {
  const startedAt = new Date();
  const signal = options.signal ?? new AbortController().signal;
  const parallel = options.parallel ?? 1;
  if (!Number.isInteger(parallel) || parallel < 1)
    throw new CcmE2eError("invalid-argument", `--parallel: must be a positive integer, got ${parallel}`);
  const upgradeTarget = parseUpgradeTarget(options.upgradeTarget);
  const selected = selectTests(options.tests ?? SUITE, {
    ...(options.focus ? { focus: compileRegex("--focus", options.focus)! } : {}),
    ...(options.skip ? { skip: compileRegex("--skip", options.skip)! } : {}),
    ...(options.labelFilter ? { labelFilter: parseLabelFilter(options.labelFilter) } : {}),
  });
  // What the driver's commands get as KUBECONFIG: the same file, or the same list, the run reads.
  const driverKubeconfig = options.kubeconfig ?? (process.env.KUBECONFIG || join(process.env.HOME ?? homedir(), ".kube", "config"));
  const driver =
    typeof options.driver === "string"
      ? await loadDriver(options.driver, { kubeconfig: driverKubeconfig })
      : validateDriver(options.driver);
  const dryRun = options.dryRun ?? false;
  options.reporter?.suiteStart?.({ driver: driver.name, total: selected.length, dryRun });

  const results: TestResult[] = new Array<TestResult>(selected.length);
  const suiteErrors: string[] = [];
  const finish = (result: TestResult, index: number) => {
    results[index] = result;
    options.reporter?.testEnd?.(result);
  };

  if (dryRun) {
    selected.forEach((test, index) =>
      finish({ name: test.name, labels: labelsOf(test.name), state: "passed", durationMs: 0, output: [] }, index),
    );
  } else {
    let clientConfig: ClientConfig;
    try {
      clientConfig = await loadKubeconfig(options.kubeconfig, options.context);
    } catch (error) {
      throw new CcmE2eError("invalid-argument", (error as Error).message, { cause: error });
    }
    const client = new KubeClient(clientConfig);
    const timeouts = resolveTimeouts(driver);
    // Made on first use, so a run whose tests never send from inside the cluster creates no pod.
    const dialers =
      driver.inCluster === undefined
        ? podVantagePoint(client, { podStartTimeoutMs: timeouts.podStart, namespaceDeleteTimeoutMs: timeouts.namespaceDelete })
        : undefined;
    const inCluster = driver.inCluster ?? dialers!;
    const runContext = { kubeconfig: driverKubeconfig, log: () => {} };
    try {
      let setupOk = true;
      try {
        await driver.setup?.(runContext);
      } catch (error) {
        setupOk = false;
        suiteErrors.push(`driver setup failed: ${(error as Error).message}`);
      }
      let next = 0;
      const worker = async () => {
        while (next < selected.length) {
          const index = next++;
          const test = selected[index]!;
          if (!setupOk) {
            finish(
              { name: test.name, labels: labelsOf(test.name), state: "failed", message: suiteErrors[0]!, durationMs: 0, output: [] },
              index,
            );
            continue;
          }
          options.reporter?.testStart?.(test.name);
          const result = await runTest(test, {
            client,
            driver,
            timeouts,
            external: driver.external ?? hostTraffic,
            inCluster,
            signal,
            ...(upgradeTarget === undefined ? {} : { upgradeTarget }),
            onStep: (text) => options.reporter?.step?.(test.name, text),
          });
          finish(result, index);
        }
      };
      await Promise.all(Array.from({ length: Math.min(parallel, Math.max(selected.length, 1)) }, worker));
    } finally {
      try {
        await dialers?.close();
      } catch (error) {
        suiteErrors.push(`deleting the dialer pods failed: ${(error as Error).message}`);
      }
      try {
        await driver.teardown?.(runContext);
      } catch (error) {
        suiteErrors.push(`driver teardown failed: ${(error as Error).message}`);
      }
      client.close();
    }
  }

  const failed = results.filter((r) => isFailure(r.state)).length;
  const suite: SuiteResult = {
    driver: driver.name,
    results,
    passed: results.filter((r) => r.state === "passed").length,
    failed,
    skipped: results.filter((r) => r.state === "skipped").length,
    durationMs: Date.now() - startedAt.getTime(),
    startedAt,
    interrupted: signal.aborted,
    exitCode: failed > 0 || suiteErrors.length > 0 || signal.aborted ? 1 : 0,
    suiteErrors,
  };
  if (options.junitDir !== undefined) {
    suite.junitFile = await writeJunit(options.junitDir, suite, {
      ...(options.labelFilter === undefined ? {} : { labelFilter: options.labelFilter }),
      ...(options.focus === undefined ? {} : { focus: options.focus }),
      ...(options.skip === undefined ? {} : { skip: options.skip }),
      dryRun,
      parallel,
    });
  }
  options.reporter?.suiteEnd?.(suite);
  return suite;
}
