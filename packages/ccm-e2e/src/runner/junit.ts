import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { isFailure, type SuiteResult, type TestResult } from "./result.js";

/** The suite name in the report, as k/k's `Kubernetes e2e suite`. */
export const SUITE_NAME = "CCM e2e suite";

function escape(text: string): string {
  return (
    text
      // XML 1.0 has no place for most control characters: drop them.
      // eslint-disable-next-line no-control-regex
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, "")
      .replaceAll("&", "&amp;")
      .replaceAll("<", "&lt;")
      .replaceAll(">", "&gt;")
      .replaceAll('"', "&quot;")
  );
}

const seconds = (ms: number) => (ms / 1000).toFixed(6);

function testcase(result: TestResult): string {
  const name = `[It] ${result.name}${result.labels.length > 0 ? ` [${result.labels.join(", ")}]` : ""}`;
  const status = result.state;
  let body = "";
  if (result.state === "skipped") {
    body = `\n      <skipped message="${escape(`skipped - ${result.message ?? ""}`)}"></skipped>`;
  } else if (result.state === "interrupted") {
    body = `\n      <error type="interrupted">${escape(result.message ?? "interrupted")}</error>`;
  } else if (isFailure(result.state)) {
    // OmitFailureMessageAttr, as k/k: the text is the element body only.
    body = `\n      <failure type="${result.state}">${escape([result.message ?? "", result.stack ?? ""].filter(Boolean).join("\n"))}</failure>`;
  }
  // OmitTimelinesForSpecState: Passed|Skipped, as k/k: only failures carry their output.
  if (isFailure(result.state) && result.output.length > 0) body += `\n      <system-err>${escape(result.output.join("\n"))}</system-err>`;
  return `    <testcase name="${escape(name)}" classname="${SUITE_NAME}" status="${status}" time="${seconds(result.durationMs)}">${body}${body === "" ? "" : "\n    "}</testcase>`;
}

export interface JunitProperties {
  labelFilter?: string;
  focus?: string;
  skip?: string;
  dryRun: boolean;
  parallel: number;
}

/** The report in Ginkgo v2's JUnit shape, as k/k writes it (`reporters.GenerateJUnitReportWithConfig`). */
export function renderJunit(suite: SuiteResult, properties: JunitProperties): string {
  const failures = suite.results.filter((r) => r.state === "failed" || r.state === "timedout").length;
  const errors = suite.results.filter((r) => r.state === "interrupted").length + suite.suiteErrors.length;
  const skipped = suite.results.filter((r) => r.state === "skipped").length;
  const tests = suite.results.length;
  const props: [string, string][] = [
    ["SuiteSucceeded", String(suite.exitCode === 0)],
    ["SuiteHasProgrammaticFocus", "false"],
    ["SpecialSuiteFailureReason", suite.interrupted ? "Interrupted by User" : suite.suiteErrors.join("; ")],
    ["SuiteLabels", "[]"],
    ["Driver", suite.driver],
    ["LabelFilter", properties.labelFilter ?? ""],
    ["FocusStrings", properties.focus ?? ""],
    ["SkipStrings", properties.skip ?? ""],
    ["DryRun", String(properties.dryRun)],
    ["ParallelTotal", String(properties.parallel)],
  ];
  const time = seconds(suite.durationMs);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites tests="${tests}" disabled="${skipped}" errors="${errors}" failures="${failures}" time="${time}">`,
    `  <testsuite name="${SUITE_NAME}" package="@kubekit/ccm-e2e" tests="${tests}" disabled="0" skipped="${skipped}" errors="${errors}" failures="${failures}" time="${time}" timestamp="${suite.startedAt.toISOString().replace(/\.\d+Z$/, "")}">`,
    "    <properties>",
    ...props.map(([name, value]) => `      <property name="${name}" value="${escape(value)}"></property>`),
    "    </properties>",
    ...suite.results.map(testcase),
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}

/** Writes `junit_01.xml` into `dir` (k/k's `junit_<prefix>01.xml` with an empty prefix). */
export async function writeJunit(dir: string, suite: SuiteResult, properties: JunitProperties): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = join(dir, "junit_01.xml");
  await writeFile(file, renderJunit(suite, properties));
  return file;
}
