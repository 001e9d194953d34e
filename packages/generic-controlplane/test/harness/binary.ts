import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { createInterface } from "node:readline";

/** A server binary started as a child process (an example's `dist/main.js`). */
export interface RunningBinary {
  url: string;
  child: ChildProcess;
  /** Every stdout line so far. */
  stdout: string[];
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL after 5 s; resolves once the process is gone. */
  stop(): Promise<void>;
}

/** Starts `node <script> <args>` and waits for its `ready <url>` line (20 s at most). */
export function startBinary(script: string, args: string[], cwd: string): Promise<RunningBinary> {
  if (!existsSync(script)) throw new Error(`${script} is missing: run "npm run build" first`);
  const child = spawn(process.execPath, [script, ...args], { cwd, stdio: ["ignore", "pipe", "pipe"] });
  const stdout: string[] = [];
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
    await exited;
    clearTimeout(timer);
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`not ready in 20 s; stderr: ${stderr}`));
    }, 20_000);
    createInterface({ input: child.stdout }).on("line", (line) => {
      stdout.push(line);
      const match = /^ready (https?:\/\/\S+)$/.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve({ url: match[1]!, child, stdout, exited, stop });
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code} before ready; stderr: ${stderr}`));
    });
  });
}
