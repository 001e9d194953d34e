import { describe, expect, it } from "vitest";
import { NetworkRegistry } from "../registry.js";
import type { AddressRecord, NetworkClaim } from "../types.js";
import { detectDrift, renderDrift } from "./drift.js";
import { importControllerManagerFlags, type ObservedRange, type ObservedSpace } from "./importers/index.js";

const services = { group: "", resource: "services" };
const pods = { group: "", resource: "pods" };

function claim(name: string, ...addressSpace: AddressRecord[]): NetworkClaim {
  return { metadata: { name }, spec: { addressSpace } };
}

/** kube-apiserver's service range, kube-controller-manager's pod range with the service range carved out. */
function clusterRegistry(): NetworkRegistry {
  const registry = new NetworkRegistry({ clock: () => new Date("2026-01-01T00:00:00Z") });
  registry.claim(
    claim("kube-apiserver", { reference: services, prefix: "10.96.0.0/16" }, { reference: services, prefix: "fd00:10:96::/112" }),
  );
  registry.claim(
    claim(
      "kube-controller-manager",
      { reference: pods, prefix: "10.64.0.0/10" },
      { reference: pods, prefix: "fd00:10:244::/56" },
      { reference: services, prefix: "10.96.0.0/16", status: "unavailable" },
    ),
  );
  return registry;
}

function nodeRange(name: string, prefix: string): ObservedRange {
  return {
    prefix,
    use: "pods",
    reference: { group: "", resource: "nodes", name },
    source: { kind: "Node", name },
    description: `pods of node ${name}`,
    warnings: [],
  };
}

function serviceCIDR(name: string, prefix: string): ObservedRange {
  return {
    prefix,
    use: "services",
    reference: services,
    source: { kind: "ServiceCIDR", name },
    description: `services (ServiceCIDR ${name})`,
    warnings: [],
  };
}

function space(ranges: ObservedRange[], extra: Partial<ObservedSpace> = {}): ObservedSpace {
  return {
    ranges,
    observedUses: (["services", "pods"] as const).filter((u) => ranges.some((r) => r.use === u)),
    skipped: [],
    problems: [],
    ...extra,
  };
}

describe("detectDrift", () => {
  it("finds nothing when the cluster uses what it claims, the carved-out service range included", () => {
    const flags = importControllerManagerFlags({ clusterCIDR: "10.64.0.0/10,fd00:10:244::/56", serviceClusterIPRange: "10.96.0.0/16" });
    const report = detectDrift(
      space([
        serviceCIDR("kubernetes", "10.96.0.0/16"),
        serviceCIDR("kubernetes", "fd00:10:96::/112"),
        nodeRange("node-1", "10.64.0.0/24"),
        nodeRange("node-1", "fd00:10:244::/64"),
        nodeRange("node-2", "10.64.1.0/24"),
        ...flags.ranges,
      ]),
      clusterRegistry(),
    );
    expect(report.findings).toEqual([]);
    expect(report.drift).toBe(false);
    expect(report.summary).toMatchObject({ observed: 8, claimedRecords: 4 });
    expect(renderDrift(report)).toContain("OK: the cluster uses what it claims");
  });

  it("reports a node pod CIDR outside the claimed pod range, and inside the service range", () => {
    const report = detectDrift(
      space([
        serviceCIDR("kubernetes", "10.96.0.0/16"),
        nodeRange("node-1", "10.64.0.0/24"),
        nodeRange("node-3", "10.96.3.0/24"),
        nodeRange("node-4", "10.200.0.0/24"),
      ]),
      clusterRegistry(),
    );
    expect(report.findings.map((f) => [f.type, f.observed?.prefix, f.claim])).toEqual([
      ["OutsidePodRange", "10.96.3.0/24", undefined],
      ["Overlap", "10.96.3.0/24", "kube-apiserver"],
      ["OutsidePodRange", "10.200.0.0/24", undefined],
      ["Unused", undefined, "kube-apiserver"],
      ["Unused", undefined, "kube-controller-manager"],
    ]);
    expect(report.findings[0]!.message).toBe(
      "10.96.3.0/24 (pods of node node-3) is outside the claimed pod ranges 10.64.0.0/10 (kube-controller-manager), fd00:10:244::/56 (kube-controller-manager); it is inside 10.96.0.0/16 carved out by kube-controller-manager",
    );
    expect(report.findings[1]).toMatchObject({
      relation: "inside",
      message: "10.96.3.0/24 (pods of node node-3) is inside 10.96.0.0/16 claimed by kube-apiserver for services",
    });
    // Both uses were observed, so the IPv6 ranges nothing uses are reported.
    expect(report.findings[3]!.message).toBe("nothing observed uses fd00:10:96::/112 claimed by kube-apiserver for services");
    expect(report.findings[4]!.message).toBe("nothing observed uses fd00:10:244::/56 claimed by kube-controller-manager for pods");
    expect(report.drift).toBe(true);
    const text = renderDrift(report);
    expect(text).toMatch(/^OutsidePodRange {2}10\.96\.3\.0\/24/m);
    expect(text).toContain("DRIFT: the cluster's address space differs from its claims");
  });

  it("reports a service range nobody claimed for services, and the pod claim it lands in", () => {
    const report = detectDrift(
      space([serviceCIDR("kubernetes", "10.96.0.0/16"), serviceCIDR("extra", "10.100.0.0/16"), nodeRange("node-1", "10.64.0.0/24")], {
        observedUses: ["services"],
      }),
      clusterRegistry(),
    );
    expect(report.findings.map((f) => f.message)).toEqual([
      "10.100.0.0/16 (services (ServiceCIDR extra)) is in use but not claimed for services",
      "10.100.0.0/16 (services (ServiceCIDR extra)) is inside 10.64.0.0/10 claimed by kube-controller-manager for pods",
      "nothing observed uses fd00:10:96::/112 claimed by kube-apiserver for services",
    ]);
  });

  it("reports an observed range partly claimed, and a claimed range of another owner inside it", () => {
    const registry = clusterRegistry();
    registry.claim(claim("cilium", { reference: { group: "cilium.io", resource: "ciliumnodes" }, prefix: "10.32.0.0/16" }));
    const flags = importControllerManagerFlags({ clusterCIDR: "10.0.0.0/9" });
    const report = detectDrift(space(flags.ranges, { observedUses: ["pods"] }), registry);
    expect(report.findings.map((f) => [f.type, f.claim, f.relation])).toEqual([
      ["Unclaimed", undefined, undefined],
      ["Overlap", "cilium", "contains"],
      ["Overlap", "kube-apiserver", "contains"],
      ["Unused", "kube-controller-manager", undefined],
    ]);
    expect(report.findings[0]!.message).toBe(
      "10.0.0.0/9 (pods (kube-controller-manager --cluster-cidr)) is in use but not claimed for pods; only part of it is: 10.64.0.0/10 (kube-controller-manager)",
    );
    expect(report.findings[0]!.related).toEqual([{ claim: "kube-controller-manager", prefix: "10.64.0.0/10" }]);
  });

  it("tells node blocks apart: another node's block overlaps, a block whose node is gone is unused", () => {
    const registry = clusterRegistry();
    const block = registry.allocate({
      claim: "kube-controller-manager",
      reference: { group: "", resource: "nodes", name: "node-1" },
      from: "10.64.0.0/10",
      prefixLength: 24,
      strategy: "first-fit",
    });
    expect(block.prefix).toBe("10.64.0.0/24");
    const report = detectDrift(space([nodeRange("node-2", "10.64.0.0/24")], { observedUses: ["pods"] }), registry);
    expect(report.findings.map((f) => f.message)).toEqual([
      "10.64.0.0/24 (pods of node node-2) is 10.64.0.0/24 claimed by kube-controller-manager for nodes/node-1",
      "nothing observed uses 10.64.0.0/24 claimed by kube-controller-manager for nodes/node-1",
      "nothing observed uses fd00:10:244::/56 claimed by kube-controller-manager for pods",
    ]);
    const fine = detectDrift(space([nodeRange("node-1", "10.64.0.0/24"), nodeRange("node-1", "fd00:10:244::/64")]), registry);
    // Only pods were observed: the service ranges are not judged.
    expect(fine.findings).toEqual([]);
  });

  it("judges only the uses observed, and carries skipped sources and fix-ups as notes", () => {
    const registry = clusterRegistry();
    registry.claim(claim("reserved", { reference: pods, prefix: "10.128.0.0/16" }));
    const report = detectDrift(
      space([], { observedUses: [], skipped: ["ServiceCIDRs (networking.k8s.io) are not served"], problems: ["--cluster-cidr: bad"] }),
      registry,
    );
    expect(report.findings).toEqual([]);
    expect(report.notes).toEqual(["ServiceCIDRs (networking.k8s.io) are not served", "--cluster-cidr: bad"]);
    expect(renderDrift(report)).toMatch(/^note {2}ServiceCIDRs/m);
    const podsOnly = detectDrift(space([], { observedUses: ["pods"] }), registry);
    expect(podsOnly.findings.map((f) => f.record?.prefix)).toEqual(["10.64.0.0/10", "10.128.0.0/16", "fd00:10:244::/56"]);
  });
});
