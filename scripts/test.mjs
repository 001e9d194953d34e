// The whole suite: the scripts' own tests, then lint, typecheck, build and every package's tests through nx, then one summed
// result line taken from the scripts' TAP report and the JSON report each vitest project writes to .nx-test-results/.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const resultsDir = join(root, ".nx-test-results");
rmSync(resultsDir, { recursive: true, force: true });

// The formatter over the whole repository first: the packages' lint checks their own folders, this
// also the shared files at the root.
const format = spawnSync("npx", ["prettier", "--check", "."], { cwd: root, stdio: "inherit" });

// The repository's own scripts (scripts/*.test.mjs, node:test): their TAP report is counted below.
mkdirSync(resultsDir, { recursive: true });
const scriptsReport = join(resultsDir, "scripts.tap");
const scripts = spawnSync(
  process.execPath,
  [
    "--test",
    "--test-reporter=spec",
    "--test-reporter-destination=stdout",
    "--test-reporter=tap",
    `--test-reporter-destination=${scriptsReport}`,
    "scripts/*.test.mjs",
  ],
  { cwd: root, stdio: "inherit" },
);

const nx = spawnSync("npx", ["nx", "run-many", "-t", "lint", "typecheck", "build", "test", "--outputStyle=stream"], {
  cwd: root,
  stdio: "inherit",
});

let passed = 0;
let failed = 0;
let skipped = 0;
if (existsSync(resultsDir)) {
  // Scoped package names (@kubekit/x) put their reports in a subfolder.
  for (const file of readdirSync(resultsDir, { recursive: true }).filter((f) => String(f).endsWith(".json"))) {
    const report = JSON.parse(readFileSync(join(resultsDir, file), "utf8"));
    passed += report.numPassedTests ?? 0;
    failed += report.numFailedTests ?? 0;
    skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
    // A file that failed outside its tests (an import error, a failing beforeAll) reports its
    // tests as skipped and none as failed: count the file itself as a failure.
    for (const result of report.testResults ?? []) {
      const failures = (result.assertionResults ?? []).filter((assertion) => assertion.status === "failed");
      const testFailed = failures.length > 0;
      // Name each failed test again here: with thirteen projects streaming at once, the
      // reporter's own lines are far up the log.
      for (const assertion of failures) {
        const message = (assertion.failureMessages ?? []).join("\n").split("\n").slice(0, 12).join("\n");
        console.error(`failed: ${result.name} > ${assertion.fullName ?? assertion.title}\n${message}`);
      }
      if (result.status === "failed" && !testFailed) {
        failed++;
        console.error(`failed outside its tests: ${result.name}\n${result.message ?? ""}`);
      }
    }
  }
}
if (existsSync(scriptsReport)) {
  const tap = readFileSync(scriptsReport, "utf8");
  const count = (name) => Number(new RegExp(`^# ${name} (\\d+)$`, "m").exec(tap)?.[1] ?? 0);
  passed += count("pass");
  failed += count("fail") + count("cancelled");
  skipped += count("skipped") + count("todo");
}
// A task that failed before its tests ran (lint, typecheck, build) still fails the run.
if ((nx.status !== 0 || format.status !== 0 || scripts.status !== 0) && failed === 0) failed = 1;
console.log(`${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}`);
process.exit(nx.status === 0 && format.status === 0 && scripts.status === 0 && failed === 0 ? 0 : 1);
