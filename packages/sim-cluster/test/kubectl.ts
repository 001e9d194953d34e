import { execFile, execFileSync } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * The real kubectl 1.32 these tests drive, found as the control plane's suites find it:
 * `$KUBECTL`, else `kubectl` on the PATH (or its pinned `kubectl.1.32` sibling), else
 * `.tools/kubectl-1.32/kubectl`. A missing client fails the suite, never skips it.
 */
const repoRoot = join(import.meta.dirname, "..", "..", "..");

function clientMinor(binary: string): string | undefined {
  try {
    const out = execFileSync(binary, ["version", "--client", "-o", "json"], { encoding: "utf8", timeout: 20_000 });
    const parsed = JSON.parse(out) as { clientVersion?: { major?: string; minor?: string } };
    return `${parsed.clientVersion?.major}.${parsed.clientVersion?.minor}`;
  } catch {
    return undefined;
  }
}

function which(command: string): string | undefined {
  try {
    return execFileSync("sh", ["-c", `command -v ${command}`], { encoding: "utf8" }).trim() || undefined;
  } catch {
    return undefined;
  }
}

let found: string | undefined;

export function findKubectl132(): string {
  if (found) return found;
  const candidates: string[] = [];
  if (process.env["KUBECTL"]) candidates.push(process.env["KUBECTL"]);
  const onPath = which("kubectl");
  if (onPath) {
    const pinned = join(dirname(realpathSync(onPath)), "kubectl.1.32");
    if (existsSync(pinned)) candidates.push(pinned);
    candidates.push(onPath);
  }
  candidates.push(join(repoRoot, ".tools", "kubectl-1.32", "kubectl"));
  for (const candidate of candidates) if (clientMinor(candidate) === "1.32") return (found = candidate);
  throw new Error(`kubectl 1.32 is required by these tests and was not found (tried ${candidates.join(", ")}); set KUBECTL or run packages/generic-controlplane/scripts/install-kubectl-1.32.sh`);
}

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
