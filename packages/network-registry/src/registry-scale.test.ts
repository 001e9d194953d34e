import { describe, expect, it } from "vitest";
import { NetworkRegistry } from "./registry.js";

/*
 * The size of a large estate: 2,000 component claims of which every 10th overlaps the one before
 * (about 200 refusals, each with a nearest-free suggestion past a dense run of neighbours), then
 * 5,000 node blocks from a pool. A change re-decides only the refusals it can affect, so a
 * decision stays far below a millisecond however many refusals wait.
 */

const pods = { group: "", resource: "pods" };
const PER_DECISION_MS = 1;

function buildClaims(registry: NetworkRegistry): number {
  const started = performance.now();
  for (let i = 0; i < 2_000; i++) {
    const n = i % 10 === 9 ? i - 1 : i;
    registry.claim({
      metadata: { name: `component-${i}` },
      spec: { addressSpace: [{ reference: pods, prefix: `10.${n >> 8}.${n & 255}.0/24` }] },
    });
  }
  return performance.now() - started;
}

describe("registry at 2,000 claims with 10 % refused and 5,000 allocations", () => {
  it("decides each claim and each allocation in well under a millisecond, refusals kept current", { timeout: 60_000 }, () => {
    const registry = new NetworkRegistry();
    const claimsMs = buildClaims(registry);
    const refused = registry.list().filter((c) => c.status!.addressSpace[0]!.conflict !== undefined);
    expect(refused).toHaveLength(200);
    expect(claimsMs / 2_000).toBeLessThan(PER_DECISION_MS);

    registry.claim({
      metadata: { name: "node-pool" },
      spec: { addressSpace: [{ reference: { group: "", resource: "nodes" }, prefix: "10.128.0.0/9", delegateTo: ["*"] }] },
    });
    const started = performance.now();
    for (let i = 0; i < 5_000; i++) {
      registry.allocate({
        claim: "kubelet",
        reference: { group: "", resource: "nodes", name: `node-${i}` },
        from: "10.128.0.0/9",
        prefixLength: 26,
      });
    }
    const allocationsMs = performance.now() - started;
    expect(allocationsMs / 5_000).toBeLessThan(PER_DECISION_MS);
    expect(registry.allocations("kubelet")).toHaveLength(5_000);

    // Each refusal names its blocker and the nearest free /24 now.
    const status = (name: string) => registry.get(name)!.status!.addressSpace[0]!;
    expect(status("component-1999").conflict).toMatchObject({ reason: "Overlap", claim: "component-1998", nearestFree: "10.7.207.0/24" });
    registry.claim({ metadata: { name: "newcomer" }, spec: { addressSpace: [{ reference: pods, prefix: "10.7.207.0/24" }] } });
    expect(status("component-1999").conflict).toMatchObject({ claim: "component-1998", nearestFree: "10.7.208.0/24" });
    // The blocker gone, the refusal is granted.
    registry.release("component-1998");
    expect(status("component-1999")).toMatchObject({ status: "allocated", prefix: "10.7.206.0/24" });
  });
});
