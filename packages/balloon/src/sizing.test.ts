import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Quantity } from "@kubekit/apimachinery";
import { parseResourceList as rl, resourceListStrings, sumResourceLists, type ResourceList } from "./resource-list.js";
import { effectiveNodeSize, planResize, type PlanResizeInput } from "./sizing.js";

const node = { capacity: rl("cpu=8,memory=33Gi"), allocatable: rl("cpu=8,memory=32Gi") };
const pods = [rl("cpu=1,memory=4Gi"), rl("cpu=500m,memory=2Gi")];

describe("planResize", () => {
  it("grows the balloon to shrink the node when the other pods leave room", () => {
    const plan = planResize({ node, pods, balloon: rl("cpu=2,memory=8Gi"), target: rl("cpu=4,memory=16Gi") });
    expect(plan.decision).toBe("resize");
    expect(resourceListStrings(plan.balloon)).toEqual({ cpu: "4", memory: "16Gi" });
    expect(plan.resources.map((r) => r.direction)).toEqual(["shrink-node", "shrink-node"]);
    if (plan.decision !== "refused") expect(resourceListStrings(plan.effective)).toEqual({ cpu: "4", memory: "16Gi" });
  });

  it("refuses, naming the resource, when the balloon would displace a running pod", () => {
    const plan = planResize({ node, pods, balloon: rl("cpu=2,memory=8Gi"), target: rl("cpu=1,memory=16Gi") });
    expect(plan.decision).toBe("refused");
    if (plan.decision !== "refused") return;
    expect(plan.refusals.map((r) => [r.resource, r.requested.toString(), r.room.toString()])).toEqual([["cpu", "7", "6500m"]]);
    expect(resourceListStrings(plan.balloon)).toEqual({ cpu: "2", memory: "8Gi" });
    expect(plan.message).toContain("cpu: the balloon needs 7 but other pods request 1500m of 8 allocatable, leaving 6500m");
  });

  it("always shrinks the balloon to grow the node, even on an overcommitted node", () => {
    const crowded = [rl("cpu=7,memory=30Gi")];
    const plan = planResize({ node, pods: crowded, balloon: rl("cpu=4,memory=16Gi"), target: rl("cpu=6") });
    expect(plan.decision).toBe("resize");
    expect(resourceListStrings(plan.balloon)).toEqual({ cpu: "2", memory: "16Gi" });
    expect(plan.resources[0]?.direction).toBe("grow-node");
  });

  it("never goes below the floor, and says so", () => {
    const plan = planResize({ node, pods, balloon: rl("cpu=2,memory=8Gi"), target: rl("cpu=8,memory=40Gi") });
    expect(resourceListStrings(plan.balloon)).toEqual({ cpu: "1m", memory: "1Mi" });
    expect(plan.resources.map((r) => r.limitedBy)).toEqual(["floor", "floor"]);
    const custom = planResize({ node, pods, balloon: rl("cpu=2"), target: rl("cpu=8"), floor: rl("cpu=250m") });
    expect(custom.balloon.cpu?.toString()).toBe("250m");
  });

  it("rounds the balloon up to the granularity so the node never offers more than the target", () => {
    const plan = planResize({ node, pods, balloon: rl("memory=8Gi"), target: rl("memory=17000000000,cpu=3.0005") });
    // 32Gi − 17e9 bytes = 16555.6Mi → 16556Mi; 8 − 3.0005 = 4.9995 → 5 (5000m).
    expect(resourceListStrings(plan.balloon)).toEqual({ memory: "16556Mi", cpu: "5" });
    for (const r of plan.resources) expect(r.effective.cmp(r.target)).toBeLessThanOrEqual(0);
    const coarse = planResize({ node, pods, balloon: rl("cpu=2"), target: rl("cpu=3.3"), granularity: rl("cpu=500m") });
    expect(coarse.balloon.cpu?.toString()).toBe("5");
  });

  it("refuses to leave the balloon without requests, which would make it BestEffort", () => {
    const zero = rl("cpu=0,memory=0");
    expect(() => planResize({ node, pods: [], balloon: rl("cpu=1,memory=1Gi"), target: rl("cpu=8,memory=32Gi"), floor: zero })).toThrow(
      /BestEffort/,
    );
    const oneLeft = planResize({ node, pods: [], balloon: rl("cpu=1,memory=1Gi"), target: rl("cpu=8"), floor: zero });
    expect(resourceListStrings(oneLeft.balloon)).toEqual({ cpu: "0", memory: "1Gi" });
  });

  it("keeps the default floor for every resource a partial floor does not name", () => {
    const plan = planResize({ node, pods: [], balloon: rl("cpu=2,memory=8Gi"), target: rl("cpu=8,memory=32Gi"), floor: rl("cpu=250m") });
    expect(resourceListStrings(plan.balloon)).toEqual({ cpu: "250m", memory: "1Mi" });
  });

  it("rejects units that make no sense for the resource, naming the rule", () => {
    const base = { node, pods, balloon: rl("cpu=2,memory=8Gi") };
    // 500m of memory is half a byte: planned naively, it asks for a 32Gi balloon.
    expect(() => planResize({ ...base, target: rl("memory=500m") })).toThrow(
      'target memory: fractional byte value "500m" is invalid, must be an integer (did you mean 500Mi?)',
    );
    expect(() => planResize({ ...base, target: rl("cpu=4Gi") })).toThrow(/target cpu: "4Gi" uses a binary \(byte\) suffix/);
    expect(() => planResize({ ...base, target: rl("memory=16Gi"), granularity: rl("memory=1m") })).toThrow(
      /granularity memory: fractional byte value "1m" is invalid/,
    );
    expect(() => planResize({ ...base, target: rl("cpu=4"), granularity: rl("cpu=1500u") })).toThrow(/whole number of millicores/);
    expect(() => planResize({ ...base, target: rl("cpu=4"), floor: rl("memory=0.5") })).toThrow(/floor memory: fractional byte/);
  });

  it("refuses to plan for a balloon with no requests above zero (BestEffort), which no resize can change", () => {
    expect(() => planResize({ node, pods, balloon: {}, target: rl("cpu=4") })).toThrow(/BestEffort/);
    expect(() => planResize({ node, pods, balloon: rl("cpu=0,memory=0"), target: rl("cpu=4") })).toThrow(
      /a resize may not change the QoS class/,
    );
  });

  it("reports unchanged when the balloon already has the target size", () => {
    const plan = planResize({ node, pods, balloon: rl("cpu=4,memory=16Gi"), target: rl("cpu=4,memory=16Gi") });
    expect(plan.decision).toBe("unchanged");
  });

  it("rejects inputs that break the contract", () => {
    const base = { node, pods, balloon: rl("cpu=2") };
    expect(() => planResize({ ...base, target: rl("ephemeral-storage=10Gi") })).toThrow(/only change cpu and memory/);
    expect(() => planResize({ ...base, target: rl("cpu=-1") })).toThrow(expect.objectContaining({ code: "invalid-argument" }));
    expect(() => planResize({ ...base, target: rl("cpu=1"), floor: rl("cpu=9") })).toThrow(/floor for cpu/);
    expect(() => planResize({ ...base, node: { allocatable: rl("memory=1Gi") }, target: rl("cpu=1") })).toThrow(/does not list/);
    expect(() => planResize({ ...base, node: { capacity: rl("cpu=4"), allocatable: rl("cpu=8") }, target: rl("cpu=1") })).toThrow(
      /exceeds capacity/,
    );
  });

  it("computes the effective size as allocatable minus balloon", () => {
    expect(resourceListStrings(effectiveNodeSize(node.allocatable, rl("cpu=1500m,memory=1Gi")))).toEqual({
      cpu: "6500m",
      memory: "31Gi",
    });
  });
});

describe("planResize properties", () => {
  const NANO = 1_000_000_000n;
  const resources = ["cpu", "memory"] as const;
  const steps = { cpu: ["1m", "10m", "100m", "1"], memory: ["1", "1Ki", "1Mi", "4Mi"] };

  /** A consistent node: other pods and the current balloon together fit in allocatable. */
  const scenario = fc
    .record({
      // CPU from 1m, memory in whole bytes: the units planResize accepts.
      allocatable: fc.tuple(
        fc.bigInt({ min: 1_000_000n, max: 256n * NANO }),
        fc.bigInt({ min: 1n, max: 1n << 40n }).map((bytes) => bytes * NANO),
      ),
      podShares: fc.array(fc.tuple(fc.bigInt({ min: 0n, max: 500n }), fc.bigInt({ min: 0n, max: 500n })), { maxLength: 6 }),
      balloonShare: fc.tuple(fc.bigInt({ min: 0n, max: 1000n }), fc.bigInt({ min: 0n, max: 1000n })),
      targetShare: fc.tuple(fc.bigInt({ min: 0n, max: 1100n }), fc.bigInt({ min: 0n, max: 1100n })),
      floorShare: fc.tuple(fc.bigInt({ min: 0n, max: 200n }), fc.bigInt({ min: 0n, max: 200n })),
      step: fc.tuple(fc.constantFrom(...steps.cpu), fc.constantFrom(...steps.memory)),
      withFloor: fc.boolean(),
    })
    .map((s) => {
      const allocatable: Record<string, Quantity> = {};
      const others: Record<string, Quantity>[] = s.podShares.map(() => ({}));
      const balloon: Record<string, Quantity> = {};
      const target: Record<string, Quantity> = {};
      const floor: Record<string, Quantity> = {};
      const granularity: Record<string, Quantity> = {};
      resources.forEach((name, i) => {
        // Whole millicores and bytes; the balloon holds at least 1m cpu and 1 byte (it is never BestEffort).
        const unit = name === "memory" ? NANO : 1_000_000n;
        const whole = (nanos: bigint) => (nanos / unit) * unit;
        const a = whole(s.allocatable[i] as bigint);
        allocatable[name] = Quantity.fromNanos(a);
        // Split at most all of A between the other pods and the balloon, in per-mille slices.
        let balloonNanos = whole((a * (s.balloonShare[i] as bigint)) / 2000n);
        if (balloonNanos < unit) balloonNanos = unit;
        let left = a - balloonNanos;
        s.podShares.forEach((share, p) => {
          const slice = whole((left * (share[i] as bigint)) / 1000n);
          left -= slice;
          (others[p] as Record<string, Quantity>)[name] = Quantity.fromNanos(slice);
        });
        balloon[name] = Quantity.fromNanos(balloonNanos);
        target[name] = Quantity.fromNanos(whole((a * (s.targetShare[i] as bigint)) / 1000n));
        floor[name] = Quantity.fromNanos((a * (s.floorShare[i] as bigint)) / 1000n).floorTo(Quantity.parse(s.step[i] as string));
        granularity[name] = Quantity.parse(s.step[i] as string);
      });
      const input: PlanResizeInput = {
        node: { allocatable },
        pods: others,
        balloon,
        target,
        granularity,
        floor: s.withFloor ? floor : { cpu: Quantity.zero(), memory: Quantity.zero() },
      };
      return input;
    });

  /** planResize, with the all-zero (BestEffort) balloon error turned into an outcome. */
  const plan = (input: PlanResizeInput) => {
    try {
      return planResize(input);
    } catch (error) {
      if ((error as Error).message.includes("BestEffort")) return undefined;
      throw error;
    }
  };

  const sum = (lists: readonly ResourceList[], name: string) =>
    lists.reduce((total, list) => total.add(list[name] ?? Quantity.zero()), Quantity.zero());

  it("an accepted plan never lets the requests on the node exceed allocatable", () => {
    fc.assert(
      fc.property(scenario, (input) => {
        const result = plan(input);
        if (!result || result.decision === "refused") return;
        const total = sumResourceLists(...input.pods, result.balloon);
        for (const name of resources) expect(total[name]?.cmp(input.node.allocatable[name] as Quantity)).toBeLessThanOrEqual(0);
      }),
      { numRuns: 300 },
    );
  });

  it("never plans a balloon below the floor or above allocatable", () => {
    fc.assert(
      fc.property(scenario, (input) => {
        for (const r of plan(input)?.resources ?? []) {
          expect(r.planned.cmp(input.floor?.[r.resource] ?? Quantity.zero())).toBeGreaterThanOrEqual(0);
          expect(r.planned.cmp(input.node.allocatable[r.resource] as Quantity)).toBeLessThanOrEqual(0);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("refuses exactly when the balloon the target needs does not fit beside the other pods", () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(scenario, (input) => {
        const needs = resources.map((name) => {
          const a = input.node.allocatable[name] as Quantity;
          const step = input.granularity?.[name] as Quantity;
          const floor = (input.floor?.[name] ?? Quantity.zero()).ceilTo(step);
          return {
            name,
            a,
            need: a
              .sub(input.target[name] as Quantity)
              .ceilTo(step)
              .max(floor)
              .min(a),
          };
        });
        const cannotFit = needs.some(({ name, a, need }) => sum(input.pods, name).add(need).cmp(a) > 0);
        const result = plan(input);
        if (!result) {
          // Only a fitting plan that zeroes every request is turned down as BestEffort.
          expect(cannotFit).toBe(false);
          expect(needs.every(({ need }) => need.isZero())).toBe(true);
          return;
        }
        expect(result.decision === "refused").toBe(cannotFit);
        if (result.decision === "refused") expect(result.balloon).toBe(input.balloon);
        seen.add(result.decision);
      }),
      { numRuns: 300 },
    );
    // The generator must exercise both sides of the equivalence.
    expect(seen.has("refused") && seen.has("resize")).toBe(true);
  });

  it("without floor or rounding, refuses exactly when some target is smaller than the other pods' requests", () => {
    const exact = scenario.map((input) => ({
      ...input,
      floor: { cpu: Quantity.zero(), memory: Quantity.zero() },
      granularity: { cpu: Quantity.parse("1m"), memory: Quantity.parse("1") },
    }));
    fc.assert(
      fc.property(exact, (input) => {
        const tooSmall = resources.some((name) => (input.target[name] as Quantity).cmp(sum(input.pods, name)) < 0);
        const result = plan(input);
        if (!result) {
          expect(tooSmall).toBe(false);
          return;
        }
        expect(result.decision === "refused").toBe(tooSmall);
        if (result.decision !== "refused") {
          for (const r of result.resources) if (!r.limitedBy) expect(r.effective.equals(r.target)).toBe(true);
        }
      }),
      { numRuns: 300 },
    );
  });

  it("an accepted plan offers at most the target (unless held by the floor) and misses it by less than one step", () => {
    fc.assert(
      fc.property(scenario, (input) => {
        const result = plan(input);
        if (!result || result.decision === "refused") return;
        for (const r of result.resources) {
          if (r.limitedBy === "floor") continue;
          expect(r.effective.cmp(r.target)).toBeLessThanOrEqual(0);
          if (!r.limitedBy) {
            expect(r.target.sub(r.effective).cmp(input.granularity?.[r.resource] as Quantity)).toBeLessThan(0);
          }
        }
      }),
      { numRuns: 300 },
    );
  });
});
