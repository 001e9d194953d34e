import { execFile, spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";

/** Test support: the built `kana` binary (dist/cli.js), run as a process the way a user runs it. */
export const CLI = fileURLToPath(new URL("../../dist/cli.js", import.meta.url));

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `file args` with `env` replacing the environment (PATH and HOME are kept unless given). */
export function run(file: string, args: readonly string[], env: NodeJS.ProcessEnv = {}, timeoutMs = 30_000): Promise<Run> {
  return new Promise((resolve) => {
    const base: NodeJS.ProcessEnv = { PATH: process.env["PATH"], HOME: process.env["HOME"] };
    execFile(file, [...args], { timeout: timeoutMs, env: { ...base, ...env } }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

/** `kana args…` with only `env` (and PATH, HOME) in its environment, so KUBECONFIG is what the test says. */
export function kana(args: readonly string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return run(process.execPath, [CLI, ...args], env);
}

/** Starts `kana args…` in the background; `stderr` accumulates its output. */
export function startKana(args: readonly string[]): { child: ChildProcess; stderr: () => string; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [CLI, ...args], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { PATH: process.env["PATH"], HOME: process.env["HOME"] },
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  return { child, stderr: () => stderr, exited };
}
