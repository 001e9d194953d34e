import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startEtcd, type EtcdProcess } from "../../test/harness/etcd.js";
import { RevisionReader } from "./etcd-revision-read.js";
import { createEtcdStorage } from "./etcd.js";
import type { Storage } from "./types.js";

/** Bytes the scavenges of a `--trace-gc-nvp` log promoted between its `start` and `end` lines. */
function promotedBetweenMarks(log: string): { promoted: number; scavenges: number } {
  let on = false;
  let promoted = 0;
  let scavenges = 0;
  for (const line of log.split("\n")) {
    if (line === "start") on = true;
    else if (line === "end") on = false;
    else if (on && line.includes(" gc=s ")) {
      scavenges++;
      promoted += Number(/ promoted=(\d+)/.exec(line)?.[1] ?? 0);
    }
  }
  return { promoted, scavenges };
}

describe("etcd revision reads", () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });
  async function member(options: Parameters<typeof startEtcd>[0] = {}): Promise<EtcdProcess> {
    const etcd = await startEtcd(options);
    cleanup.push(() => etcd.stop());
    return etcd;
  }
  function client(etcd: EtcdProcess): Storage {
    const storage = createEtcdStorage({
      endpoints: [etcd.endpoint],
      compactInterval: 0,
      requestTimeoutMs: 2000,
      ...(etcd.clientTls === undefined ? {} : { tls: etcd.clientTls }),
    });
    cleanup.push(() => storage.close());
    return storage;
  }

  // A GET of the latest state waits for a read of etcd's revision. Whatever such a read leaves
  // reachable survives young-generation collections, and every scavenge copies it again: at 2,000
  // GETs a second that was the server's p99. Objects a scavenge promotes lived through two of them.
  it("GETs from the watch cache leave next to nothing for young-generation collections to promote", async () => {
    const etcd = await member();
    const gets = 3000;
    const child = spawn(
      process.execPath,
      [
        "--experimental-transform-types",
        "--no-warnings",
        "--trace-gc-nvp",
        join(import.meta.dirname, "etcd-get-survival.fixture.ts"),
        etcd.endpoint,
        String(gets),
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    cleanup.push(() => {
      child.kill("SIGKILL");
      return Promise.resolve();
    });
    let log = "";
    let errors = "";
    child.stdout.on("data", (chunk: Buffer) => (log += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (errors += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
    expect(errors).toBe("");
    expect(code).toBe(0);
    const { promoted, scavenges } = promotedBetweenMarks(log);
    expect(scavenges).toBeGreaterThan(0);
    // Through the etcd3 gRPC client a read left 7-10 KB that lived through scavenges.
    expect(promoted / gets).toBeLessThan(1024);
  }, 60_000);

  it("reads the revision over gRPC from an etcd that does not serve its JSON gateway", async () => {
    const etcd = await member({ grpcGateway: false });
    const storage = client(etcd);
    const created = await storage.create("/registry/configmaps/ns/a", "v");
    expect(await storage.currentRevision()).toBe(created.modRevision);
    expect(await storage.get("/registry/configmaps/ns/a")).toEqual(created);
    const updated = await storage.update("/registry/configmaps/ns/a", "w", created.modRevision);
    expect(await storage.get("/registry/configmaps/ns/a")).toEqual(updated);
    const reader = new RevisionReader({ endpoint: etcd.endpoint, key: Buffer.from("/registry/"), timeoutMs: 2000 });
    await expect(reader.read()).rejects.toMatchObject({ notServed: true });
    reader.close();
  }, 30_000);

  it("reads the revision through the gateway over TLS with the client certificate", async () => {
    const etcd = await member({ tls: true });
    const storage = client(etcd);
    const created = await storage.create("/registry/secrets/ns/s", "v");
    expect(await storage.currentRevision()).toBe(created.modRevision);
    expect(await storage.get("/registry/secrets/ns/s")).toEqual(created);
    const reader = new RevisionReader({ endpoint: etcd.endpoint, key: Buffer.from("/registry/"), tls: etcd.clientTls, timeoutMs: 2000 });
    expect(await reader.read()).toBe(created.modRevision);
    reader.close();
    const anonymous = new RevisionReader({
      endpoint: etcd.endpoint,
      key: Buffer.from("/registry/"),
      tls: { ca: etcd.clientTls!.ca },
      timeoutMs: 2000,
    });
    await expect(anonymous.read()).rejects.toBeInstanceOf(Error);
    anonymous.close();
  }, 30_000);
});
