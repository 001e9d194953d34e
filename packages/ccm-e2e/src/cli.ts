#!/usr/bin/env node
import { runCli } from "./cli/program.js";

// Ctrl-C interrupts the run: the running tests clean up (namespaces, cloud resources) and the
// driver tears down before the process exits; a second Ctrl-C exits at once.
const controller = new AbortController();
process.once("SIGINT", () => {
  process.stderr.write("\nccm-e2e: interrupted, cleaning up (Ctrl-C again to exit at once)\n");
  controller.abort();
  process.once("SIGINT", () => process.exit(130));
});

// A reader that goes away (`ccm-e2e list | head -1`) is not an error: output stops, the run goes on
// to its cleanup and exit code.
let stdoutOpen = true;
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
  if (error.code !== "EPIPE") throw error;
  stdoutOpen = false;
});

runCli(process.argv.slice(2), {
  stdout: (text) => {
    if (stdoutOpen) process.stdout.write(text);
  },
  stderr: (text) => process.stderr.write(text),
  tty: process.stdout.isTTY === true,
  signal: controller.signal,
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`ccm-e2e: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 2;
  },
);
