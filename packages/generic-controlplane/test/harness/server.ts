import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { createControlPlane, createMemoryStorage, createSqliteStorage } from "../../src/index.js";
import type { Storage } from "../../src/index.js";
import { repoRoot } from "./tools.js";

/** A running server plus what a client needs to reach it; `close()` frees the port and temp dir. */
export interface TestServer {
  url: string;
  /** A kubeconfig file pointing at the server, in a private temp dir. */
  kubeconfigPath: string;
  /** The private temp dir (kubeconfig, sqlite file, client caches). */
  dir: string;
  /** Only for in-process servers: the storage backend, e.g. to compact it. */
  storage?: Storage;
  close(): Promise<void>;
}

export interface InProcessOptions {
  storage?: "memory" | "sqlite";
  /** Run the in-process controllers (namespace deletion, garbage collection). */
  controllers?: boolean;
}

/** Starts `createControlPlane` in this process on a free 127.0.0.1 port. */
export async function startInProcess(options: InProcessOptions = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), "kubekit-gcp-e2e-"));
  const storage =
    options.storage === "sqlite" ? await createSqliteStorage({ path: join(dir, "state.db") }) : createMemoryStorage();
  try {
    const plane = await createControlPlane({ storage, port: 0, host: "127.0.0.1", ...(options.controllers ? { controllers: true } : {}) });
    const kubeconfigPath = join(dir, "kubeconfig");
    await plane.writeKubeconfig(kubeconfigPath);
    return {
      url: plane.url,
      kubeconfigPath,
      dir,
      storage,
      async close() {
        try {
          await plane.close();
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    await storage.close();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

/** The built sample binary (`examples/sample-generic-controlplane`). */
export const sampleBinary = join(repoRoot, "examples", "sample-generic-controlplane", "dist", "main.js");

export interface ProcessServerOptions {
  storage?: "memory" | "sqlite";
  /** Milliseconds to wait for the `ready <url>` line (default 20 s). */
  readyTimeoutMs?: number;
}

/** Runs the sample binary as a child process and waits for its `ready <url>` line. */
export async function startSampleBinary(options: ProcessServerOptions = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), "kubekit-gcp-bin-"));
  const kubeconfigPath = join(dir, "kubeconfig");
  const storage = options.storage === "sqlite" ? `sqlite:${join(dir, "state.db")}` : "memory";
  const child = spawn(process.execPath, [sampleBinary, "--port", "0", "--storage", storage, "--kubeconfig", kubeconfigPath], {
    cwd: dir,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-8_000);
  });
  const exited = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no "ready <url>" line within ${options.readyTimeoutMs ?? 20_000} ms; stderr:\n${stderr}`)),
        options.readyTimeoutMs ?? 20_000,
      );
      const lines = createInterface({ input: child.stdout });
      lines.on("line", (line) => {
        const match = /^ready (\S+)$/.exec(line.trim());
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
      child.once("close", (code) => {
        clearTimeout(timer);
        reject(new Error(`sample binary exited with ${code} before ready; stderr:\n${stderr}`));
      });
    });
    return { url, kubeconfigPath, dir, close: stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Writes a kubeconfig for a plain-HTTP server (used when a test builds its own). */
export function writeKubeconfig(path: string, url: string, namespace = "default"): void {
  writeFileSync(
    path,
    [
      "apiVersion: v1",
      "kind: Config",
      "clusters:",
      "- name: kubekit",
      `  cluster: { server: "${url}" }`,
      "users:",
      "- name: kubekit",
      "  user: {}",
      "contexts:",
      "- name: kubekit",
      `  context: { cluster: kubekit, user: kubekit, namespace: ${namespace} }`,
      "current-context: kubekit",
      "",
    ].join("\n"),
  );
}

/**
 * The server the real-client suites talk to. The acceptance target is the sample binary; when
 * its build output is absent (the package's own test run does not build the example) the same
 * `createControlPlane` runs in-process, which is what the binary wraps.
 */
export async function startForClients(options: { storage?: "memory" | "sqlite" } = {}): Promise<TestServer> {
  return existsSync(sampleBinary) ? startSampleBinary(options) : startInProcess(options);
}
