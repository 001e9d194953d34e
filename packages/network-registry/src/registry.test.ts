import { describe, expect, it } from "vitest";
import { NetworkRegistryError } from "./errors.js";
import { NetworkRegistry } from "./registry.js";
import { SpecialPurposePolicy } from "./special-purpose.js";
import type { AddressRecord, NetworkClaim } from "./types.js";

const clock = () => new Date("2026-01-01T00:00:00.000Z");
const services = { group: "", resource: "services" };
const pods = { group: "", resource: "pods" };
const nodes = { group: "", resource: "nodes" };

function claim(name: string, ...records: AddressRecord[]): NetworkClaim {
  return { metadata: { name }, spec: { addressSpace: records } };
}

function statuses(result: NetworkClaim): string[] {
  return result.status!.addressSpace.map((r) => `${r.prefix} ${r.status}${r.conflict ? ` ${r.conflict.reason}` : ""}`);
}

describe("NetworkRegistry overlap policy", () => {
  it("lets kube-controller-manager carve the service range out of the pod range, in either order", () => {
    for (const order of [0, 1]) {
      const registry = new NetworkRegistry({ clock });
      const apiserver = claim("kube-apiserver", { reference: services, prefix: "10.96.0.0/12" });
      const kcm = claim(
        "kube-controller-manager",
        { reference: pods, prefix: "10.0.0.0/8" },
        { reference: services, prefix: "10.96.0.0/12", status: "unavailable", description: "service range" },
      );
      const [first, second] = order === 0 ? [apiserver, kcm] : [kcm, apiserver];
      registry.claim(first);
      registry.claim(second);
      expect(statuses(registry.get("kube-apiserver")!)).toEqual(["10.96.0.0/12 allocated"]);
      expect(statuses(registry.get("kube-controller-manager")!)).toEqual(["10.0.0.0/8 allocated", "10.96.0.0/12 unavailable"]);
      expect(registry.whois("10.96.0.1").mostSpecific?.claim).toBe("kube-apiserver");
      expect(registry.whois("10.1.0.1").mostSpecific?.claim).toBe("kube-controller-manager");
    }
  });

  it("refuses an undeclared overlap and explains it, first writer wins", () => {
    const registry = new NetworkRegistry({ clock });
    registry.claim(claim("kube-apiserver", { reference: services, prefix: "10.96.0.0/12" }));
    const cni = registry.claim(
      claim(
        "cilium",
        { reference: pods, prefix: "10.0.0.0/8" },
        { reference: pods, prefix: "10.96.0.0/16" },
        { reference: pods, prefix: "10.96.0.0/12" },
      ),
    );
    const [wide, inside, equal] = cni.status!.addressSpace;
    expect(wide?.status).toBe("unavailable");
    expect(wide?.conflict).toMatchObject({
      reason: "Overlap",
      relation: "contains",
      claim: "kube-apiserver",
      prefix: "10.96.0.0/12",
      reference: services,
    });
    expect(wide?.conflict?.message).toBe("10.0.0.0/8 contains 10.96.0.0/12 allocated to kube-apiserver (services)");
    expect(inside?.conflict).toMatchObject({ relation: "inside", nearestFree: "10.95.0.0/16" });
    expect(inside?.conflict?.message).toContain("nearest free /16: 10.95.0.0/16");
    expect(equal?.conflict).toMatchObject({ relation: "equal", nearestFree: "10.112.0.0/12" });
    expect(registry.get("kube-apiserver")!.status!.addressSpace[0]?.status).toBe("allocated");
  });

  it("treats overlapping records inside one claim like any other overlap", () => {
    const registry = new NetworkRegistry({ clock });
    const result = registry.claim(
      claim("calico", { reference: pods, prefix: "192.168.0.0/16" }, { reference: pods, prefix: "192.168.1.0/24" }),
    );
    expect(statuses(result)).toEqual(["192.168.0.0/16 allocated", "192.168.1.0/24 unavailable Overlap"]);
    expect(result.status!.addressSpace[1]?.conflict?.message).toContain("calico's own record");
  });

  it("allows declared delegation chains (IANA → RIR → LIR) and keeps siblings disjoint", () => {
    const registry = new NetworkRegistry({ clock });
    registry.claim(claim("platform", { reference: pods, prefix: "10.0.0.0/8", delegateTo: ["cluster-a", "cluster-b"] }));
    const a = registry.claim(
      claim("cluster-a", {
        reference: pods,
        prefix: "10.1.0.0/16",
        parent: { claim: "platform", prefix: "10.0.0.0/8" },
        delegateTo: ["*"],
      }),
    );
    const b = registry.claim(
      claim("cluster-b", { reference: pods, prefix: "10.1.0.0/17", parent: { claim: "platform", prefix: "10.0.0.0/8" } }),
    );
    const node = registry.claim(
      claim("node-1", { reference: nodes, prefix: "10.1.5.0/24", parent: { claim: "cluster-a", prefix: "10.1.0.0/16" } }),
    );
    const stranger = registry.claim(
      claim("stranger", { reference: pods, prefix: "10.2.0.0/16", parent: { claim: "platform", prefix: "10.0.0.0/8" } }),
    );
    expect(statuses(a)).toEqual(["10.1.0.0/16 allocated"]);
    expect(statuses(b)).toEqual(["10.1.0.0/17 unavailable Overlap"]);
    expect(b.status!.addressSpace[0]?.conflict?.nearestFree).toBe("10.0.128.0/17");
    expect(statuses(node)).toEqual(["10.1.5.0/24 allocated"]);
    expect(statuses(stranger)).toEqual(["10.2.0.0/16 unavailable NotDelegable"]);
    expect(registry.whois("10.1.5.7").covering.map((o) => o.claim)).toEqual(["node-1", "cluster-a", "platform"]);
  });

  it("refuses bad delegations", () => {
    const registry = new NetworkRegistry({ clock });
    registry.claim(
      claim("kcm", { reference: pods, prefix: "10.0.0.0/8" }, { reference: services, prefix: "10.96.0.0/12", status: "unavailable" }),
    );
    const result = registry.claim(
      claim("kcm2", { reference: nodes, prefix: "10.1.0.0/24", parent: { claim: "nobody", prefix: "10.0.0.0/8" } }),
    );
    expect(statuses(result)).toEqual(["10.1.0.0/24 unavailable ParentNotFound"]);
    const own = registry.claim(
      claim(
        "kcm",
        { reference: pods, prefix: "10.0.0.0/8" },
        { reference: services, prefix: "10.96.0.0/12", status: "unavailable" },
        { reference: nodes, prefix: "10.96.1.0/24", parent: { claim: "kcm", prefix: "10.0.0.0/8" } },
        { reference: nodes, prefix: "11.0.0.0/24", parent: { claim: "kcm", prefix: "10.0.0.0/8" } },
        { reference: nodes, prefix: "10.1.0.0/24", parent: { claim: "kcm", prefix: "10.0.0.0/8" } },
      ),
    );
    expect(statuses(own)).toEqual([
      "10.0.0.0/8 allocated",
      "10.96.0.0/12 unavailable",
      "10.96.1.0/24 unavailable InsideExclusion",
      "11.0.0.0/24 unavailable OutsideParent",
      "10.1.0.0/24 allocated",
    ]);
    expect(own.status!.addressSpace[2]?.conflict?.nearestFree).toBe("10.95.255.0/24");
  });

  it("applies the special-purpose policy: reject, warn, allow, overridable", () => {
    const registry = new NetworkRegistry({ clock });
    const result = registry.claim(
      claim(
        "lb",
        { reference: services, prefix: "127.0.0.0/24" },
        { reference: services, prefix: "100.64.0.0/16" },
        { reference: services, prefix: "fd00:10:96::/112" },
      ),
    );
    expect(statuses(result)).toEqual(["127.0.0.0/24 unavailable SpecialPurpose", "100.64.0.0/16 allocated", "fd00:10:96::/112 allocated"]);
    expect(result.status!.addressSpace[0]?.conflict?.message).toContain("Loopback");
    expect(result.status!.addressSpace[1]?.warnings?.[0]).toContain("Shared Address Space");
    expect(result.status!.addressSpace[2]?.warnings).toBeUndefined();
    const lenient = new NetworkRegistry({ clock, policy: new SpecialPurposePolicy([{ prefix: "127.0.0.0/8", action: "allow" }]) });
    expect(statuses(lenient.claim(claim("lb", { reference: services, prefix: "127.0.0.0/24" })))).toEqual(["127.0.0.0/24 allocated"]);
  });

  it("keeps the first kube-apiserver claim and reports a mismatch", () => {
    const registry = new NetworkRegistry({ clock });
    const first = registry.claim(claim("kube-apiserver", { reference: services, prefix: "10.96.0.0/12" }));
    expect(registry.claim(claim("kube-apiserver", { reference: services, prefix: "10.96.0.0/12" }))).toEqual(first);
    const error = (() => {
      try {
        registry.claim(claim("kube-apiserver", { reference: services, prefix: "10.0.0.0/16" }));
      } catch (e) {
        return e as NetworkRegistryError;
      }
      return undefined;
    })();
    expect(error?.code).toBe("claim-mismatch");
    expect(error?.message).toContain("first writer wins");
    expect(registry.get("kube-apiserver")).toEqual(first);
  });

  it("updates other claims in place, keeping unchanged records", () => {
    const registry = new NetworkRegistry({ clock });
    registry.claim(claim("cni", { reference: pods, prefix: "10.0.0.0/16" }, { reference: pods, prefix: "10.1.0.0/16" }));
    registry.claim(claim("other", { reference: pods, prefix: "10.2.0.0/16" }));
    const updated = registry.claim(claim("cni", { reference: pods, prefix: "10.1.0.0/16" }, { reference: pods, prefix: "10.3.0.0/16" }));
    expect(statuses(updated)).toEqual(["10.1.0.0/16 allocated", "10.3.0.0/16 allocated"]);
    expect(registry.whois("10.0.0.1").mostSpecific).toBeUndefined();
    expect(registry.list().map((c) => c.metadata.name)).toEqual(["cni", "other"]);
    // Space the update gave up goes to a record that was refused because of it.
    registry.claim(claim("late", { reference: pods, prefix: "10.1.0.0/24" }));
    expect(statuses(registry.get("late")!)).toEqual(["10.1.0.0/24 unavailable Overlap"]);
    registry.claim(claim("cni", { reference: pods, prefix: "10.3.0.0/16" }));
    expect(statuses(registry.get("late")!)).toEqual(["10.1.0.0/24 allocated"]);
  });

  it("re-checks refused records after a release, without revoking anything", () => {
    const registry = new NetworkRegistry({ clock });
    registry.claim(claim("a", { reference: pods, prefix: "10.0.0.0/16" }));
    registry.claim(claim("b", { reference: pods, prefix: "10.0.0.0/17" }));
    expect(statuses(registry.get("b")!)).toEqual(["10.0.0.0/17 unavailable Overlap"]);
    expect(registry.release("a")).toBe(true);
    expect(registry.release("a")).toBe(false);
    expect(statuses(registry.get("b")!)).toEqual(["10.0.0.0/17 allocated"]);
  });

  it("rejects malformed claims with every problem listed", () => {
    const registry = new NetworkRegistry({ clock });
    const bad = () => registry.claim(claim("Bad_Name", { reference: pods, prefix: "10.0.0.1/24", description: "x".repeat(256) }));
    expect(bad).toThrow(/metadata.name "Bad_Name" must be a DNS subdomain/);
    expect(bad).toThrow(/10.0.0.1\/24 has host bits set; did you mean 10.0.0.0\/24\?/);
    expect(bad).toThrow(/at most 255 characters/);
    expect(() =>
      registry.claim(claim("dup", { reference: pods, prefix: "10.0.0.0/24" }, { reference: nodes, prefix: "10.0.0.0/24" })),
    ).toThrow(/appears twice/);
    expect(() => registry.claim({ metadata: { name: "x" } } as NetworkClaim)).toThrow(/spec.addressSpace/);
  });

  it("warns about a carve-out that is outside the claim's own space", () => {
    const registry = new NetworkRegistry({ clock });
    const result = registry.claim(claim("kcm", { reference: services, prefix: "10.96.0.0/12", status: "unavailable" }));
    expect(result.status!.addressSpace[0]?.warnings?.[0]).toContain("carves nothing out");
  });

  it("answers whois for addresses and prefixes", () => {
    const registry = new NetworkRegistry({ clock });
    registry.claim(
      claim("kcm", { reference: pods, prefix: "10.0.0.0/8" }, { reference: services, prefix: "10.96.0.0/12", status: "unavailable" }),
    );
    registry.claim(
      claim("kube-apiserver", { reference: services, prefix: "10.96.0.0/12" }, { reference: services, prefix: "fd00:10:96::/112" }),
    );
    const who = registry.whois("10.96.0.0/12");
    expect(who.exact.map((o) => `${o.claim} ${o.record.status}`)).toEqual(["kcm unavailable", "kube-apiserver allocated"]);
    expect(who.mostSpecific?.claim).toBe("kube-apiserver");
    expect(who.covering.map((o) => o.claim)).toEqual(["kcm"]);
    expect(registry.whois("0.0.0.0/0").covered.map((o) => o.record.prefix)).toEqual(["10.0.0.0/8", "10.96.0.0/12", "10.96.0.0/12"]);
    expect(registry.whois("fd00:10:96::a").mostSpecific?.record.prefix).toBe("fd00:10:96::/112");
    expect(registry.whois("fd00:10:96::a").query).toBe("fd00:10:96::a");
    expect(registry.whois("10.96.0.0/12").query).toBe("10.96.0.0/12");
    expect(() => registry.whois("10.0.0.01")).toThrow(/leading zero/);
  });
});

describe("NetworkRegistry allocation", () => {
  function withPool(): NetworkRegistry {
    const registry = new NetworkRegistry({ clock });
    registry.claim(
      claim(
        "kcm",
        { reference: pods, prefix: "10.244.0.0/16", delegateTo: ["*"] },
        { reference: services, prefix: "10.244.0.0/24", status: "unavailable" },
      ),
    );
    return registry;
  }

  it("allocates the lowest aligned free block, skipping carve-outs and existing records", () => {
    const registry = withPool();
    const first = registry.allocate({ claim: "kcm", reference: nodes, from: "10.244.0.0/16", prefixLength: 24 });
    expect(first).toEqual({
      reference: nodes,
      prefix: "10.244.1.0/24",
      date: "2026-01-01T00:00:00.000Z",
      status: "allocated",
      parent: { claim: "kcm", prefix: "10.244.0.0/16" },
    });
    expect(registry.allocate({ claim: "node-b", reference: nodes, from: "10.244.0.0/16", prefixLength: 24 }).prefix).toBe("10.244.2.0/24");
    expect(registry.allocate({ claim: "node-b", reference: nodes, from: "10.244.0.0/16", prefixLength: 23 }).prefix).toBe("10.244.4.0/23");
    // best-fit takes the leftover /24 before splitting a larger block; first-fit takes the lowest.
    expect(
      registry.allocate({ claim: "kcm", reference: nodes, from: "10.244.0.0/16", prefixLength: 24, strategy: "first-fit" }).prefix,
    ).toBe("10.244.3.0/24");
    expect(registry.allocate({ claim: "kcm", reference: nodes, from: "10.244.0.0/16", prefixLength: 25 }).prefix).toBe("10.244.6.0/25");
    expect(registry.whois("10.244.2.1").mostSpecific?.claim).toBe("node-b");
  });

  it("merges released blocks back and reports utilization", () => {
    const registry = withPool();
    const before = registry.utilization("10.244.0.0/16");
    expect(before).toMatchObject({ size: "65536", used: "256", free: "65280", largestFree: "10.244.128.0/17" });
    const taken = Array.from(
      { length: 4 },
      () => registry.allocate({ claim: "kcm", reference: nodes, from: "10.244.0.0/16", prefixLength: 24 }).prefix,
    );
    expect(taken).toEqual(["10.244.1.0/24", "10.244.2.0/24", "10.244.3.0/24", "10.244.4.0/24"]);
    expect(registry.utilization("10.244.0.0/16").used).toBe(String(5 * 256));
    for (const prefix of taken) expect(registry.releaseRecord("kcm", prefix)).toBe(true);
    expect(registry.utilization("10.244.0.0/16")).toEqual(before);
    expect(registry.freeBlocks("10.244.0.0/16").map(String)).toEqual([
      "10.244.1.0/24",
      "10.244.2.0/23",
      "10.244.4.0/22",
      "10.244.8.0/21",
      "10.244.16.0/20",
      "10.244.32.0/19",
      "10.244.64.0/18",
      "10.244.128.0/17",
    ]);
  });

  it("sees records added by claims after the pool was first used", () => {
    const registry = withPool();
    registry.allocate({ claim: "kcm", reference: nodes, from: "10.244.0.0/16", prefixLength: 24 });
    registry.claim(claim("static", { reference: nodes, prefix: "10.244.2.0/24", parent: { claim: "kcm", prefix: "10.244.0.0/16" } }));
    expect(registry.allocate({ claim: "kcm", reference: nodes, from: "10.244.0.0/16", prefixLength: 24 }).prefix).toBe("10.244.3.0/24");
    registry.release("static");
    expect(registry.allocate({ claim: "kcm", reference: nodes, from: "10.244.0.0/16", prefixLength: 24 }).prefix).toBe("10.244.2.0/24");
  });

  it("fails clearly when the pool is missing, not delegable or full", () => {
    const registry = new NetworkRegistry({ clock });
    registry.claim(claim("kcm", { reference: pods, prefix: "10.244.0.0/23" }));
    const code = (fn: () => unknown) => {
      try {
        fn();
      } catch (e) {
        return (e as NetworkRegistryError).code;
      }
      return undefined;
    };
    expect(code(() => registry.allocate({ claim: "kcm", reference: nodes, from: "10.0.0.0/8", prefixLength: 24 }))).toBe("pool-not-found");
    expect(code(() => registry.allocate({ claim: "other", reference: nodes, from: "10.244.0.0/23", prefixLength: 24 }))).toBe(
      "not-delegable",
    );
    registry.allocate({ claim: "kcm", reference: nodes, from: "10.244.0.0/23", prefixLength: 24 });
    registry.allocate({ claim: "kcm", reference: nodes, from: "10.244.0.0/23", prefixLength: 24 });
    expect(code(() => registry.allocate({ claim: "kcm", reference: nodes, from: "10.244.0.0/23", prefixLength: 24 }))).toBe(
      "pool-exhausted",
    );
    expect(code(() => registry.allocate({ claim: "kcm", reference: nodes, from: "10.244.0.0/23", prefixLength: 22 }))).toBe(
      "invalid-argument",
    );
  });

  it("counts IPv6 pools exactly with BigInt", () => {
    const registry = new NetworkRegistry({ clock });
    registry.claim(claim("kcm", { reference: pods, prefix: "fd00:10:244::/48" }));
    expect(registry.allocate({ claim: "kcm", reference: nodes, from: "fd00:10:244::/48", prefixLength: 64 }).prefix).toBe(
      "fd00:10:244::/64",
    );
    expect(registry.allocate({ claim: "kcm", reference: nodes, from: "fd00:10:244::/48", prefixLength: 64 }).prefix).toBe(
      "fd00:10:244:1::/64",
    );
    const usage = registry.utilization("fd00:10:244::/48");
    expect(BigInt(usage.size)).toBe(2n ** 80n);
    expect(BigInt(usage.used)).toBe(2n * 2n ** 64n);
    expect(usage.largestFree).toBe("fd00:10:244:8000::/49");
  });
});

describe("NetworkRegistry snapshots", () => {
  it("round-trips through JSON and replays deterministically", () => {
    const build = () => {
      const registry = new NetworkRegistry({ clock });
      registry.claim(
        claim("kube-apiserver", { reference: services, prefix: "10.96.0.0/12" }, { reference: services, prefix: "fd00:10:96::/112" }),
      );
      registry.claim(
        claim(
          "kube-controller-manager",
          { reference: pods, prefix: "10.0.0.0/8" },
          { reference: services, prefix: "10.96.0.0/12", status: "unavailable" },
        ),
      );
      registry.claim(claim("cni", { reference: pods, prefix: "10.0.0.0/16" }));
      registry.allocate({ claim: "kube-controller-manager", reference: nodes, from: "10.0.0.0/8", prefixLength: 24 });
      return registry;
    };
    const registry = build();
    const json = JSON.stringify(registry.snapshot());
    expect(JSON.stringify(build().snapshot())).toBe(json);
    const restored = NetworkRegistry.restore(JSON.parse(json) as ReturnType<NetworkRegistry["snapshot"]>, { clock });
    expect(JSON.stringify(restored.snapshot())).toBe(json);
    expect(restored.whois("10.0.0.1").mostSpecific?.claim).toBe("kube-controller-manager");
    expect(restored.allocate({ claim: "kube-controller-manager", reference: nodes, from: "10.0.0.0/8", prefixLength: 24 }).prefix).toBe(
      registry.allocate({ claim: "kube-controller-manager", reference: nodes, from: "10.0.0.0/8", prefixLength: 24 }).prefix,
    );
    expect(() => NetworkRegistry.restore({ kind: "nope" } as unknown as ReturnType<NetworkRegistry["snapshot"]>)).toThrow(
      /kind must be NetworkRegistrySnapshot/,
    );
  });
});

describe("NetworkRegistry whole-pool delegation", () => {
  it("delegates a whole pool to another claim once, and never to its owner", () => {
    const registry = new NetworkRegistry({ clock });
    registry.claim(claim("platform", { reference: pods, prefix: "10.8.0.0/16", delegateTo: ["cluster-a"] }));
    expect(() => registry.allocate({ claim: "platform", reference: pods, from: "10.8.0.0/16", prefixLength: 16 })).toThrow(
      /changes nothing/,
    );
    expect(registry.allocate({ claim: "cluster-a", reference: pods, from: "10.8.0.0/16", prefixLength: 16 }).prefix).toBe("10.8.0.0/16");
    expect(() => registry.allocate({ claim: "cluster-b", reference: pods, from: "10.8.0.0/16", prefixLength: 24 })).toThrow(
      /does not delegate/,
    );
    // The delegate now allocates from its own copy of the block.
    expect(registry.allocate({ claim: "cluster-a", reference: nodes, from: "10.8.0.0/16", prefixLength: 24 }).prefix).toBe("10.8.0.0/24");
    expect(registry.whois("10.8.0.0/16").exact.map((o) => o.claim)).toEqual(["platform", "cluster-a"]);
    expect(registry.get("platform")!.status!.addressSpace.map((r) => r.prefix)).toEqual(["10.8.0.0/16"]);
  });
});

describe("NetworkRegistry restore keeps refused records re-checkable", () => {
  it("grants a refused record after its blocker is released, also after a restore", () => {
    const registry = new NetworkRegistry({ clock });
    registry.claim(claim("a", { reference: pods, prefix: "10.0.0.0/16" }));
    registry.claim(claim("b", { reference: pods, prefix: "10.0.0.0/17" }));
    const restored = NetworkRegistry.restore(JSON.parse(JSON.stringify(registry.snapshot())) as ReturnType<NetworkRegistry["snapshot"]>, {
      clock,
    });
    restored.release("a");
    expect(statuses(restored.get("b")!)).toEqual(["10.0.0.0/17 allocated"]);
    expect(restored.check("c", { reference: pods, prefix: "10.0.0.0/24" }).conflict?.claim).toBe("b");
    expect(restored.check("c", { reference: pods, prefix: "10.1.0.0/24" })).toEqual({ status: "allocated", warnings: [] });
  });
});

describe("NetworkRegistry.allocate at a given prefix (replaying a recorded block)", () => {
  it("takes exactly that block when it is free, and refuses a taken or misfit one", () => {
    const registry = new NetworkRegistry();
    registry.claim({
      metadata: { name: "pods" },
      spec: { addressSpace: [{ reference: { group: "", resource: "pods" }, prefix: "10.244.0.0/16", delegateTo: ["*"] }] },
    });
    const request = { claim: "kubelet", reference: { group: "", resource: "nodes" }, from: "10.244.0.0/16", prefixLength: 24 };
    expect(registry.allocate({ ...request, prefix: "10.244.9.0/24" })).toMatchObject({
      prefix: "10.244.9.0/24",
      status: "allocated",
      parent: { claim: "pods", prefix: "10.244.0.0/16" },
    });
    expect(() => registry.allocate({ ...request, prefix: "10.244.9.0/24" })).toThrow(
      expect.objectContaining({ code: "pool-exhausted", message: "10.244.9.0/24 is not free in 10.244.0.0/16" }) as Error,
    );
    expect(() => registry.allocate({ ...request, prefix: "10.244.10.0/25" })).toThrow(
      expect.objectContaining({ code: "invalid-argument", message: "prefix 10.244.10.0/25 is not a /24 of 10.244.0.0/16" }) as Error,
    );
    expect(registry.allocate({ ...request, strategy: "first-fit" }).prefix).toBe("10.244.0.0/24");
  });
});
