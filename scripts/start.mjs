// `npm start`: builds the sample control plane (and the library it bundles) quietly, then runs it
// with the given flags (none given: SQLite under .kubekit/, port 8080, no per-request log lines).
// The build's output is shown only when it fails; stdout carries the binary's own lines: `ready
// <url>` and the kubectl command that reaches the server.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const sample = join(root, "examples", "sample-generic-controlplane");
if (!existsSync(join(sample, "package.json"))) {
  console.error("The sample control plane (examples/sample-generic-controlplane) is missing from this checkout.");
  process.exit(1);
}
process.stderr.write("building the sample control plane ... ");
const build = spawnSync("npx", ["nx", "run", "sample-generic-controlplane:build", "--outputStyle=stream"], {
  cwd: root,
  encoding: "utf8",
  stdio: ["inherit", "pipe", "pipe"],
});
if (build.status !== 0) {
  process.stderr.write(`failed:\n${build.stdout}${build.stderr}`);
  process.exit(build.status ?? 1);
}
process.stderr.write("done\n");
const flags = process.argv.slice(2);
const run = spawnSync(process.execPath, [join(sample, "dist", "main.js"), ...(flags.length > 0 ? flags : ["--quiet"])], {
  cwd: root,
  stdio: "inherit",
});
process.exit(run.status ?? 1);
