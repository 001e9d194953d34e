import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createEtcdStorage, type EtcdStorageOptions } from "../../src/storage/etcd.js";
import type { Storage } from "../../src/storage/types.js";

/**
 * A real etcd (Debian's `etcd-server`) on 127.0.0.1, one member, its data in a temp dir that goes
 * away with it. A missing binary is an error, never a skip: CI installs it (`.ci/run`).
 */
export interface EtcdProcess {
  /** The client URL, e.g. `http://127.0.0.1:41234`. */
  readonly endpoint: string;
  readonly process: ChildProcess;
  /** SIGKILLs the member and removes its data (idempotent). */
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function startEtcd(timeoutMs = 15_000): Promise<EtcdProcess> {
  const dir = mkdtempSync(join(tmpdir(), "kubekit-etcd-"));
  const [clientPort, peerPort] = [await freePort(), await freePort()];
  const endpoint = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const child = spawn(
    "etcd",
    [
      "--name", "default",
      "--data-dir", join(dir, "data"),
      "--listen-client-urls", endpoint,
      "--advertise-client-urls", endpoint,
      "--listen-peer-urls", peer,
      "--initial-advertise-peer-urls", peer,
      "--initial-cluster", `default=${peer}`,
      // A one-member cluster elects itself after one election timeout; keep it short for tests.
      "--heartbeat-interval", "10",
      "--election-timeout", "50",
      "--log-level", "error",
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr = (stderr + chunk).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const spawnError = new Promise<never>((_, reject) =>
    child.once("error", (error) => reject(new Error(`etcd (Debian's etcd-server) is required by these tests and could not be started: ${error.message}. CI installs it (.ci/run).`))),
  );
  let stopped = false;
  const stop = async (): Promise<void> => {
    if (!stopped) {
      stopped = true;
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await Promise.race([spawnError, waitHealthy(endpoint, timeoutMs, () => stderr, () => child.exitCode)]);
  } catch (error) {
    await stop();
    throw error;
  }
  return { endpoint, process: child, stop };
}

/** etcd's `/health` answers `{"health":"true"}` once the member has a leader and serves requests. */
async function waitHealthy(endpoint: string, timeoutMs: number, stderr: () => string, exitCode: () => number | null): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exitCode() !== null) throw new Error(`etcd exited with code ${exitCode()}: ${stderr()}`);
    try {
      const response = await fetch(`${endpoint}/health`, { signal: AbortSignal.timeout(1000) });
      const body = (await response.json()) as { health?: string };
      if (body.health === "true") return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`etcd at ${endpoint} was not healthy within ${timeoutMs} ms: ${stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A Storage on a fresh etcd member of its own; closing the storage stops the member. */
export async function startEtcdStorage(options: Omit<EtcdStorageOptions, "endpoints"> = {}): Promise<Storage & { etcd: EtcdProcess }> {
  const etcd = await startEtcd();
  const storage = createEtcdStorage({ ...options, endpoints: [etcd.endpoint] });
  const close = storage.close.bind(storage);
  storage.close = async () => {
    try {
      await close();
    } finally {
      await etcd.stop();
    }
  };
  return Object.assign(storage, { etcd });
}
