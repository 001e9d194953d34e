import { describe, expect, it, vi } from "vitest";
import type { AddressRecord } from "../types.js";
import type { NetworkAllocationObject, NetworkClaimObject } from "./api.js";
import { Decider, planDecisions, type DecisionPlan } from "./arbiter-pass.js";

const services = { group: "", resource: "services" };

function stored(
  name: string,
  resourceVersion: number,
  prefixes: string[],
  options: { second?: number; extra?: Partial<AddressRecord> } = {},
): NetworkClaimObject {
  return {
    apiVersion: "kana.kubekit.io/v1alpha1",
    kind: "NetworkClaim",
    metadata: {
      name,
      resourceVersion: String(resourceVersion),
      generation: 1,
      creationTimestamp: `2026-01-01T00:00:0${options.second ?? 0}Z`,
    },
    spec: { addressSpace: prefixes.map((prefix) => ({ reference: services, prefix, ...options.extra })) },
  };
}

/** The objects as the plan's status writes leave them. */
function written(plan: DecisionPlan): NetworkClaimObject[] {
  return plan.claims.map((d) => ({ ...d.object, status: d.status }));
}

const outcome = (plan: DecisionPlan) =>
  Object.fromEntries(
    plan.claims.map((d) => [d.object.metadata.name, [d.status.sequence, d.status.phase, d.status.allocatedPrefixes ?? ""]]),
  );

describe("decision passes", () => {
  it("orders claims of the same second by resourceVersion, not by name", () => {
    const plan = planDecisions([stored("a", 12, ["10.0.0.0/8"]), stored("b", 11, ["10.0.0.0/16"])]);
    expect(outcome(plan)).toEqual({ b: [1, "Allocated", "10.0.0.0/16"], a: [2, "Conflict", ""] });
  });

  it("orders by creationTimestamp before resourceVersion, and by the recorded sequence above both", () => {
    const plan = planDecisions([stored("early", 50, ["10.0.0.0/8"], { second: 1 }), stored("late", 40, ["10.1.0.0/16"], { second: 2 })]);
    expect(outcome(plan)).toEqual({ early: [1, "Allocated", "10.0.0.0/8"], late: [2, "Conflict", ""] });
    // Once recorded, the sequence decides, whatever the resourceVersions became since.
    const after = written(plan).map((o) => ({
      ...o,
      metadata: { ...o.metadata, resourceVersion: o.metadata.name === "early" ? "900" : "100" },
    }));
    expect(outcome(planDecisions(after))).toEqual(outcome(plan));
  });

  it("never takes a recorded grant back: an older claim that adds an overlapping record is refused", () => {
    const first = planDecisions([stored("old", 1, ["10.0.0.0/16"]), stored("new", 2, ["10.1.0.0/16"])]);
    const objects = written(first);
    objects[0] = {
      ...objects[0]!,
      metadata: { ...objects[0]!.metadata, generation: 2 },
      spec: {
        addressSpace: [
          { reference: services, prefix: "10.0.0.0/16" },
          { reference: services, prefix: "10.1.0.0/24" },
        ],
      },
    };
    // A new leader (nothing in memory) and the running one decide the same.
    for (const plan of [
      planDecisions(objects),
      (() => {
        const decider = new Decider();
        decider.plan(written(first), []);
        return decider.plan(objects, []);
      })(),
    ]) {
      expect(outcome(plan)).toEqual({ old: [1, "Conflict", "10.0.0.0/16"], new: [2, "Allocated", "10.1.0.0/16"] });
      expect(plan.claims[0]!.status.addressSpace![1]!.conflict).toMatchObject({ reason: "Overlap", claim: "new", prefix: "10.1.0.0/16" });
    }
  });

  it("keeps a record's date while its outcome is unchanged, so a pass without changes writes nothing", () => {
    const first = planDecisions([stored("a", 1, ["10.0.0.0/16"]), stored("b", 2, ["10.0.0.0/24"])]);
    const again = planDecisions(written(first));
    expect(again.claims.map((d) => d.changed)).toEqual([false, false]);
  });

  it("grants a refused record when the holder is deleted", () => {
    const decider = new Decider();
    const first = written(decider.plan([stored("holder", 1, ["10.0.0.0/16"]), stored("waiting", 2, ["10.0.1.0/24"])], []));
    expect(outcome(decider.plan([first[1]!], []))).toEqual({ waiting: [2, "Allocated", "10.0.1.0/24"] });
  });

  it("replays recorded allocations at their prefix and hands out the next free block to a new request", () => {
    const pool = stored("pool", 1, ["10.244.0.0/16"], { extra: { delegateTo: ["*"] } });
    const request = (name: string, rv: number, status?: NetworkAllocationObject["status"]): NetworkAllocationObject => ({
      apiVersion: "kana.kubekit.io/v1alpha1",
      kind: "NetworkAllocation",
      metadata: { name, resourceVersion: String(rv), generation: 1, creationTimestamp: "2026-01-01T00:00:01Z" },
      spec: {
        claim: "kubelet",
        pool: "10.244.0.0/16",
        prefixLength: 24,
        reference: { group: "", resource: "nodes", name },
        strategy: "first-fit",
      },
      ...(status ? { status } : {}),
    });
    // The pool's grant is recorded (the arbiter writes claims before the allocations carved from them).
    const decidedPool = written(planDecisions([pool]));
    const first = planDecisions(decidedPool, [
      request("n1", 10, { prefix: "10.244.7.0/24", phase: "Allocated", sequence: 1, observedGeneration: 1 }),
      request("n2", 11),
    ]);
    expect(first.allocations.map((d) => [d.object.metadata.name, d.status.prefix, d.changed])).toEqual([
      ["n1", "10.244.7.0/24", false],
      ["n2", "10.244.0.0/24", true],
    ]);
    expect(first.releasable).toEqual([]);
    // Without its pool's recorded grant the block cannot be replayed: it is decided again.
    expect(
      planDecisions([pool], [request("n1", 10, { prefix: "10.244.7.0/24", phase: "Allocated", sequence: 1, observedGeneration: 1 })])
        .allocations[0]!.status.prefix,
    ).toBe("10.244.0.0/24");
  });

  it("lets the finalizer go only when nothing is allocated from the claim", () => {
    const pool = { ...stored("pool", 1, ["10.244.0.0/16"], { extra: { delegateTo: ["*"] } }) };
    const deleting = { ...pool, metadata: { ...pool.metadata, deletionTimestamp: "2026-01-01T00:01:00Z" } };
    const allocation: NetworkAllocationObject = {
      apiVersion: "kana.kubekit.io/v1alpha1",
      kind: "NetworkAllocation",
      metadata: { name: "n1", resourceVersion: "5", generation: 1, creationTimestamp: "2026-01-01T00:00:01Z" },
      spec: { claim: "kubelet", pool: "10.244.0.0/16", prefixLength: 24, reference: { group: "", resource: "nodes" } },
      status: { prefix: "10.244.0.0/24", phase: "Allocated", sequence: 1, observedGeneration: 1 },
    };
    const decided = written(planDecisions([pool]))[0]!;
    expect(planDecisions([{ ...decided, metadata: deleting.metadata }], [allocation]).releasable).toEqual([]);
    expect(planDecisions([{ ...decided, metadata: deleting.metadata }], []).releasable).toEqual(["pool"]);
  });

  it("reports a spec the registry cannot apply as Invalid and keeps what the claim held", () => {
    const decider = new Decider();
    const first = written(decider.plan([stored("kube-apiserver", 1, ["10.96.0.0/12"])], []));
    // A well-known claim may only add records (first writer wins).
    const changed = {
      ...first[0]!,
      metadata: { ...first[0]!.metadata, generation: 2 },
      spec: { addressSpace: [{ reference: services, prefix: "10.97.0.0/16" }] },
    };
    const plan = decider.plan([changed], []);
    expect(plan.claims[0]!.status).toMatchObject({
      phase: "Invalid",
      observedGeneration: 2,
      addressSpace: [{ prefix: "10.96.0.0/12", status: "allocated" }],
    });
    // What it still holds is shown as for any claim.
    expect(plan.claims[0]!.status.allocatedPrefixes).toBe("10.96.0.0/12");
    expect(plan.claims[0]!.status.message).toContain("the first writer wins");
    // A new leader decides the same from what was written.
    expect(planDecisions(written(plan)).claims[0]!.status).toEqual(plan.claims[0]!.status);
  });

  it("keeps a record others delegate from when a spec update drops it, in the running leader and in a new one", () => {
    const decider = new Decider();
    const pool = stored("pool", 1, ["10.244.0.0/16"], { extra: { delegateTo: ["*"] } });
    const node = stored("node", 2, ["10.244.1.0/24"], { extra: { parent: { claim: "pool", prefix: "10.244.0.0/16" } } });
    const first = written(decider.plan([pool, node], []));
    expect(outcome(decider.plan(first, []))).toEqual({ pool: [1, "Allocated", "10.244.0.0/16"], node: [2, "Allocated", "10.244.1.0/24"] });
    const dropped = { ...first[0]!, metadata: { ...first[0]!.metadata, generation: 2 }, spec: { addressSpace: [] } };
    const running = decider.plan([dropped, first[1]!], []);
    expect(outcome(running)).toEqual({ pool: [1, "Invalid", "10.244.0.0/16"], node: [2, "Allocated", "10.244.1.0/24"] });
    const next = written(running);
    expect(outcome(planDecisions(next))).toEqual(outcome(running));
    expect(planDecisions(next).claims.map((d) => d.changed)).toEqual([false, false]);
  });

  it("a pass over many claims gives the event loop turns and decides as a pass in one go does", async () => {
    const many = Array.from({ length: 1_500 }, (_, i) =>
      stored(`c-${i}`, i + 1, [`10.${i >> 8}.${(i & 255) - (i % 10 === 9 ? 1 : 0)}.0/24`]),
    );
    let turns = 0;
    const ticking = setInterval(() => turns++, 0);
    try {
      const sliced = await new Decider().planInSlices(many, [], 1);
      expect(turns).toBeGreaterThan(0);
      expect(outcome(sliced)).toEqual(outcome(planDecisions(many)));
      expect(sliced.claims.filter((d) => d.status.phase === "Conflict")).toHaveLength(150);
    } finally {
      clearInterval(ticking);
    }
  });

  it("decides again only what a change can affect: one new allocation re-reads no claim from the registry", () => {
    const nodes = { group: "", resource: "nodes" };
    const pool = stored("pool", 1, ["10.128.0.0/9"], { extra: { delegateTo: ["*"] } });
    const claims = [pool, ...Array.from({ length: 200 }, (_, i) => stored(`c-${i}`, i + 2, [`10.0.${i % 10 === 9 ? i - 1 : i}.0/24`]))];
    const allocation = (i: number): NetworkAllocationObject => ({
      apiVersion: "kana.kubekit.io/v1alpha1",
      kind: "NetworkAllocation",
      metadata: { name: `node-${i}`, resourceVersion: String(1_000 + i), generation: 1, creationTimestamp: "2026-01-01T00:00:01Z" },
      spec: { claim: "kubelet", pool: "10.128.0.0/9", prefixLength: 26, reference: { ...nodes, name: `node-${i}` } },
    });
    const decider = new Decider();
    const first = decider.plan(
      claims,
      Array.from({ length: 500 }, (_, i) => allocation(i)),
    );
    const storedClaims = written(first);
    const storedAllocations = first.allocations.map((d) => ({ ...d.object, status: d.status }));
    decider.plan(storedClaims, storedAllocations);

    const reads = vi.spyOn(first.registry, "get");
    const next = decider.plan(storedClaims, [...storedAllocations, allocation(500)]);
    expect(reads).toHaveBeenCalledTimes(0);
    expect(next.allocations.filter((d) => d.changed).map((d) => d.object.metadata.name)).toEqual(["node-500"]);
    expect(next.claims.filter((d) => d.changed)).toEqual([]);
    // The same decisions as a new leader's pass over the same objects.
    const fresh = planDecisions(storedClaims, [...storedAllocations, allocation(500)]);
    expect(next.allocations.map((d) => d.status)).toEqual(fresh.allocations.map((d) => d.status));
    expect(outcome(next)).toEqual(outcome(fresh));
    expect([...next.dependedOn]).toEqual(["pool"]);

    // Deleting the holder of a refused record re-decides that record.
    const holder = storedClaims.findIndex((c) => c.metadata.name === "c-8");
    const afterDelete = decider.plan(
      storedClaims.filter((_, i) => i !== holder),
      [...storedAllocations, allocation(500)],
    );
    expect(afterDelete.claims.find((d) => d.object.metadata.name === "c-9")!.status).toMatchObject({
      phase: "Allocated",
      allocatedPrefixes: "10.0.8.0/24",
    });
  });
});
