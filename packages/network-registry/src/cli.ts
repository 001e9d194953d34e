#!/usr/bin/env node
import { basename } from "node:path";
import { runCli } from "./cli/program.js";

// Installed as `kubectl-kana` on the PATH, kubectl runs it for `kubectl kana …`.
const name = basename(process.argv[1] ?? "").startsWith("kubectl-") ? "kubectl kana" : "kana";

runCli(
  process.argv.slice(2),
  {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
  },
  { name },
).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`kana: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 2;
  },
);
