/**
 * Ports of k8s.io/apiserver/pkg/storage/etcd3/compact_test.go (TestCompact, TestCompactConflict)
 * against a real etcd, and what the schedule promises servers sharing one etcd.
 */
import { Etcd3 } from "etcd3";
import { afterEach, describe, expect, it } from "vitest";
import { startEtcd, type EtcdProcess } from "../../test/harness/etcd.js";
import { eventually } from "./conformance.js";
import { compactionRound, COMPACT_REV_KEY, FIRST_ROUND } from "./etcd-compaction.js";
import { createEtcdStorage } from "./etcd.js";
import type { Storage, StorageEvent } from "./types.js";

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function member(): Promise<EtcdProcess> {
  const etcd = await startEtcd();
  cleanup.push(() => etcd.stop());
  return etcd;
}

function rawClient(etcd: EtcdProcess): Etcd3 {
  const client = new Etcd3({ hosts: [etcd.endpoint] });
  cleanup.push(() => Promise.resolve(client.close()));
  return client;
}

/** upstream's `compact`: a round, and the compaction it calls for. */
async function compact(client: Etcd3, time: number, revision: number): Promise<number> {
  const { next, compactTo } = await compactionRound((request) => client.kv.txn(request), { time, revision });
  if (compactTo !== undefined) await client.kv.compact({ revision: compactTo });
  return next.time;
}

describe("etcd compaction rounds (compact_test.go)", () => {
  it("TestCompact: a round compacts to the revision it is given", async () => {
    const client = rawClient(await member());
    const put = await client.put("/somekey").value("data").exec();
    const put1 = await client.put("/somekey").value("data2").exec();
    await compact(client, 0, Number(put1.header.revision));
    await expect(client.get("/somekey").revision(Number(put.header.revision)).string()).rejects.toThrow(
      "required revision has been compacted",
    );
  });

  it("TestCompactConflict: a second compactor with the same logical time compacts nothing and learns the new time", async () => {
    const client = rawClient(await member());
    const put = await client.put("/somekey").value("data").exec();
    // Compact first. It would do the compaction and return compact time which is incremented by 1.
    const curTime = await compact(client, 0, Number(put.header.revision));
    expect(curTime).toBe(1);
    // Compact again with the same parameters. It won't do any compaction but return the latest compact time.
    const curTime2 = await compact(client, 0, Number(put.header.revision));
    expect(curTime2).toBe(curTime);
  });

  it("records a revision on the first round and compacts nothing, as upstream does on bootstrap", async () => {
    const client = rawClient(await member());
    const put = await client.put("/somekey").value("data").exec();
    const { next, compactTo } = await compactionRound((request) => client.kv.txn(request), FIRST_ROUND);
    expect(compactTo).toBeUndefined();
    expect(next).toEqual({ time: 1, revision: Number(put.header.revision) + 1 });
    expect(await client.get(COMPACT_REV_KEY).string()).toBe("0");
  });
});

describe("servers sharing one etcd", () => {
  function server(etcd: EtcdProcess, options: { compactInterval?: number; watchCacheEvents?: number } = {}): Storage {
    const storage = createEtcdStorage({ endpoints: [etcd.endpoint], requestTimeoutMs: 5000, ...options });
    cleanup.push(() => storage.close());
    return storage;
  }

  it("restarting one server takes no history from the other's watchers", async () => {
    const etcd = await member();
    // B's watch cache holds few events, so a watch from an older revision is served from etcd's history.
    const b = server(etcd, { watchCacheEvents: 10 });
    const a = server(etcd);
    const first = await b.create("/registry/configmaps/ns/watched", "0");
    let latest = first;
    for (let i = 1; i <= 1200; i++) latest = await a.update("/registry/configmaps/ns/watched", String(i), latest.modRevision);
    // A restarts: a new server on the same etcd, with the default schedule.
    await a.close();
    server(etcd);
    // Long enough for a compaction at start to have happened; the schedule has none for 5 minutes.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await b.compactedRevision()).toBe(0);
    const events: StorageEvent[] = [];
    const watch = await b.watch("/registry/configmaps/ns", {
      afterRevision: first.modRevision,
      onEvents: (batch) => events.push(...batch),
    });
    cleanup.push(() => Promise.resolve(watch.stop()));
    await eventually(() => events.length === 1200);
    expect(events.at(-1)?.kv.modRevision).toBe(latest.modRevision);
  }, 30_000);

  it("compacts once per interval across servers, to the revision recorded an interval earlier", async () => {
    const etcd = await member();
    const client = rawClient(etcd);
    const interval = 400;
    const started = Date.now();
    const a = server(etcd, { compactInterval: interval });
    server(etcd, { compactInterval: interval });
    const before = await a.create("/registry/configmaps/ns/old", "1");
    await a.update("/registry/configmaps/ns/old", "2", before.modRevision);
    // Round 1 records a revision after these writes; a later round compacts to it.
    const deadline = Date.now() + 10_000;
    while ((await a.compactedRevision()) <= before.modRevision) {
      if (Date.now() > deadline) throw new Error("no compaction past the early writes within 10 s");
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const key = await client.get(COMPACT_REV_KEY).exec();
    const rounds = Number(key.kvs[0]?.version ?? 0);
    const recorded = Number(key.kvs[0]?.value.toString() ?? 0);
    // Two servers, yet one round per interval: each round's write of the key is one version.
    expect(rounds).toBeGreaterThanOrEqual(2);
    expect(rounds).toBeLessThanOrEqual(Math.ceil((Date.now() - started) / interval) + 1);
    expect(await a.compactedRevision()).toBeLessThanOrEqual(recorded);
  });
});
