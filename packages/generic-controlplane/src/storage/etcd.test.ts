import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { startEtcd, startEtcdStorage, type EtcdProcess } from "../../test/harness/etcd.js";
import { eventually, expectCode, runStorageConformance } from "./conformance.js";
import { createEtcdStorage } from "./etcd.js";
import type { Storage, StorageEvent } from "./types.js";

runStorageConformance("etcd", () => startEtcdStorage({ compactInterval: 0 }));

const run = promisify(execFile);

/** etcdctl (Debian's etcd-client), the etcd project's own client, reading what the backend wrote. */
async function etcdctl(etcd: EtcdProcess, ...args: string[]): Promise<string> {
  const { stdout } = await run("etcdctl", ["--endpoints", etcd.endpoint, ...args], { env: { ...process.env, ETCDCTL_API: "3" } });
  return stdout;
}

describe("createEtcdStorage", () => {
  const cleanup: Array<() => Promise<void>> = [];
  afterEach(async () => {
    for (const step of cleanup.splice(0).reverse()) await step();
  });
  async function member(): Promise<EtcdProcess> {
    const etcd = await startEtcd();
    cleanup.push(() => etcd.stop());
    return etcd;
  }
  function client(etcd: EtcdProcess, prefix?: string): Storage {
    const storage = createEtcdStorage({ endpoints: [etcd.endpoint], compactInterval: 0, requestTimeoutMs: 2000, ...(prefix === undefined ? {} : { prefix }) });
    cleanup.push(() => storage.close());
    return storage;
  }

  it("lays keys out as kube-apiserver does, under --etcd-prefix, with the value as written", async () => {
    const etcd = await member();
    const kube = client(etcd);
    const other = client(etcd, "/tenant-b");
    const value = JSON.stringify({ kind: "ConfigMap", data: { a: "1" } });
    const created = await kube.create("/registry/configmaps/default/demo", value);
    await other.create("/registry/configmaps/default/demo", "b");
    expect(await etcdctl(etcd, "get", "--prefix", "/registry/", "--keys-only")).toBe("/registry/configmaps/default/demo\n\n");
    expect(await etcdctl(etcd, "get", "/registry/configmaps/default/demo", "--print-value-only")).toBe(`${value}\n`);
    expect(await etcdctl(etcd, "get", "/tenant-b/configmaps/default/demo", "--print-value-only")).toBe("b\n");
    // The resourceVersion is etcd's own revision of the key.
    const stored = JSON.parse(await etcdctl(etcd, "get", "/registry/configmaps/default/demo", "-w", "json")) as { kvs: Array<{ mod_revision: number }> };
    expect(stored.kvs[0]!.mod_revision).toBe(created.modRevision);
    // Prefixes do not see each other.
    expect((await other.list("/registry/configmaps")).items.map((kv) => kv.value)).toEqual(["b"]);
  });

  it("lets two clients on one etcd share revisions, compare-and-swap and watches, in order", async () => {
    const etcd = await member();
    const [a, b] = [client(etcd), client(etcd)];
    const start = await a.currentRevision();
    const seen: StorageEvent[] = [];
    await b.watch("/registry/leases", { afterRevision: start, onEvents: (events) => seen.push(...events) });
    const first = await a.create("/registry/leases/ns/l", "holder-a");
    // b wins the swap on a's revision; a's own swap on the same revision then conflicts.
    const taken = await b.update("/registry/leases/ns/l", "holder-b", first.modRevision);
    await expectCode(a.update("/registry/leases/ns/l", "holder-a2", first.modRevision), "Conflict");
    const removed = await a.delete("/registry/leases/ns/l", taken.modRevision);
    await eventually(() => seen.length === 3);
    expect(seen.map((e) => `${e.type} ${e.kv.value}@${e.kv.modRevision}`)).toEqual([
      `put holder-a@${first.modRevision}`,
      `put holder-b@${taken.modRevision}`,
      `delete holder-b@${removed.modRevision}`,
    ]);
    expect(await b.get("/registry/leases/ns/l", { revision: taken.modRevision })).toEqual(taken);
  });

  it("reports compaction done by another etcd client as Expired with the compacted revision", async () => {
    const etcd = await member();
    const s = client(etcd);
    const old = await s.create("/registry/configmaps/ns/a", "1");
    await s.update("/registry/configmaps/ns/a", "2", old.modRevision);
    const latest = await s.create("/registry/configmaps/ns/b", "b");
    await etcdctl(etcd, "compact", String(latest.modRevision));
    expect(await s.compactedRevision()).toBe(latest.modRevision);
    await expectCode(s.get("/registry/configmaps/ns/a", { revision: old.modRevision }), "Expired");
    await expect(s.watch("/registry/configmaps", { afterRevision: old.modRevision, onEvents: () => {} })).rejects.toThrow(
      `too old resource version: ${old.modRevision} (${latest.modRevision})`,
    );
    expect((await s.get("/registry/configmaps/ns/a"))?.value).toBe("2");
  });

  it("answers 503 and fails its health check and its watches while etcd is down", async () => {
    const etcd = await member();
    const s = client(etcd);
    await s.create("/registry/configmaps/ns/a", "1");
    const errors: Error[] = [];
    await s.watch("/registry/configmaps", { afterRevision: await s.currentRevision(), onEvents: () => {}, onError: (error) => errors.push(error) });
    await s.checkHealth!();
    await etcd.stop();
    await eventually(() => errors.length === 1, 10_000);
    expect((errors[0] as { code?: string }).code).toBe("ServiceUnavailable");
    await expectCode(s.get("/registry/configmaps/ns/a"), "ServiceUnavailable");
    await expectCode(s.checkHealth!(), "ServiceUnavailable");
    await expectCode(s.create("/registry/configmaps/ns/b", "b"), "ServiceUnavailable");
  }, 30_000);

  it("speaks TLS with a client certificate to an etcd that requires one, and a client without it is refused", async () => {
    const etcd = await startEtcd({ tls: true });
    cleanup.push(() => etcd.stop());
    const tls = etcd.clientTls!;
    const secure = createEtcdStorage({ endpoints: [etcd.endpoint], compactInterval: 0, tls });
    cleanup.push(() => secure.close());
    const created = await secure.create("/registry/secrets/ns/s", "v");
    expect(await secure.get("/registry/secrets/ns/s")).toEqual(created);
    await secure.checkHealth!();
    const anonymous = createEtcdStorage({ endpoints: [etcd.endpoint], compactInterval: 0, requestTimeoutMs: 2000, tls: { ca: tls.ca } });
    cleanup.push(() => anonymous.close());
    await expectCode(anonymous.get("/registry/secrets/ns/s"), "ServiceUnavailable");
  }, 30_000);

  it("keeps serving after many watches are stopped (a stopped watch is no failure of the connection)", async () => {
    const etcd = await member();
    const s = client(etcd);
    for (let round = 0; round < 6; round++) {
      const watch = await s.watch("/registry/configmaps", { afterRevision: await s.currentRevision(), onEvents: () => {} });
      watch.stop();
    }
    // Every request right after still answers (no circuit opened, no connection reset under it).
    const writes = await Promise.all(Array.from({ length: 20 }, (_, i) => s.create(`/registry/configmaps/ns/after-${i}`, "v")));
    expect(writes).toHaveLength(20);
    expect(await s.count("/registry/configmaps/ns")).toBe(20);
  });

  it("refuses an empty endpoint list and a malformed prefix, naming the rule", () => {
    expect(() => createEtcdStorage({ endpoints: [] })).toThrow("etcd storage needs at least one endpoint");
    expect(() => createEtcdStorage({ endpoints: ["http://127.0.0.1:1"], prefix: "registry/" })).toThrow('etcd prefix must start with "/" and not end with it, got "registry/"');
  });
});
