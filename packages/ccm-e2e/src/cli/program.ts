import { Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { isCcmE2eError } from "../errors.js";
import { labelsOf } from "../framework/registry.js";
import { writeHtmlReport } from "../runner/html-report.js";
import { jsonReport } from "../runner/json-report.js";
import { progressReporter } from "../runner/progress.js";
import { runSuite } from "../runner/run-suite.js";
import { SUITE } from "../suite/index.js";
import { VERSION } from "../version.js";

export interface CliIO {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  /** Whether stdout is a terminal (live progress) or not (plain lines). */
  tty: boolean;
  /** Aborted on Ctrl-C. */
  signal?: AbortSignal;
}

/** Exit codes: 0 every test passed or was skipped, 1 a test failed, 2 bad usage or an unreadable driver. */
export const EXIT_OK = 0;
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;

interface RunFlags {
  kubeconfig?: string;
  context?: string;
  driver: string;
  focus?: string;
  skip?: string;
  labelFilter?: string;
  junitDir?: string;
  parallel: number;
  dryRun?: boolean;
  output: "text" | "json";
  reportHtml?: string;
  upgradeTarget?: string;
}

function positiveInteger(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError("must be a positive integer");
  return n;
}

/** `ccm-e2e run|list`; resolves with the exit code. */
export async function runCli(argv: readonly string[], io: CliIO): Promise<number> {
  let exitCode = EXIT_OK;
  const program = new Command("ccm-e2e")
    .description("Run the upstream cloud and LoadBalancer e2e tests against a cluster and its cloud controller manager.")
    .version(VERSION)
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });

  program
    .command("run")
    .description("run the selected tests; exit 1 if any failed")
    .requiredOption("--driver <file>", "the driver: a JS module (.mjs/.js) or a declarative YAML file")
    .option(
      "--kubeconfig <file>",
      "kubeconfig of the cluster under test (default: the $KUBECONFIG files merged as kubectl merges them, then ~/.kube/config)",
    )
    .option("--context <name>", "kubeconfig context (default: its current context)")
    .option("--focus <regex>", "run only tests whose full name matches")
    .option("--skip <regex>", "do not run tests whose full name matches")
    .option("--label-filter <expr>", "Ginkgo label filter over the [tags] of the names, e.g. 'Feature:LoadBalancer && !Slow'")
    .option("--junit-dir <dir>", "write junit_01.xml there")
    .option("--parallel <n>", "tests run at once", positiveInteger, 1)
    .option("--dry-run", "list what would run without touching the cluster or the cloud")
    .addOption(
      new Option(
        "-o, --output <format>",
        "stdout: progress and a summary (text), or one JSON document at the end with progress on stderr (json)",
      )
        .choices(["text", "json"])
        .default("text"),
    )
    .option("--report-html <file>", "write a self-contained HTML page of the run: pass/skip/fail with reasons and timings")
    .option(
      "--upgrade-target <version>",
      "the version the upgrade and downgrade tests move the cluster to, e.g. 1.33.1 (without it they are skipped)",
    )
    .action(async (flags: RunFlags) => {
      const result = await runSuite({
        ...(flags.kubeconfig === undefined ? {} : { kubeconfig: flags.kubeconfig }),
        driver: flags.driver,
        parallel: flags.parallel,
        dryRun: flags.dryRun ?? false,
        // With -o json stdout carries only the document; progress goes to stderr, one line per event.
        reporter: flags.output === "json" ? progressReporter(io.stderr, { tty: false }) : progressReporter(io.stdout, { tty: io.tty }),
        ...(flags.context === undefined ? {} : { context: flags.context }),
        ...(flags.focus === undefined ? {} : { focus: flags.focus }),
        ...(flags.skip === undefined ? {} : { skip: flags.skip }),
        ...(flags.labelFilter === undefined ? {} : { labelFilter: flags.labelFilter }),
        ...(flags.junitDir === undefined ? {} : { junitDir: flags.junitDir }),
        ...(flags.upgradeTarget === undefined ? {} : { upgradeTarget: flags.upgradeTarget }),
        ...(io.signal === undefined ? {} : { signal: io.signal }),
      });
      if (flags.reportHtml !== undefined) await writeHtmlReport(flags.reportHtml, result);
      if (flags.output === "json") io.stdout(`${JSON.stringify(jsonReport(result), null, 2)}\n`);
      exitCode = result.exitCode;
    });

  program
    .command("list")
    .description("print every test with its labels, the capabilities and hooks it needs, and the upstream file it ports")
    .action(() => {
      for (const test of SUITE) {
        const needs = [
          ...(test.requires.capabilities ?? []).map((c) => `capability:${c}`),
          ...(test.requires.hooks ?? []).map((h) => `hook:${h}`),
        ];
        io.stdout(
          `${test.name}\n  labels: ${labelsOf(test.name).join(", ") || "-"}\n  requires: ${needs.join(", ") || "-"}\n  ports: ${test.upstream}\n`,
        );
      }
    });

  try {
    await program.parseAsync([...argv], { from: "user" });
    return exitCode;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT_OK : EXIT_USAGE;
    if (isCcmE2eError(error) && (error.code === "invalid-argument" || error.code === "invalid-driver")) {
      io.stderr(`ccm-e2e: ${error.message}\n`);
      return EXIT_USAGE;
    }
    throw error;
  }
}
