import { execFile } from "node:child_process";
// The real kubectl 1.32, found exactly as the control plane's suites find it (a missing or
// wrong-version client fails the suite, never skips it).
import { findKubectl132 } from "../../generic-controlplane/test/harness/tools.js";

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs kubectl 1.32 against `kubeconfig`; resolves with its exit code and output. */
export function kubectl(kubeconfig: string, args: readonly string[], timeoutMs = 30_000): Promise<KubectlResult> {
  return new Promise((resolve) => {
    execFile(findKubectl132(), ["--kubeconfig", kubeconfig, ...args], { timeout: timeoutMs, encoding: "utf8" }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : 1;
      resolve({ code, stdout, stderr });
    });
  });
}

/** Polls `probe` until it returns a value, failing with `what` and the last observation after `timeoutMs`. */
export async function eventually<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: Error | undefined;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (error) {
      last = error instanceof Error ? error : new Error(String(error));
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last !== undefined ? `: ${last.message}` : ""}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
