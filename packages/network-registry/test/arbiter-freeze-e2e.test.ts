import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Informer, LEASES } from "@kubekit/generic-controlplane/controllers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NETWORK_ALLOCATIONS, type NetworkAllocationObject } from "../src/kube/api.js";
import { claim } from "../src/kube/client.js";
import { eventually, startKanaPlane, type KanaPlane } from "../src/kube/test-support.js";
import { LineProcess } from "./child-process.js";

/*
 * Two arbiter processes share a Lease (1.5 s); the leader is frozen with SIGSTOP for 4 s while
 * allocations keep coming, then thawed. The other instance takes over; the thawed one, whose
 * timers still say it leads, must not write anything more, and no allocation's block may change
 * once recorded.
 */

const POOL = "10.210.0.0/16";
const FREEZE_MS = 4_000;

interface LogLine {
  at: number;
  identity: string;
  msg: string;
  name?: string;
}

describe("arbiter end to end: the leader frozen with SIGSTOP longer than its Lease", () => {
  let plane: KanaPlane;
  let dir: string;
  const arbiters: LineProcess[] = [];

  const startArbiter = async (identity: string) => {
    const process = new LineProcess("arbiter-logging-process.mjs", [plane.url, identity, join(dir, `${identity}.log`)]);
    arbiters.push(process);
    expect(await process.nextLine("arbiter start", 20_000)).toBe("started");
  };
  const logOf = (identity: string): LogLine[] => {
    try {
      return readFileSync(join(dir, `${identity}.log`), "utf8")
        .trim()
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as LogLine);
    } catch {
      return [];
    }
  };
  const leaseHolder = async () =>
    (await plane.client.get<{ spec?: { holderIdentity?: string } }>(LEASES, "kube-system", "kana-arbiter")).spec?.holderIdentity ||
    undefined;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "kana-freeze-"));
    plane = await startKanaPlane();
    await startArbiter("arbiter-a");
    await startArbiter("arbiter-b");
    const pool = await claim(
      plane.client,
      {
        metadata: { name: "node-pool" },
        spec: { addressSpace: [{ reference: { group: "", resource: "nodes" }, prefix: POOL, delegateTo: ["*"] }] },
      },
      { timeoutMs: 20_000 },
    );
    expect(pool.status?.phase).toBe("Allocated");
  }, 60_000);

  afterAll(async () => {
    for (const arbiter of arbiters) arbiter.child.kill("SIGCONT");
    await Promise.all(arbiters.map((p) => p.kill()));
    await plane?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("never lets the thawed leader write, and changes no recorded block", async () => {
    // Every block each allocation was ever seen with.
    const seen = new Map<string, Set<string>>();
    const informer = new Informer(plane.client, NETWORK_ALLOCATIONS, {});
    const record = (object: unknown) => {
      const allocation = object as NetworkAllocationObject;
      if (allocation.status?.prefix === undefined) return;
      const blocks = seen.get(allocation.metadata.name) ?? new Set<string>();
      blocks.add(allocation.status.prefix);
      seen.set(allocation.metadata.name, blocks);
    };
    informer.addEventHandler({ add: record, update: (_old, object) => record(object) });
    informer.start();

    let created = 0;
    let creating = true;
    const stream = (async () => {
      while (creating) {
        const name = `node-${created++}`;
        await plane.client.create(NETWORK_ALLOCATIONS, undefined, {
          apiVersion: "kana.kubekit.io/v1alpha1",
          kind: "NetworkAllocation",
          metadata: { name },
          spec: { claim: "kubelet", pool: POOL, prefixLength: 28, reference: { group: "", resource: "nodes", name } },
        });
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    })();
    try {
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const frozenIdentity = await eventually("a lease holder", leaseHolder);
      const frozen = arbiters.find((a) => a.child.spawnargs.includes(frozenIdentity))!;
      frozen.child.kill("SIGSTOP");
      await new Promise((resolve) => setTimeout(resolve, FREEZE_MS));
      const thawedAt = Date.now();
      frozen.child.kill("SIGCONT");
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      creating = false;
      await stream;

      const other = frozenIdentity === "arbiter-a" ? "arbiter-b" : "arbiter-a";
      expect(await leaseHolder()).toBe(other);
      // The thawed instance writes nothing after it wakes up (it is not the holder any more).
      const thawedLog = logOf(frozenIdentity).filter((l) => l.at >= thawedAt);
      expect(thawedLog.filter((l) => l.msg === "became leader")).toEqual([]);
      expect(thawedLog.filter((l) => l.msg === "writing status").map((l) => l.name)).toEqual([]);
      expect(logOf(other).some((l) => l.msg === "writing status")).toBe(true);

      // Everything decided, each block once, and no block ever changed.
      const decided = await eventually(
        "every allocation decided",
        async () => {
          const items = (await plane.client.list<NetworkAllocationObject>(NETWORK_ALLOCATIONS)).items;
          return items.length === created && items.every((a) => a.status?.phase === "Allocated") ? items : undefined;
        },
        30_000,
      );
      expect(new Set(decided.map((a) => a.status!.prefix)).size).toBe(decided.length);
      const changed = [...seen].filter(([, blocks]) => blocks.size > 1).map(([name, blocks]) => `${name}: ${[...blocks].join(" → ")}`);
      expect(changed).toEqual([]);
      expect(created).toBeGreaterThan(100);
    } finally {
      creating = false;
      await stream;
      await informer.stop();
    }
  }, 90_000);
});
