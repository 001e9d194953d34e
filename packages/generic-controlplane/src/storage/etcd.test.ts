import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { Etcd3 } from "etcd3";
import { afterEach, describe, expect, it } from "vitest";
import { startEtcd, startEtcdStorage, type EtcdProcess } from "../../test/harness/etcd.js";
import { eventually, expectCode, runStorageConformance } from "./conformance.js";
import { createControlPlane } from "../control-plane.js";
import { createEtcdStorage } from "./etcd.js";
import type { KeyValue, Storage, StorageEvent } from "./types.js";

runStorageConformance("etcd", () => startEtcdStorage({ compactInterval: 0 }));
// The same contract with every key under /registry, where watches go through the watch cache.
runStorageConformance("etcd, keys under /registry (watch cache)", async () =>
  underRegistry(await startEtcdStorage({ compactInterval: 0 })),
);

/** `inner` with every key moved under `/registry` and back, so the conformance keys (`/c/x`) reach the watch cache. */
function underRegistry(inner: Storage): Storage {
  const into = (key: string): string => `/registry${key}`;
  const out = (kv: KeyValue): KeyValue => ({ ...kv, key: kv.key.slice("/registry".length) });
  const outEvent = (event: StorageEvent): StorageEvent =>
    event.type === "put"
      ? { type: "put", kv: out(event.kv), prev: event.prev && out(event.prev) }
      : { type: "delete", kv: out(event.kv), prev: out(event.prev) };
  return {
    get: async (key, options) => {
      const kv = await inner.get(into(key), options);
      return kv && out(kv);
    },
    list: async (prefix, options = {}) => {
      const result = await inner.list(
        into(prefix),
        options.startAfter === undefined ? options : { ...options, startAfter: into(options.startAfter) },
      );
      return { ...result, items: result.items.map(out) };
    },
    count: (prefix) => inner.count(into(prefix)),
    create: async (key, value) => out(await inner.create(into(key), value)),
    update: async (key, value, expected) => out(await inner.update(into(key), value, expected)),
    delete: async (key, expected) => out(await inner.delete(into(key), expected)),
    watch: (prefix, options) => inner.watch(into(prefix), { ...options, onEvents: (events) => options.onEvents(events.map(outEvent)) }),
    currentRevision: () => inner.currentRevision(),
    compactedRevision: () => inner.compactedRevision(),
    compact: (revision) => inner.compact(revision),
    close: () => inner.close(),
  };
}

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
  function client(etcd: EtcdProcess, prefix?: string, watchCacheEvents?: number): Storage {
    const storage = createEtcdStorage({
      endpoints: [etcd.endpoint],
      compactInterval: 0,
      requestTimeoutMs: 2000,
      ...(prefix === undefined ? {} : { prefix }),
      ...(watchCacheEvents === undefined ? {} : { watchCacheEvents }),
    });
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
    const stored = JSON.parse(await etcdctl(etcd, "get", "/registry/configmaps/default/demo", "-w", "json")) as {
      kvs: Array<{ mod_revision: number }>;
    };
    expect(stored.kvs[0]!.mod_revision).toBe(created.modRevision);
    // Prefixes do not see each other.
    expect((await other.list("/registry/configmaps")).items.map((kv) => kv.value)).toEqual(["b"]);
  });

  /** One unlabelled figure of etcd's own /metrics. */
  async function etcdMetric(etcd: EtcdProcess, name: string): Promise<number> {
    const metrics = await (await fetch(`${etcd.endpoint}/metrics`)).text();
    const line = metrics.split("\n").find((l) => l.startsWith(`${name} `));
    if (line === undefined) throw new Error(`etcd's /metrics has no ${name}`);
    return Number(line.split(" ")[1]);
  }
  /** Bytes etcd has sent to its gRPC clients. */
  const etcdSentBytes = (etcd: EtcdProcess) => etcdMetric(etcd, "etcd_network_client_grpc_sent_bytes_total");
  /** etcd's own count of its watchers. */
  const etcdWatchers = (etcd: EtcdProcess) => etcdMetric(etcd, "etcd_debugging_mvcc_watcher_total");

  it("answers a list of the latest state from the watch cache after one range proves the directory unchanged, and from etcd when it changed", async () => {
    const etcd = await member();
    const kube = client(etcd);
    const tenant = client(etcd, "/tenant-b");
    const payload = "x".repeat(2000);
    for (let i = 0; i < 100; i++) await kube.create(`/registry/configmaps/ns/cm-${String(i).padStart(3, "0")}`, payload);
    expect((await kube.list("/registry/configmaps/ns")).items).toHaveLength(100);
    // What the check relies on: etcd counts the whole range before it drops keys older than
    // min_mod_revision, so one range tells both "nothing newer" and "none deleted".
    const raw = new Etcd3({ hosts: [etcd.endpoint] });
    try {
      const range = {
        key: Buffer.from("/registry/configmaps/ns/"),
        range_end: Buffer.from("/registry/configmaps/ns0"),
        keys_only: true,
        limit: 1,
      };
      const now = Number((await raw.kv.range({ ...range, count_only: true })).header.revision);
      const unchanged = await raw.kv.range({ ...range, min_mod_revision: now + 1 });
      expect([Number(unchanged.count), unchanged.kvs.length]).toEqual([100, 0]);
      const sinceTenth = await raw.kv.range({ ...range, min_mod_revision: now - 9 });
      expect([Number(sinceTenth.count), sinceTenth.kvs.length]).toEqual([100, 1]);
    } finally {
      raw.close();
    }
    // Writes under another prefix move etcd's revision; the directory stays as it was.
    const before = await etcdSentBytes(etcd);
    for (let i = 0; i < 10; i++) {
      await tenant.create(`/registry/configmaps/other/t-${i}`, "t");
      const list = await kube.list("/registry/configmaps/ns");
      expect(list.items.map((kv) => kv.key)).toEqual(
        Array.from({ length: 100 }, (_, j) => `/registry/configmaps/ns/cm-${String(j).padStart(3, "0")}`),
      );
    }
    // Ten lists of 200 KB each from etcd would be 2 MB; the checks are a few hundred bytes each.
    expect((await etcdSentBytes(etcd)) - before).toBeLessThan(100_000);

    // Writes made behind the cache's back (etcdctl) are in the very next list, whichever answers it.
    const keys = async () => (await kube.list("/registry/configmaps/ns")).items.map((kv) => `${kv.key}=${kv.value.length}`);
    const etcdKeys = async () =>
      (
        await etcdctl(etcd, "get", "--prefix", "/registry/configmaps/ns/", "-w", "json").then(
          (out) => (JSON.parse(out) as { kvs?: Array<{ key: string; value: string }> }).kvs ?? [],
        )
      ).map((kv) => `${Buffer.from(kv.key, "base64").toString()}=${Buffer.from(kv.value, "base64").length}`);
    await etcdctl(etcd, "put", "/registry/configmaps/ns/cm-new", "short");
    expect(await keys()).toEqual(await etcdKeys());
    await etcdctl(etcd, "del", "/registry/configmaps/ns/cm-007");
    expect(await keys()).toEqual(await etcdKeys());
    await etcdctl(etcd, "put", "/registry/configmaps/ns/cm-008", "changed");
    expect(await keys()).toEqual(await etcdKeys());
    expect(await keys()).toHaveLength(100);
  });

  it("answers gets of the latest state from the watch cache after a revision read shared by concurrent gets, with writes behind its back in the next get", async () => {
    const etcd = await member();
    const kube = client(etcd);
    const tenant = client(etcd, "/tenant-b");
    const payload = "x".repeat(2000);
    const created = await kube.create("/registry/configmaps/ns/big", payload);
    expect(await kube.get("/registry/configmaps/ns/big")).toEqual(created);
    // 200 gets of 2 KB each from etcd would be 400 KB; revision reads are a few dozen bytes each.
    const before = await etcdSentBytes(etcd);
    for (let round = 0; round < 10; round++) {
      const read = await Promise.all(Array.from({ length: 20 }, () => kube.get("/registry/configmaps/ns/big")));
      expect(read.every((kv) => kv?.modRevision === created.modRevision && kv.value === payload)).toBe(true);
    }
    expect((await etcdSentBytes(etcd)) - before).toBeLessThan(40_000);

    const value = async (key: string) => (await kube.get(key))?.value;
    const changed = "y".repeat(2000);
    await etcdctl(etcd, "put", "/registry/configmaps/ns/big", changed);
    expect(await value("/registry/configmaps/ns/big")).toBe(changed);
    await etcdctl(etcd, "put", "/registry/configmaps/ns/new", "new");
    expect(await value("/registry/configmaps/ns/new")).toBe("new");
    await etcdctl(etcd, "del", "/registry/configmaps/ns/new");
    expect(await value("/registry/configmaps/ns/new")).toBeUndefined();
    // A write under another prefix moves etcd's revision with no event for this cache: gets stay
    // right, and once the root is proved unchanged they come from the cache again.
    await tenant.create("/registry/configmaps/ns/elsewhere", "t");
    expect(await value("/registry/configmaps/ns/big")).toBe(changed);
    // The proof runs beside the GET that waited; a GET answered by etcd would send the 2 KB value.
    const getBytes = async () => {
      const sent = await etcdSentBytes(etcd);
      await value("/registry/configmaps/ns/big");
      return (await etcdSentBytes(etcd)) - sent;
    };
    for (let tries = 0; (await getBytes()) > 1000; tries++) expect(tries).toBeLessThan(50);
    const quiet = await etcdSentBytes(etcd);
    for (let i = 0; i < 20; i++) expect(await value("/registry/configmaps/ns/big")).toBe(changed);
    expect((await etcdSentBytes(etcd)) - quiet).toBeLessThan(10_000);
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
    await s.watch("/registry/configmaps", {
      afterRevision: await s.currentRevision(),
      onEvents: () => {},
      onError: (error) => errors.push(error),
    });
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
    expect(() => createEtcdStorage({ endpoints: ["http://127.0.0.1:1"], prefix: "registry/" })).toThrow(
      'etcd prefix must start with "/" and not end with it, got "registry/"',
    );
  });

  it("serves every watch under /registry from one etcd watch, each watcher seeing every event in order", async () => {
    const etcd = await member();
    const s = client(etcd);
    const start = await s.currentRevision();
    const seen: StorageEvent[][] = [];
    for (let i = 0; i < 50; i++) {
      const events: StorageEvent[] = [];
      seen.push(events);
      await s.watch(i % 2 === 0 ? "/registry/configmaps" : "/registry/configmaps/ns", {
        afterRevision: start,
        onEvents: (batch) => events.push(...batch),
      });
    }
    expect(await etcdWatchers(etcd)).toBe(1);
    const a = await s.create("/registry/configmaps/ns/a", "1");
    const a2 = await s.update("/registry/configmaps/ns/a", "2", a.modRevision);
    await s.create("/registry/secrets/ns/other", "not watched");
    const gone = await s.delete("/registry/configmaps/ns/a");
    await eventually(() => seen.every((events) => events.length === 3));
    for (const events of seen) {
      expect(events).toEqual([
        { type: "put", kv: a, prev: undefined },
        { type: "put", kv: a2, prev: a },
        { type: "delete", kv: gone, prev: a2 },
      ]);
    }
  });

  it("replays a watch from a revision the cache holds without etcd, and one from before it from etcd's history", async () => {
    const etcd = await member();
    const s = client(etcd, undefined, 3);
    const live: StorageEvent[] = [];
    await s.watch("/registry/configmaps", { afterRevision: await s.currentRevision(), onEvents: (batch) => live.push(...batch) });
    const written: KeyValue[] = [];
    for (let i = 0; i < 5; i++) written.push(await s.create(`/registry/configmaps/ns/c${i}`, String(i)));
    // Once the cache has seen the writes, its window holds the last three.
    await eventually(() => live.length === 5);
    const recent: StorageEvent[] = [];
    await s.watch("/registry/configmaps/ns", { afterRevision: written[2]!.modRevision, onEvents: (batch) => recent.push(...batch) });
    await eventually(() => recent.length === 2);
    expect(recent.map((event) => event.kv)).toEqual(written.slice(3));
    expect(await etcdWatchers(etcd)).toBe(1);
    const older: StorageEvent[] = [];
    await s.watch("/registry/configmaps/ns", { afterRevision: written[0]!.modRevision, onEvents: (batch) => older.push(...batch) });
    expect(await etcdWatchers(etcd)).toBe(2);
    await eventually(() => older.length === 4);
    expect(older.map((event) => event.kv)).toEqual(written.slice(1));
  });

  it("answers an object over etcd's request limit as kube-apiserver does (500, no reason, not retryable) and keeps what was stored", async () => {
    const etcd = await startEtcd({ maxRequestBytes: 16 * 1024 });
    cleanup.push(() => etcd.stop());
    const storage = createEtcdStorage({ endpoints: [etcd.endpoint], compactInterval: 0, requestTimeoutMs: 2000 });
    const plane = await createControlPlane({ storage, port: 0 });
    cleanup.push(() => plane.close());
    const post = (name: string, bytes: number) =>
      fetch(`${plane.url}/api/v1/namespaces/default/configmaps`, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ metadata: { name }, data: { blob: "x".repeat(bytes) } }),
      });
    expect((await post("small", 1024)).status).toBe(201);
    const large = await post("large", 64 * 1024);
    expect(large.status).toBe(500);
    expect(large.headers.get("retry-after")).toBeNull();
    expect(await large.json()).toEqual({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "etcdserver: request is too large",
      code: 500,
    });
    expect((await fetch(`${plane.url}/api/v1/namespaces/default/configmaps/large`)).status).toBe(404);
    const small = (await (await fetch(`${plane.url}/api/v1/namespaces/default/configmaps/small`)).json()) as { data: { blob: string } };
    expect(small.data.blob).toHaveLength(1024);
  });

  it("refuses a cached watch below a compaction it made, and starts the cache again after etcd came back", async () => {
    const etcd = await member();
    const s = client(etcd);
    await s.watch("/registry/configmaps", { afterRevision: await s.currentRevision(), onEvents: () => {} });
    const first = await s.create("/registry/configmaps/ns/a", "1");
    const latest = await s.update("/registry/configmaps/ns/a", "2", first.modRevision);
    await s.compact(latest.modRevision);
    await expect(s.watch("/registry/configmaps", { afterRevision: first.modRevision, onEvents: () => {} })).rejects.toThrow(
      `too old resource version: ${first.modRevision} (${latest.modRevision})`,
    );
  });
});
