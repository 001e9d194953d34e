import { mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import { formatDuration as duration } from "../framework/poll.js";
import { isFailure, type SuiteResult, type TestResult } from "./result.js";

function escape(text: string): string {
  return text.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;");
}

/** Failures first, then skips, then passes: what a person opens the page for comes first. */
const ORDER: Record<TestResult["state"], number> = { failed: 0, timedout: 0, interrupted: 1, skipped: 2, passed: 3 };

function row(result: TestResult): string {
  const detail = [result.message ?? "", ...(isFailure(result.state) ? result.output : [])].filter(Boolean).join("\n");
  return `<tr class="${result.state}"><td class="state">${result.state}</td><td>${escape(result.name)}${detail === "" ? "" : `<pre>${escape(detail)}</pre>`}</td><td class="time">${duration(result.durationMs)}</td></tr>`;
}

/** One self-contained page (no scripts, no external assets): the summary, then every test with its reason and time. */
export function renderHtmlReport(suite: SuiteResult): string {
  const results = [...suite.results].sort((a, b) => ORDER[a.state] - ORDER[b.state]);
  const verdict = suite.exitCode === 0 ? "passed" : "failed";
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>ccm-e2e: ${escape(suite.driver)} ${verdict}</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; width: 100%; }
td, th { border-bottom: 1px solid #ddd; padding: .4em .6em; text-align: left; vertical-align: top; }
td.state { font-weight: 600; white-space: nowrap; }
td.time { white-space: nowrap; text-align: right; }
tr.passed td.state { color: #1a7f37; }
tr.skipped td.state { color: #9a6700; }
tr.failed td.state, tr.timedout td.state, tr.interrupted td.state { color: #cf222e; }
pre { white-space: pre-wrap; margin: .4em 0 0; font-size: 12px; color: #555; }
</style>
</head>
<body>
<h1>ccm-e2e: driver ${escape(suite.driver)} ${verdict}</h1>
<p>${suite.passed} passed, ${suite.failed} failed, ${suite.skipped} skipped in ${duration(suite.durationMs)}; started ${escape(suite.startedAt.toISOString())}${suite.interrupted ? "; interrupted" : ""}.</p>
${suite.suiteErrors.length > 0 ? `<pre>${escape(suite.suiteErrors.join("\n"))}</pre>\n` : ""}<table>
<thead><tr><th>state</th><th>test</th><th>time</th></tr></thead>
<tbody>
${results.map(row).join("\n")}
</tbody>
</table>
</body>
</html>
`;
}

export async function writeHtmlReport(file: string, suite: SuiteResult): Promise<void> {
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, renderHtmlReport(suite));
}
