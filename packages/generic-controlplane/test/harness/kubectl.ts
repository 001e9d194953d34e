import { join } from "node:path";
import { run, startStreaming, type RunResult, type StreamingProcess } from "./run.js";
import type { TestServer } from "./server.js";

/** A kubectl binary bound to one server: its own kubeconfig and discovery cache, no user config. */
export class Kubectl {
  constructor(
    readonly binary: string,
    readonly server: TestServer,
  ) {}

  private env(): Record<string, string> {
    // HOME points into the server's temp dir so ~/.kube never leaks in or out.
    return { HOME: this.server.dir, KUBECONFIG: this.server.kubeconfigPath, KUBECTL_EXTERNAL_DIFF: "" };
  }

  private args(args: readonly string[]): string[] {
    return ["--kubeconfig", this.server.kubeconfigPath, "--cache-dir", join(this.server.dir, "kube-cache"), ...args];
  }

  /** Runs kubectl to completion; `env` adds variables (e.g. `KUBE_EDITOR`). */
  run(args: readonly string[], options: { input?: string; timeoutMs?: number; env?: Record<string, string> } = {}): Promise<RunResult> {
    return run(this.binary, this.args(args), {
      env: { ...this.env(), ...options.env },
      timeoutMs: options.timeoutMs ?? 30_000,
      ...(options.input === undefined ? {} : { input: options.input }),
    });
  }

  /** Runs kubectl and fails with its output unless it exits 0; returns stdout. */
  async ok(args: readonly string[], options: { input?: string; timeoutMs?: number; env?: Record<string, string> } = {}): Promise<string> {
    const result = await this.run(args, options);
    if (result.code !== 0) {
      throw new Error(
        `kubectl ${args.join(" ")} exited ${result.code ?? result.signal}\nstdout:\n${result.stdout}\nstderr:\n${result.stderr}`,
      );
    }
    return result.stdout;
  }

  /** Runs kubectl with `-o json` and parses stdout. */
  async json<T = Record<string, unknown>>(args: readonly string[]): Promise<T> {
    return JSON.parse(await this.ok([...args, "-o", "json"])) as T;
  }

  /** Starts a long-running kubectl (e.g. `get -w`) whose stdout is read as it arrives. */
  stream(args: readonly string[]): StreamingProcess {
    return startStreaming(this.binary, this.args(args), { env: this.env() });
  }
}

/** Rows of kubectl's table output: header cells and each row's cells, split on 2+ spaces. */
export function parseTable(stdout: string): { header: string[]; rows: string[][] } {
  const lines = stdout.split("\n").filter((line) => line.trim() !== "");
  const split = (line: string) => line.trim().split(/\s{2,}/);
  return { header: lines[0] ? split(lines[0]) : [], rows: lines.slice(1).map(split) };
}
