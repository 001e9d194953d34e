import { spawn } from "node:child_process";
import { CcmE2eError } from "../errors.js";

export interface ExecOptions {
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
  /** Names the hook in errors, e.g. `hooks.deleteInstance`. */
  hook: string;
}

const TAIL = 2000;

/**
 * Runs one hook command without a shell and resolves with its stdout. A non-zero exit, a signal,
 * a spawn failure or the timeout is a `driver-hook-failed` error quoting the command and the end
 * of its stderr.
 */
export function runCommand(argv: readonly string[], options: ExecOptions): Promise<string> {
  const [command, ...args] = argv;
  const shown = argv.join(" ");
  return new Promise((resolve, reject) => {
    const child = spawn(command!, args, { env: options.env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr = (stderr + chunk).slice(-TAIL)));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, options.timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(
        new CcmE2eError("driver-hook-failed", `${options.hook}: cannot run ${JSON.stringify(shown)}: ${error.message}`, { cause: error }),
      );
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      if (code === 0) return resolve(stdout);
      const why = timedOut
        ? `did not finish within ${options.timeoutMs} ms`
        : signal
          ? `was killed by ${signal}`
          : `exited with status ${code}`;
      const detail = stderr.trim() === "" ? "" : `: ${stderr.trim()}`;
      reject(new CcmE2eError("driver-hook-failed", `${options.hook}: ${JSON.stringify(shown)} ${why}${detail}`));
    });
  });
}
