import { spawn, type ChildProcess } from "node:child_process";

export interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface RunOptions {
  env?: Record<string, string | undefined>;
  input?: string;
  cwd?: string;
  /** Kill the process after this many milliseconds (default 30 s). */
  timeoutMs?: number;
}

const liveChildren = new Set<ChildProcess>();

/** Kills every child process a test started and has not reaped yet (afterAll safety net). */
export function killAllChildren(): void {
  for (const child of liveChildren) child.kill("SIGKILL");
  liveChildren.clear();
}

function track(child: ChildProcess): void {
  liveChildren.add(child);
  child.once("exit", () => liveChildren.delete(child));
}

/**
 * Runs a command to completion without blocking the event loop (an in-process server must keep
 * answering while the client talks to it).
 */
export function run(command: string, args: readonly string[], options: RunOptions = {}): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: { ...process.env, ...options.env },
      // No input: no pipe, so a command that exits at once cannot fail our write with EPIPE.
      stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"],
    });
    track(child);
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      stderr += `\n[harness] killed after ${options.timeoutMs ?? 30_000} ms`;
    }, options.timeoutMs ?? 30_000);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
    if (child.stdin) {
      // A command that exits before reading all of its input shows in its exit code and output;
      // the EPIPE our write then gets is not a second error.
      child.stdin.on("error", (error: NodeJS.ErrnoException) => {
        if (error.code !== "EPIPE") stderr += `\n[harness] stdin: ${error.message}`;
      });
      child.stdin.end(options.input);
    }
  });
}

/** A long-running command whose stdout is read incrementally (e.g. `kubectl get -w`). */
export interface StreamingProcess {
  readonly child: ChildProcess;
  /** Everything printed to stdout so far. */
  stdout(): string;
  stderr(): string;
  /** Resolves once stdout satisfies `predicate`; rejects after `timeoutMs` or if the process exits first. */
  waitFor(predicate: (stdout: string) => boolean, timeoutMs?: number): Promise<string>;
  /** Kills the process and waits for it to exit. */
  stop(): Promise<void>;
}

export function startStreaming(command: string, args: readonly string[], options: RunOptions = {}): StreamingProcess {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  track(child);
  let out = "";
  let err = "";
  let exited = false;
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const waiter of [...waiters]) waiter();
  };
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    out += chunk;
    notify();
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (err += chunk));
  const exit = new Promise<void>((resolve) =>
    child.once("close", () => {
      exited = true;
      notify();
      resolve();
    }),
  );
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    waitFor(predicate, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (predicate(out)) {
            cleanup();
            resolve(out);
          } else if (exited) {
            cleanup();
            reject(new Error(`process exited before the expected output.\nstdout:\n${out}\nstderr:\n${err}`));
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`timed out after ${timeoutMs} ms waiting for output.\nstdout:\n${out}\nstderr:\n${err}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    async stop() {
      if (!exited) child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 3_000);
      await exit;
      clearTimeout(timer);
    },
  };
}
