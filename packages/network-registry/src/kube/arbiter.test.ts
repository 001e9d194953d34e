import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NETWORK_CLAIMS, type NetworkClaimObject } from "./api.js";
import { runArbiter, type Arbiter } from "./arbiter.js";
import { claim } from "./client.js";
import { claimOf, eventually, startKanaPlane, type KanaPlane } from "./test-support.js";

const EVENTS = { group: "", version: "v1", resource: "events", namespaced: true };

describe("arbiter", () => {
  let plane: KanaPlane;
  let arbiter: Arbiter;
  beforeAll(async () => {
    plane = await startKanaPlane();
    arbiter = await runArbiter({ config: plane.url, leaderElection: false });
  });
  afterAll(async () => {
    await arbiter?.stop();
    await plane?.close();
  });

  it("grants the first claim and refuses an overlapping later one, naming the holder", async () => {
    const first = await claim(plane.client, claimOf("svc-a", "10.96.0.0/12"), { timeoutMs: 10_000 });
    expect(first.status?.phase).toBe("Allocated");
    expect(first.status?.allocatedPrefixes).toBe("10.96.0.0/12");
    const second = await claim(plane.client, claimOf("svc-b", "10.100.0.0/16"), { timeoutMs: 10_000 });
    expect(second.status?.phase).toBe("Conflict");
    const record = second.status?.addressSpace?.[0];
    expect(record?.status).toBe("unavailable");
    expect(record?.conflict).toMatchObject({ reason: "Overlap", claim: "svc-a", prefix: "10.96.0.0/12", relation: "inside" });
    expect(second.status!.sequence).toBeGreaterThan(first.status!.sequence!);
    // Conditions as API conventions have them; phase stays for the printer column.
    const condition = (object: NetworkClaimObject, type: string) => object.status?.conditions?.find((c) => c.type === type);
    expect(condition(first, "Ready")).toMatchObject({ status: "True", reason: "Allocated", observedGeneration: 1 });
    expect(condition(first, "Conflict")).toMatchObject({ status: "False", reason: "NoConflict" });
    expect(condition(second, "Ready")).toMatchObject({ status: "False", reason: "Conflict" });
    expect(condition(second, "Conflict")).toMatchObject({ status: "True", reason: "Overlap", message: record!.conflict!.message });
    expect(Date.parse(condition(second, "Conflict")!.lastTransitionTime)).not.toBeNaN();
    const stored = await plane.client.get<NetworkClaimObject>(NETWORK_CLAIMS, undefined, "svc-a");
    // Nothing is delegated or allocated from it: it needs no finalizer, and may go at once.
    expect(stored.metadata.finalizers ?? []).toEqual([]);
  });

  it("grants a refused claim once the holder is deleted", async () => {
    await plane.client.delete(NETWORK_CLAIMS, undefined, "svc-a");
    const granted = await eventually("svc-b to be granted", async () => {
      const object = await plane.client.get<NetworkClaimObject>(NETWORK_CLAIMS, undefined, "svc-b");
      return object.status?.phase === "Allocated" ? object : undefined;
    });
    expect(granted.status?.allocatedPrefixes).toBe("10.100.0.0/16");
  });

  it("emits ClaimConflict when a record's outcome changes, not when only its suggestion does", async () => {
    await claim(plane.client, claimOf("holder", "10.20.0.0/24"), { timeoutMs: 10_000 });
    const refused = await claim(plane.client, claimOf("refused", "10.20.0.0/24"), { timeoutMs: 10_000 });
    expect(refused.status?.addressSpace?.[0]?.conflict?.nearestFree).toBe("10.20.1.0/24");
    // Taking the suggested block moves the suggestion; the refusal itself is the same.
    await claim(plane.client, claimOf("neighbour", "10.20.1.0/24"), { timeoutMs: 10_000 });
    await eventually("the suggestion to move", async () => {
      const object = await plane.client.get<NetworkClaimObject>(NETWORK_CLAIMS, undefined, "refused");
      const nearest = object.status?.addressSpace?.[0]?.conflict?.nearestFree;
      return nearest !== undefined && nearest !== "10.20.1.0/24" ? nearest : undefined;
    });
    const events = await plane.client.list<{ reason?: string; involvedObject?: { name?: string } }>(EVENTS, "default");
    expect(events.items.filter((e) => e.reason === "ClaimConflict" && e.involvedObject?.name === "refused")).toHaveLength(1);
  });

  it("counts a refusal that comes back on the ClaimConflict Event written first, as client-go's recorder does", async () => {
    await claim(plane.client, claimOf("flap-holder", "10.30.0.0/24"), { timeoutMs: 10_000 });
    for (const prefix of ["10.30.0.0/24", "10.31.0.0/24", "10.30.0.0/24"])
      await claim(plane.client, claimOf("flapper", prefix), { timeoutMs: 10_000 });
    const events = await eventually("the refusal to be counted", async () => {
      const list = await plane.client.list<{ reason?: string; count?: number; involvedObject?: { name?: string } }>(EVENTS, "default");
      const conflicts = list.items.filter((e) => e.reason === "ClaimConflict" && e.involvedObject?.name === "flapper");
      return conflicts.reduce((sum, e) => sum + (e.count ?? 1), 0) === 2 ? conflicts : undefined;
    });
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ count: 2 });
    const stored = events[0] as { firstTimestamp?: string; lastTimestamp?: string };
    expect(Date.parse(stored.lastTimestamp!)).toBeGreaterThanOrEqual(Date.parse(stored.firstTimestamp!));
  });
});
