// `npm start`: builds the sample control plane (and the library it bundles), then runs it with the
// given flags (default: SQLite under .kubekit/, port 8080). Build output goes to stderr so stdout
// carries only the binary's own `ready <url>` line.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const sample = join(root, "examples", "sample-generic-controlplane");
if (!existsSync(join(sample, "package.json"))) {
  console.error("The sample control plane (examples/sample-generic-controlplane) is not built yet.");
  process.exit(1);
}
const build = spawnSync("npx", ["nx", "run", "sample-generic-controlplane:build", "--outputStyle=stream"], { cwd: root, stdio: ["inherit", 2, 2] });
if (build.status !== 0) process.exit(build.status ?? 1);
const run = spawnSync(process.execPath, [join(sample, "dist", "main.js"), ...process.argv.slice(2)], { cwd: root, stdio: "inherit" });
process.exit(run.status ?? 1);
