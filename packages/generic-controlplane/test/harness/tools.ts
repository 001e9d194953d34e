import { execFileSync } from "node:child_process";
import { existsSync, realpathSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * Locates the real clients the end-to-end suites drive. A missing client is an error, never a
 * skip: the suites exist to prove that these exact clients work, so CI must install them
 * (`.ci/run`) and a developer machine must have them too.
 */

export const packageDir = join(import.meta.dirname, "..", "..");
export const repoRoot = join(packageDir, "..", "..");

function missing(what: string, hint: string): Error {
  const where = process.env["CI"] ? "CI must provide it (.ci/run)" : "install it locally";
  return new Error(`${what} is required by the end-to-end tests and was not found: ${where}. ${hint}`);
}

function which(command: string): string | undefined {
  try {
    return execFileSync("sh", ["-c", `command -v ${command}`], { encoding: "utf8" }).trim() || undefined;
  } catch {
    return undefined;
  }
}

function clientMinor(binary: string): string | undefined {
  try {
    const out = execFileSync(binary, ["version", "--client", "-o", "json"], { encoding: "utf8", timeout: 20_000 });
    const parsed = JSON.parse(out) as { clientVersion?: { major?: string; minor?: string } };
    return `${parsed.clientVersion?.major}.${parsed.clientVersion?.minor}`;
  } catch {
    return undefined;
  }
}

let kubectl132: string | undefined;

/**
 * kubectl 1.32: `$KUBECTL`, else `kubectl` on the PATH, else `.tools/kubectl-1.32/kubectl`, where
 * `scripts/install-kubectl-1.32.sh` unpacks it (CI runs it; a test never installs). A Cloud SDK
 * `kubectl` is a dispatcher that may pick another minor version depending on the server it talks
 * to, so its pinned `kubectl.1.32` sibling is preferred when present. Only a client that reports
 * exactly 1.32 is accepted.
 */
export function findKubectl132(): string {
  if (kubectl132) return kubectl132;
  const candidates: string[] = [];
  const fromEnv = process.env["KUBECTL"];
  if (fromEnv) candidates.push(fromEnv);
  const onPath = which("kubectl");
  if (onPath) {
    const pinned = join(dirname(realpathSync(onPath)), "kubectl.1.32");
    if (existsSync(pinned)) candidates.push(pinned);
    candidates.push(onPath);
  }
  for (const candidate of candidates) {
    if (clientMinor(candidate) === "1.32") return (kubectl132 = candidate);
  }
  const unpacked = join(repoRoot, ".tools", "kubectl-1.32", "kubectl");
  if (!fromEnv) {
    if (clientMinor(unpacked) === "1.32") return (kubectl132 = unpacked);
    candidates.push(unpacked);
  }
  throw missing(
    "kubectl 1.32",
    `Tried: ${candidates.join(", ")}; set KUBECTL to a 1.32 binary or run packages/generic-controlplane/scripts/install-kubectl-1.32.sh.`,
  );
}

let kubectl120: string | undefined;

/**
 * kubectl 1.20 (Debian's kubernetes-client): `$KUBECTL_1_20`, else `.tools/kubectl-1.20`, where
 * `scripts/install-kubectl-1.20.sh` unpacks it (CI runs it; a test never installs).
 */
export function findKubectl120(): string {
  if (kubectl120) return kubectl120;
  const fromEnv = process.env["KUBECTL_1_20"];
  const binary = fromEnv ?? join(repoRoot, ".tools", "kubectl-1.20", "usr", "bin", "kubectl");
  if (!existsSync(binary)) {
    throw missing(
      "kubectl 1.20",
      `${binary} does not exist. Run packages/generic-controlplane/scripts/install-kubectl-1.20.sh (after apt-get update).`,
    );
  }
  const version = clientMinor(binary);
  if (version !== "1.20") throw missing("kubectl 1.20", `${binary} reports client version ${version ?? "nothing"}.`);
  return (kubectl120 = binary);
}

let python: string | undefined;

/** A python3 that can `import kubernetes` (Debian python3-kubernetes lives in /usr/bin/python3's path). */
export function findPython(): string {
  if (python) return python;
  const candidates = [process.env["PYTHON"], "python3", "/usr/bin/python3"].filter((c): c is string => !!c);
  for (const candidate of candidates) {
    try {
      execFileSync(candidate, ["-c", "import kubernetes"], { stdio: "ignore", timeout: 30_000 });
      return (python = candidate);
    } catch {
      // next
    }
  }
  throw missing("python3 with the kubernetes package", `Tried ${candidates.join(", ")}; apt-get install python3-kubernetes.`);
}
