import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { isBalloonError } from "./errors.js";
import { Quantity } from "@kubekit/apimachinery";
import { parseResourceList as rl, resourceListStrings } from "./resource-list.js";
import { splitHost } from "./split-host.js";

describe("splitHost", () => {
  it("caps each of N kubelets at 1/N of the host", () => {
    const split = splitHost({ host: rl("cpu=64,memory=256Gi"), kubelets: 8 });
    expect(resourceListStrings(split.effective)).toEqual({ cpu: "8", memory: "32Gi" });
    // Each kubelet sees the whole host as allocatable, so the balloon hides the other 7/8.
    expect(resourceListStrings(split.balloon)).toEqual({ cpu: "56", memory: "224Gi" });
  });

  it("keeps each node's reservation inside its share", () => {
    const split = splitHost({ host: rl("cpu=64,memory=256Gi"), kubelets: 8, reservedPerNode: rl("cpu=500m,memory=1Gi") });
    expect(resourceListStrings(split.effective)).toEqual({ cpu: "7500m", memory: "31Gi" });
    expect(resourceListStrings(split.balloon)).toEqual({ cpu: "56", memory: "224Gi" });
    expect(split.resources.map((r) => r.unused.toString())).toEqual(["0", "0"]);
  });

  it("uses a reported allocatable when given, and rounds shares down", () => {
    const split = splitHost({ host: rl("cpu=10,memory=10Gi"), kubelets: 3, allocatable: rl("cpu=9,memory=9Gi") });
    expect(resourceListStrings(split.effective)).toEqual({ cpu: "3333m", memory: "3413Mi" });
    expect(resourceListStrings(split.balloon)).toEqual({ cpu: "5667m", memory: "5803Mi" });
  });

  it("refuses an allocatable above the host, which no kubelet can offer", () => {
    expect(() => splitHost({ host: rl("cpu=8,memory=32Gi"), kubelets: 2, allocatable: rl("cpu=16") })).toThrow(
      /allocatable cpu 16 exceeds the host's 8/,
    );
  });

  it("keeps every balloon at least at the floor (defaults for resources the floor does not name), so none is BestEffort", () => {
    const one = splitHost({ host: rl("cpu=8,memory=32Gi"), kubelets: 1 });
    expect(resourceListStrings(one.balloon)).toEqual({ cpu: "1m", memory: "1Mi" });
    expect(resourceListStrings(one.effective)).toEqual({ cpu: "7999m", memory: "32767Mi" });
    const custom = splitHost({ host: rl("cpu=8,memory=32Gi"), kubelets: 1, floor: rl("cpu=100m") });
    expect(resourceListStrings(custom.balloon)).toEqual({ cpu: "100m", memory: "1Mi" });
    expect(() => splitHost({ host: rl("cpu=8"), kubelets: 1, floor: rl("cpu=9") })).toThrow(/floor for cpu \(9\) exceeds allocatable 8/);
  });

  it("refuses a host too small for its kubelets, and bad counts", () => {
    expect(() => splitHost({ host: rl("cpu=2"), kubelets: 8, reservedPerNode: rl("cpu=500m") })).toThrow(
      /does not cover the 500m each node reserves/,
    );
    expect(() => splitHost({ host: rl("cpu=2"), kubelets: 0 })).toThrow(/positive integer/);
    expect(() => splitHost({ host: rl("cpu=2"), kubelets: 1.5 })).toThrow(/positive integer/);
    expect(() => splitHost({ host: rl("pods=110"), kubelets: 2 })).toThrow(/only change cpu and memory/);
  });

  it("never oversubscribes the host: N × (effective + reserved) ≤ host, and refuses exactly when a share cannot cover the reservation", () => {
    const NANO = 1_000_000_000n;
    const MI = 1n << 20n;
    let splits = 0;
    let refusals = 0;
    fc.assert(
      fc.property(
        fc.bigInt({ min: NANO, max: 512n * NANO }),
        fc.bigInt({ min: 1n << 30n, max: 1n << 42n }),
        fc.integer({ min: 1, max: 64 }),
        // Up to 1.5× a share, so both outcomes (split and refusal) are exercised.
        fc.bigInt({ min: 0n, max: 1500n }),
        (cpuNanos, memoryBytes, kubelets, reservedPerMille) => {
          const count = BigInt(kubelets);
          const reservedCpu = (cpuNanos * reservedPerMille) / 1000n / count;
          const reservedMemory = (memoryBytes * reservedPerMille) / 1000n / count;
          const host = { cpu: Quantity.fromNanos(cpuNanos), memory: Quantity.of(memoryBytes, "BinarySI") };
          const reserved = { cpu: Quantity.fromNanos(reservedCpu), memory: Quantity.of(reservedMemory, "BinarySI") };
          // Independent oracle: a share is host / N rounded down to the default step (1m, 1Mi).
          const cpuShare = (cpuNanos / count / 1_000_000n) * 1_000_000n;
          const memoryShare = (memoryBytes / count / MI) * MI;
          const mustRefuse = cpuShare <= reservedCpu || memoryShare <= reservedMemory;
          let split;
          try {
            split = splitHost({ host, kubelets, reservedPerNode: reserved });
          } catch (error) {
            expect(isBalloonError(error) && error.code).toBe("invalid-argument");
            expect((error as Error).message).toMatch(/does not cover the \S+ each node reserves/);
            expect(mustRefuse).toBe(true);
            refusals++;
            return;
          }
          expect(mustRefuse).toBe(false);
          splits++;
          for (const r of split.resources) {
            const name = r.resource as "cpu" | "memory";
            const used = r.effective.add(reserved[name]).mul(count);
            expect(used.cmp(host[name])).toBeLessThanOrEqual(0);
            expect(r.balloon.sign()).toBeGreaterThanOrEqual(0);
            expect(r.balloon.cmp(r.allocatable)).toBeLessThanOrEqual(0);
            expect(r.unused.sign()).toBeGreaterThanOrEqual(0);
          }
        },
      ),
      { numRuns: 300 },
    );
    // Both branches ran, so neither assertion block is vacuous.
    expect(splits).toBeGreaterThan(50);
    expect(refusals).toBeGreaterThan(10);
  });
});
