// The API report of a package: one `etc/<entry>.api.md` per subpath export, written by API Extractor
// from the built declarations. Run from a package directory after its build:
//   node ../../scripts/api-report.mjs            fails when an entry's surface differs from its report
//   node ../../scripts/api-report.mjs --update   rewrites the reports (commit them with the change)
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { spawnSync } from "node:child_process";
import { Extractor, ExtractorConfig } from "@microsoft/api-extractor";

const packageDir = process.cwd();
const update = process.argv.includes("--update");
const packageJsonPath = join(packageDir, "package.json");
const pkg = JSON.parse(readFileSync(packageJsonPath, "utf8"));

/** `.` → `index`, `./storage` → `storage`; only entries with ESM declarations get a report. */
function entries() {
  const found = [];
  for (const [subpath, target] of Object.entries(pkg.exports ?? {})) {
    const types = typeof target === "object" ? target.import?.types : undefined;
    if (typeof types !== "string") continue;
    found.push({ name: subpath === "." ? "index" : subpath.slice(2).replaceAll("/", "-"), types: resolve(packageDir, types) });
  }
  return found;
}

const reportFolder = join(packageDir, "etc");
mkdirSync(reportFolder, { recursive: true });
const tempFolder = mkdtempSync(join(tmpdir(), "api-report-"));
let failed = false;
try {
  for (const entry of entries()) {
    const config = ExtractorConfig.prepare({
      packageJsonFullPath: packageJsonPath,
      configObjectFullPath: join(packageDir, "api-extractor.json"),
      configObject: {
        projectFolder: packageDir,
        mainEntryPointFilePath: entry.types,
        compiler: {
          overrideTsconfig: {
            compilerOptions: {
              target: "ES2022",
              lib: ["ES2023"],
              module: "NodeNext",
              moduleResolution: "NodeNext",
              types: ["node"],
              strict: true,
              skipLibCheck: true,
            },
            files: [entry.types],
          },
        },
        apiReport: {
          enabled: true,
          reportFileName: entry.name,
          reportFolder,
          reportTempFolder: tempFolder,
          // A type an entry mentions but leaves to another entry (or to no entry) is written out in
          // its report too, so a change to it shows in every report whose surface it changes.
          includeForgottenExports: true,
        },
        docModel: { enabled: false },
        dtsRollup: { enabled: false },
        tsdocMetadata: { enabled: false },
        messages: {
          compilerMessageReporting: { default: { logLevel: "error" } },
          // Release tags (@public, @beta) are not used: every exported name is public.
          extractorMessageReporting: {
            default: { logLevel: "warning" },
            "ae-missing-release-tag": { logLevel: "none" },
            // Documentation is reviewed in the sources, not enforced per member here.
            "ae-undocumented": { logLevel: "none" },
            // Written out by includeForgottenExports above; the warning itself would carry source
            // positions in hashed chunk names, which change with unrelated edits.
            "ae-forgotten-export": { logLevel: "none", addToApiReportFile: false },
            // {@link} is resolved against the entry being reported, but a declaration two entries
            // share (one chunk) may name what only the other exports, e.g. `/kube` documenting
            // NetworkRegistry; TypeScript and editors resolve those links, which is what readers use.
            "ae-unresolved-link": { logLevel: "none" },
          },
          tsdocMessageReporting: { default: { logLevel: "none" } },
        },
      },
    });
    const result = Extractor.invoke(config, {
      localBuild: update,
      messageCallback: (message) => {
        // Said once per entry, and the changed report is shown as a diff below instead.
        if (message.messageId === "console-preamble" || message.messageId === "console-api-report-not-copied") message.handled = true;
      },
    });
    if (result.apiReportChanged && !update) {
      spawnSync("diff", ["-u", join(reportFolder, `${entry.name}.api.md`), join(tempFolder, `${entry.name}.api.md`)], { stdio: "inherit" });
      console.error(
        `${pkg.name}: the API of entry ${entry.name} differs from etc/${entry.name}.api.md; if the change is deliberate, run \`npm run api:update\` and commit the report.`,
      );
      failed = true;
    } else if (!result.succeeded) {
      console.error(`${pkg.name}: API Extractor reported ${result.errorCount} errors for entry ${entry.name}.`);
      failed = true;
    } else if (result.warningCount > 0 && !update) {
      console.error(`${pkg.name}: API Extractor reported ${result.warningCount} warnings for entry ${entry.name}.`);
      failed = true;
    }
  }
} finally {
  rmSync(tempFolder, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
