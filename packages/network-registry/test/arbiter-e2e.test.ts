import { LEASES } from "@kubekit/generic-controlplane/controllers";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NetworkRegistry } from "../src/registry.js";
import { NETWORK_ALLOCATIONS, NETWORK_CLAIMS, type NetworkAllocationObject, type NetworkClaimObject } from "../src/kube/api.js";
import { claim } from "../src/kube/client.js";
import { compareCreation, decisionOrder } from "../src/kube/order.js";
import { claimOf } from "../src/kube/recorded.js";
import { eventually, startKanaPlane, type KanaPlane } from "../src/kube/test-support.js";
import { LineProcess } from "./child-process.js";

/*
 * The acceptance run: four component processes claim overlapping ranges at the same moment, 50
 * rounds, while two arbiter processes share a Lease and the leader is killed with SIGKILL in the
 * middle of rounds. Every round the first claim by creation order must win; at the end every
 * stored decision must be what the pure registry decides from the same claims in the same order.
 */

const CLAIMANTS = 4;
const ROUNDS = 50;
const KILL_AT = new Set([8, 20, 33, 45]);
const POOL = "10.200.0.0/16";

interface RoundResult {
  round: number;
  name: string;
  created?: { creationTimestamp: string; resourceVersion: string };
  phase?: string;
  allocation?: string;
  block?: string;
  error?: string;
}

/** Claimant i of round r: all four overlap (a /16, the /17 inside it, ...). */
const prefixOf = (round: number, index: number) => (index % 2 === 0 ? `10.${round}.0.0/16` : `10.${round}.128.0/17`);

describe("arbiter end to end: concurrent components, failover by SIGKILL", () => {
  let plane: KanaPlane;
  const arbiters: LineProcess[] = [];
  const claimants: LineProcess[] = [];
  let nextArbiter = 0;

  const startArbiter = async () => {
    const process = new LineProcess("arbiter-process.mjs", [plane.url, `arbiter-${nextArbiter++}`]);
    arbiters.push(process);
    expect(await process.nextLine("arbiter start", 20_000)).toBe("started");
  };

  const leaderIdentity = async () => {
    const lease = await plane.client.get<{ spec?: { holderIdentity?: string } }>(LEASES, "kube-system", "kana-arbiter");
    return lease.spec?.holderIdentity || undefined;
  };

  beforeAll(async () => {
    plane = await startKanaPlane();
    await startArbiter();
    await startArbiter();
    // The shared pool every component allocates its blocks from.
    const pool = await claim(
      plane.client,
      {
        metadata: { name: "node-pool" },
        spec: { addressSpace: [{ reference: { group: "", resource: "nodes" }, prefix: POOL, delegateTo: ["*"] }] },
      },
      { timeoutMs: 20_000 },
    );
    expect(pool.status?.phase).toBe("Allocated");
    for (let i = 0; i < CLAIMANTS; i++) claimants.push(new LineProcess("claimant-process.mjs", [plane.url, String(i)]));
  }, 60_000);

  afterAll(async () => {
    await Promise.all([...arbiters, ...claimants].map((p) => p.kill()));
    await plane?.close();
  });

  it(`gives each contested range to the first claim by creation order, ${ROUNDS} rounds, across leader kills, and double-allocates nothing`, async () => {
    const results: RoundResult[] = [];
    let kills = 0;
    for (let round = 1; round <= ROUNDS; round++) {
      claimants.forEach((p, i) => p.send(`${round} ${prefixOf(round, i)}`));
      if (KILL_AT.has(round)) {
        // Mid-round: the components' claims are in flight when the leader dies.
        const holder = await eventually("a lease holder", leaderIdentity);
        const leader = arbiters.find((a) => a.child.spawnargs.includes(holder) && a.child.exitCode === null);
        expect(leader, `leader ${holder} is one of our processes`).toBeDefined();
        await leader!.kill();
        kills++;
        await startArbiter();
      }
      const lines = await Promise.all(claimants.map((p) => p.nextLine(`round ${round}`, 40_000)));
      const roundResults = lines.map((line) => JSON.parse(line) as RoundResult);
      for (const result of roundResults) expect(result.error, `${result.name}`).toBeUndefined();
      // The winner is the claim created first (creationTimestamp, then resourceVersion).
      const byCreation = [...roundResults].sort((a, b) =>
        compareCreation({ metadata: { name: a.name, ...a.created } }, { metadata: { name: b.name, ...b.created } }),
      );
      expect(
        byCreation.map((r) => r.phase),
        `round ${round}: ${byCreation.map((r) => r.name).join(", ")}`,
      ).toEqual(["Allocated", "Conflict", "Conflict", "Conflict"]);
      results.push(...roundResults);
    }
    expect(kills).toBe(KILL_AT.size);

    // Every stored decision against the pure registry's verdict over the same order.
    const claims = (await plane.client.list<NetworkClaimObject>(NETWORK_CLAIMS)).items;
    const allocations = (await plane.client.list<NetworkAllocationObject>(NETWORK_ALLOCATIONS)).items;
    expect(claims).toHaveLength(ROUNDS * CLAIMANTS + 1);
    expect(allocations).toHaveLength(ROUNDS * CLAIMANTS);
    const sequences = claims.map((c) => c.status?.sequence);
    expect(new Set(sequences).size, "every claim has its own sequence").toBe(claims.length);
    expect(sequences.every((s) => typeof s === "number")).toBe(true);
    // Sequence order is creation order.
    const created = new Map(results.map((r) => [r.name, r.created!]));
    const bySequence = [...claims].sort((a, b) => a.status!.sequence! - b.status!.sequence!).filter((c) => created.has(c.metadata.name));
    const byCreation = [...bySequence].sort((a, b) =>
      compareCreation(
        { metadata: { name: a.metadata.name, ...created.get(a.metadata.name) } },
        { metadata: { name: b.metadata.name, ...created.get(b.metadata.name) } },
      ),
    );
    expect(bySequence.map((c) => c.metadata.name)).toEqual(byCreation.map((c) => c.metadata.name));

    const registry = new NetworkRegistry();
    for (const object of decisionOrder(claims).ordered) {
      const verdict = registry.claim(claimOf(object)).status!.addressSpace;
      const stored = object.status!.addressSpace!;
      expect(
        stored.map((r) => [r.prefix, r.status, r.conflict?.claim]),
        object.metadata.name,
      ).toEqual(verdict.map((r) => [r.prefix, r.status, r.conflict?.claim]));
    }
    // Each recorded block replays into the pure registry: none is handed out twice.
    for (const object of decisionOrder(allocations).ordered) {
      expect(object.status?.phase, object.metadata.name).toBe("Allocated");
      const { spec } = object;
      expect(
        () =>
          registry.allocate({
            claim: spec.claim,
            reference: spec.reference,
            from: spec.pool,
            prefixLength: spec.prefixLength,
            prefix: object.status!.prefix!,
          }),
        object.metadata.name,
      ).not.toThrow();
    }
    expect(new Set(allocations.map((a) => a.status!.prefix)).size).toBe(allocations.length);
    expect(new Set(results.map((r) => r.block)).size).toBe(results.length);
  }, 240_000);
});
