import { describe, expect, it } from "vitest";
import { isNetworkRegistryError, type NetworkRegistryError } from "./errors.js";
import { NetworkRegistry, type RegistrySnapshot } from "./registry.js";
import type { AddressRecord, NetworkClaim } from "./types.js";

const clock = () => new Date("2026-01-01T00:00:00.000Z");
const services = { group: "", resource: "services" };
const pods = { group: "", resource: "pods" };
const nodes = { group: "", resource: "nodes" };

function claim(name: string, ...records: AddressRecord[]): NetworkClaim {
  return { metadata: { name }, spec: { addressSpace: records } };
}

function statuses(result: NetworkClaim | undefined): string[] {
  return result!.status!.addressSpace.map((r) => `${r.prefix} ${r.status}${r.conflict ? ` ${r.conflict.reason}` : ""}`);
}

function thrown(fn: () => unknown): NetworkRegistryError {
  try {
    fn();
  } catch (error) {
    if (isNetworkRegistryError(error)) return error;
    throw error;
  }
  throw new Error("expected a NetworkRegistryError");
}

const roundTrip = (registry: NetworkRegistry) =>
  NetworkRegistry.restore(JSON.parse(JSON.stringify(registry.snapshot())) as RegistrySnapshot, { clock });

describe("updates compare record by record", () => {
  it("keeps a delegating record's grant when only its delegateTo or description changes", () => {
    const registry = new NetworkRegistry({ clock });
    registry.claim(claim("platform", { reference: pods, prefix: "10.0.0.0/8", delegateTo: ["cluster-1"] }));
    registry.claim(claim("cluster-1", { reference: pods, prefix: "10.0.0.0/16", parent: { claim: "platform", prefix: "10.0.0.0/8" } }));
    const updated = registry.claim(
      claim("platform", { reference: pods, prefix: "10.0.0.0/8", delegateTo: ["cluster-1", "cluster-2"], description: "all clusters" }),
    );
    expect(statuses(updated)).toEqual(["10.0.0.0/8 allocated"]);
    expect(updated.status!.addressSpace[0]).toMatchObject({ delegateTo: ["cluster-1", "cluster-2"], description: "all clusters" });
    expect(
      registry.claim(claim("cluster-2", { reference: pods, prefix: "10.1.0.0/16", parent: { claim: "platform", prefix: "10.0.0.0/8" } }))
        .status!.addressSpace[0]!.status,
    ).toBe("allocated");
    expect(roundTrip(registry).snapshot()).toEqual(registry.snapshot());
  });

  it("refuses to take a delegate's permission away while it holds a delegation", () => {
    const registry = new NetworkRegistry({ clock });
    registry.claim(claim("platform", { reference: pods, prefix: "10.0.0.0/8", delegateTo: ["cluster-1"] }));
    registry.claim(claim("cluster-1", { reference: pods, prefix: "10.0.0.0/16", parent: { claim: "platform", prefix: "10.0.0.0/8" } }));
    const before = registry.snapshot();
    const error = thrown(() => registry.claim(claim("platform", { reference: pods, prefix: "10.0.0.0/8" })));
    expect(error.code).toBe("has-dependants");
    expect(error.message).toContain("cluster-1 10.0.0.0/16");
    expect(registry.snapshot()).toEqual(before);
  });
});

describe("release that would orphan delegations", () => {
  function delegated(): NetworkRegistry {
    const registry = new NetworkRegistry({ clock });
    registry.claim(claim("platform", { reference: pods, prefix: "10.0.0.0/8", delegateTo: ["*"] }));
    registry.claim(claim("cluster-1", { reference: pods, prefix: "10.1.0.0/16", parent: { claim: "platform", prefix: "10.0.0.0/8" } }));
    registry.allocate({ claim: "cluster-1", reference: nodes, from: "10.1.0.0/16", prefixLength: 24 });
    registry.allocate({ claim: "cluster-2", reference: pods, from: "10.0.0.0/8", prefixLength: 16 });
    return registry;
  }

  it("is refused with the dependants named, and changes nothing", () => {
    const registry = delegated();
    const before = registry.snapshot();
    const error = thrown(() => registry.release("platform"));
    expect(error.code).toBe("has-dependants");
    expect(error.message).toBe(
      "NetworkClaim platform cannot be released: 10.0.0.0/8 has delegations (cluster-1 10.1.0.0/16, cluster-2 10.0.0.0/16); release them first or pass { cascade: true }",
    );
    expect(registry.snapshot()).toEqual(before);
    expect(thrown(() => registry.claim(claim("platform"))).code).toBe("has-dependants");
  });

  it("cascades when asked: allocations go, declared dependants lose their grant", () => {
    const registry = delegated();
    expect(registry.release("platform", { cascade: true })).toBe(true);
    expect(registry.get("platform")).toBeUndefined();
    expect(statuses(registry.get("cluster-1"))).toEqual(["10.1.0.0/16 unavailable ParentNotFound"]);
    expect(registry.allocations()).toEqual([]);
    expect(registry.records()).toEqual([]);
  });

  it("releasing an allocation that is itself a pool is refused too", () => {
    const registry = new NetworkRegistry({ clock });
    registry.claim(claim("platform", { reference: pods, prefix: "10.0.0.0/8", delegateTo: ["*"] }));
    const block = registry.allocate({ claim: "cluster-1", reference: pods, from: "10.0.0.0/8", prefixLength: 16 });
    registry.allocate({ claim: "cluster-1", reference: nodes, from: block.prefix, prefixLength: 24 });
    expect(thrown(() => registry.releaseRecord("cluster-1", block.prefix)).code).toBe("has-dependants");
    expect(registry.releaseRecord("cluster-1", block.prefix, { cascade: true })).toBe(true);
    expect(registry.allocations("cluster-1")).toEqual([]);
  });
});

describe("declared intent and dynamic allocations are separate", () => {
  it("re-applying an unchanged spec keeps every allocation, also for well-known claims", () => {
    const registry = new NetworkRegistry({ clock });
    const kcm = claim("kube-controller-manager", { reference: pods, prefix: "10.244.0.0/16" });
    registry.claim(kcm);
    const node = registry.allocate({ claim: "kube-controller-manager", reference: nodes, from: "10.244.0.0/16", prefixLength: 24 });
    const generation = registry.generation;
    const again = registry.claim(kcm);
    expect(again.spec.addressSpace.map((r) => r.prefix)).toEqual(["10.244.0.0/16"]);
    expect(registry.generation).toBe(generation);
    expect(registry.allocations("kube-controller-manager").map((a) => a.record.prefix)).toEqual([node.prefix]);
    registry.claim(claim("cni", { reference: pods, prefix: "10.0.0.0/16", delegateTo: ["*"] }));
    registry.allocate({ claim: "cni", reference: nodes, from: "10.0.0.0/16", prefixLength: 24 });
    registry.claim(claim("cni", { reference: pods, prefix: "10.0.0.0/16", delegateTo: ["*"] }));
    expect(registry.allocations("cni")).toHaveLength(1);
    expect(registry.whois("10.244.0.1").mostSpecific?.record.prefix).toBe(node.prefix);
  });

  it("releaseRecord removes allocations, not declared records", () => {
    const registry = new NetworkRegistry({ clock });
    registry.claim(claim("kcm", { reference: pods, prefix: "10.244.0.0/16" }));
    expect(thrown(() => registry.releaseRecord("kcm", "10.244.0.0/16")).code).toBe("invalid-argument");
    expect(registry.releaseRecord("kcm", "10.244.9.0/24")).toBe(false);
  });
});

describe("order independence", () => {
  it("grants a child claimed before its parent once the parent is granted", () => {
    const registry = new NetworkRegistry({ clock });
    registry.claim(claim("cluster-1", { reference: pods, prefix: "10.1.0.0/16", parent: { claim: "platform", prefix: "10.0.0.0/8" } }));
    expect(statuses(registry.get("cluster-1"))).toEqual(["10.1.0.0/16 unavailable ParentNotFound"]);
    registry.claim(claim("platform", { reference: pods, prefix: "10.0.0.0/8", delegateTo: ["*"] }));
    expect(statuses(registry.get("cluster-1"))).toEqual(["10.1.0.0/16 allocated"]);
  });

  it("re-checks refused records when a carve-out is added later", () => {
    const registry = new NetworkRegistry({ clock });
    registry.claim(claim("kcm", { reference: pods, prefix: "10.0.0.0/8" }));
    registry.claim(claim("kube-apiserver", { reference: services, prefix: "10.96.0.0/12" }));
    expect(statuses(registry.get("kube-apiserver"))).toEqual(["10.96.0.0/12 unavailable Overlap"]);
    registry.claim(
      claim("kcm", { reference: pods, prefix: "10.0.0.0/8" }, { reference: services, prefix: "10.96.0.0/12", status: "unavailable" }),
    );
    expect(statuses(registry.get("kube-apiserver"))).toEqual(["10.96.0.0/12 allocated"]);
  });
});

describe("fresh conflicts", () => {
  it("never names a released record", () => {
    const registry = new NetworkRegistry({ clock });
    registry.claim(claim("a", { reference: pods, prefix: "10.0.0.0/16" }));
    registry.claim(claim("b", { reference: pods, prefix: "10.0.0.0/17" }));
    registry.claim(claim("c", { reference: pods, prefix: "10.0.0.0/24" }));
    expect(registry.get("c")!.status!.addressSpace[0]!.conflict?.claim).toBe("a");
    registry.release("a");
    expect(statuses(registry.get("b"))).toEqual(["10.0.0.0/17 allocated"]);
    expect(registry.get("c")!.status!.addressSpace[0]!.conflict).toMatchObject({ claim: "b", prefix: "10.0.0.0/17", relation: "inside" });
  });

  it("suggests the truly nearest free block when a blocker starts inside the candidate", () => {
    const registry = new NetworkRegistry({ clock });
    registry.claim(claim("owner", { reference: pods, prefix: "10.0.9.0/24" }, { reference: pods, prefix: "10.0.12.0/22" }));
    const check = registry.check("newcomer", { reference: pods, prefix: "10.0.8.0/22" });
    expect(check.conflict?.nearestFree).toBe("10.0.4.0/22");
    expect(registry.check("newcomer", { reference: pods, prefix: "10.0.4.0/22" }).status).toBe("allocated");
  });

  it("suggests a free block inside a carve-out of the blocking record's owner", () => {
    const registry = new NetworkRegistry({ clock });
    registry.claim(
      claim("kcm", { reference: pods, prefix: "10.0.0.0/8" }, { reference: services, prefix: "10.96.0.0/12", status: "unavailable" }),
    );
    registry.claim(claim("kube-apiserver", { reference: services, prefix: "10.96.0.0/16" }));
    expect(registry.check("cilium", { reference: pods, prefix: "10.95.0.0/16" }).conflict?.nearestFree).toBe("10.97.0.0/16");
  });

  it("gives OutsideParent refusals a suggestion inside the parent", () => {
    const registry = new NetworkRegistry({ clock });
    registry.claim(claim("platform", { reference: pods, prefix: "10.0.0.0/16", delegateTo: ["*"] }));
    const result = registry.claim(
      claim("c", { reference: pods, prefix: "10.1.0.0/24", parent: { claim: "platform", prefix: "10.0.0.0/16" } }),
    );
    expect(result.status!.addressSpace[0]!.conflict).toMatchObject({ reason: "OutsideParent", nearestFree: "10.0.255.0/24" });
  });
});

describe("another claim's carve-out is not the pool owner's used space", () => {
  it("shows the service range unused although kube-controller-manager carved it out", () => {
    const registry = new NetworkRegistry({ clock });
    registry.claim(claim("kube-apiserver", { reference: services, prefix: "10.96.0.0/12" }));
    registry.claim(
      claim(
        "kube-controller-manager",
        { reference: pods, prefix: "10.0.0.0/8" },
        { reference: services, prefix: "10.96.0.0/12", status: "unavailable" },
      ),
    );
    expect(registry.utilization("10.96.0.0/12")).toMatchObject({ used: "0", percentUsed: 0, largestFree: "10.96.0.0/12" });
    expect(registry.utilization("10.0.0.0/8")).toMatchObject({ used: String(2 ** 20) });
  });

  it("reports small used fractions honestly and serialises to JSON", () => {
    const registry = new NetworkRegistry({ clock });
    registry.claim(claim("kcm", { reference: pods, prefix: "fd00::/8" }));
    registry.allocate({ claim: "kcm", reference: nodes, from: "fd00::/8", prefixLength: 64 });
    const usage = registry.utilization("fd00::/8");
    expect(usage.percentUsed).toBeGreaterThan(0);
    expect(usage.percentUsed).toBeCloseTo(100 * 2 ** -56, 20);
    expect(JSON.parse(JSON.stringify(usage))).toMatchObject({ used: String(2n ** 64n), size: String(2n ** 120n) });
  });
});

describe("well-known claims can grow", () => {
  it("adds a second service range without release, and still refuses a changed one", () => {
    const registry = new NetworkRegistry({ clock });
    registry.claim(claim("kube-apiserver", { reference: services, prefix: "10.96.0.0/16" }));
    const grown = registry.claim(
      claim("kube-apiserver", { reference: services, prefix: "10.96.0.0/16" }, { reference: services, prefix: "10.100.0.0/16" }),
    );
    expect(statuses(grown)).toEqual(["10.96.0.0/16 allocated", "10.100.0.0/16 allocated"]);
    expect(thrown(() => registry.claim(claim("kube-apiserver", { reference: services, prefix: "10.100.0.0/16" }))).code).toBe(
      "claim-mismatch",
    );
  });
});

describe("regressions found by the lifecycle model", () => {
  it("keeps a pool fully used by a whole-pool delegate when the delegate releases a block of its own", () => {
    const registry = new NetworkRegistry({ clock });
    registry.claim(claim("alpha", { reference: pods, prefix: "fd00::/16", delegateTo: ["beta"] }));
    registry.allocate({ claim: "beta", reference: pods, from: "fd00::/16", prefixLength: 16 });
    const block = registry.allocate({ claim: "beta", reference: pods, from: "fd00::/16", prefixLength: 17 });
    expect(registry.utilization("fd00::/16").percentUsed).toBe(100);
    registry.releaseRecord("beta", block.prefix);
    expect(registry.utilization("fd00::/16").percentUsed).toBe(100);
  });

  it("restores an allocation at the prefix of the same claim's refused declared record", () => {
    const registry = new NetworkRegistry({ clock });
    registry.claim(claim("kube-apiserver", { reference: services, prefix: "fd00::/21" }, { reference: services, prefix: "fd00::/23" }));
    expect(
      registry.allocate({ claim: "kube-apiserver", reference: services, from: "fd00::/21", prefixLength: 23, strategy: "first-fit" })
        .prefix,
    ).toBe("fd00::/23");
    expect(roundTrip(registry).snapshot()).toEqual(registry.snapshot());
  });

  it("gives no suggestion when the parent does not delegate to the claim at all", () => {
    const registry = new NetworkRegistry({ clock });
    registry.claim(claim("alpha", { reference: pods, prefix: "10.0.0.0/10" }));
    const check = registry.check("newcomer", {
      reference: pods,
      prefix: "10.64.0.0/10",
      parent: { claim: "alpha", prefix: "10.0.0.0/10" },
    });
    expect(check.conflict).toMatchObject({ reason: "OutsideParent" });
    expect(check.conflict?.nearestFree).toBeUndefined();
  });
});

describe("an allocation at the prefix of the same claim's carve-out", () => {
  it("survives a snapshot round trip", () => {
    const registry = new NetworkRegistry({ clock });
    registry.claim(claim("alpha", { reference: pods, prefix: "10.0.0.0/8", status: "unavailable" }));
    registry.claim(claim("kube-apiserver", { reference: services, prefix: "10.0.0.0/8", delegateTo: ["*"] }));
    expect(registry.allocate({ claim: "alpha", reference: pods, from: "10.0.0.0/8", prefixLength: 8 }).prefix).toBe("10.0.0.0/8");
    const restored = roundTrip(registry);
    expect(restored.snapshot()).toEqual(registry.snapshot());
    expect(restored.whois("10.1.2.3")).toEqual(registry.whois("10.1.2.3"));
    expect(restored.utilization("10.0.0.0/8")).toEqual(registry.utilization("10.0.0.0/8"));
  });

  it("refuses a block that would overlap the requester's own record around the pool", () => {
    const registry = new NetworkRegistry({ clock });
    registry.claim(
      claim("beta", { reference: pods, prefix: "10.0.0.0/9", status: "unavailable" }, { reference: pods, prefix: "10.0.0.0/8" }),
    );
    registry.claim(claim("alpha", { reference: pods, prefix: "10.0.0.0/9", delegateTo: ["*"] }));
    const before = registry.snapshot();
    const error = thrown(() => registry.allocate({ claim: "beta", reference: pods, from: "10.0.0.0/9", prefixLength: 9 }));
    expect(error.code).toBe("invalid-argument");
    expect(error.message).toBe(
      "beta cannot hold a block of alpha 10.0.0.0/9: its own record 10.0.0.0/8 contains the pool (which sits in its carve-out), so the block would overlap it",
    );
    expect(registry.snapshot()).toEqual(before);
    expect(registry.allocate({ claim: "gamma", reference: pods, from: "10.0.0.0/9", prefixLength: 9 }).prefix).toBe("10.0.0.0/9");
  });
});

describe("a pool inside its owner's own carve-out", () => {
  it("has no space to give, also after a record inside it is released", () => {
    const registry = new NetworkRegistry({ clock });
    registry.claim(
      claim(
        "kube-apiserver",
        { reference: services, prefix: "10.0.0.0/9" },
        { reference: services, prefix: "10.0.0.0/8", status: "unavailable" },
      ),
    );
    registry.claim(claim("alpha", { reference: pods, prefix: "10.0.0.0/10" }));
    expect(registry.get("alpha")!.status!.addressSpace[0]!.status).toBe("allocated");
    expect(registry.utilization("10.0.0.0/9").percentUsed).toBe(100);
    expect(
      thrown(() => registry.allocate({ claim: "kube-apiserver", reference: services, from: "10.0.0.0/9", prefixLength: 10 })).code,
    ).toBe("pool-exhausted");
    registry.release("alpha");
    expect(registry.utilization("10.0.0.0/9").percentUsed).toBe(100);
  });
});
