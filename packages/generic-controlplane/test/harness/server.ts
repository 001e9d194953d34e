import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createControlPlane } from "../../src/index.js";
import { createMemoryStorage, createSqliteStorage, type Storage } from "../../src/storage/index.js";
import { startEtcdStorage } from "./etcd.js";

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
  /** `etcd` starts a real etcd member of its own, stopped by `close()`. */
  storage?: "memory" | "sqlite" | "etcd";
  /** Run the in-process controllers (namespace deletion, garbage collection). */
  controllers?: boolean;
  /** The storage's compaction interval in milliseconds (default the backend's, 5 minutes). */
  compactIntervalMs?: number;
}

/** Starts `createControlPlane` in this process on a free 127.0.0.1 port. */
export async function startInProcess(options: InProcessOptions = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), "kubekit-gcp-e2e-"));
  const storage = await openStorage(options.storage ?? "memory", dir, options.compactIntervalMs);
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

async function openStorage(
  kind: NonNullable<InProcessOptions["storage"]>,
  dir: string,
  compactInterval: number | undefined,
): Promise<Storage> {
  const compaction = compactInterval === undefined ? {} : { compactInterval };
  if (kind === "sqlite") return createSqliteStorage({ path: join(dir, "state.db"), ...compaction });
  if (kind === "memory") return createMemoryStorage(compaction);
  return startEtcdStorage(compaction);
}
