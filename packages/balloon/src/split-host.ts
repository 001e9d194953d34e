import { BalloonError } from "./errors.js";
import type { Quantity } from "@kubekit/apimachinery";
import { amountOf, type ResourceList } from "./resource-list.js";
import { floorWithDefaults, granularityFor, requireNonNegative, requireResizable, requireSensibleUnits } from "./sizing-rules.js";

export interface SplitHostInput {
  /** The physical host's resources (cpu and/or memory) that N kubelets share. */
  readonly host: ResourceList;
  /** N: how many kubelets run on the host. */
  readonly kubelets: number | bigint;
  /** What each kubelet node keeps for itself outside pods (system-reserved + kube-reserved + eviction threshold). */
  readonly reservedPerNode?: ResourceList;
  /**
   * What each kubelet reports as allocatable. Every kubelet sees the whole host, so this defaults
   * to host − reservedPerNode.
   */
  readonly allocatable?: ResourceList;
  /** Rounding step per resource; defaults to 1m cpu and 1Mi memory. */
  readonly granularity?: ResourceList;
  /** Smallest balloon per resource; resources it does not name keep `DEFAULT_FLOOR` (1m cpu, 1Mi memory). */
  readonly floor?: ResourceList;
}

/** One resource of the split. */
export interface ResourceSplit {
  readonly resource: string;
  /** host / N, rounded down to the granularity: the slice of the host each node may use in total. */
  readonly share: Quantity;
  /** What each node's pods can request: allocatable − balloon, never more than share − reserved. */
  readonly effective: Quantity;
  /** The balloon request each node needs. */
  readonly balloon: Quantity;
  /** What the kubelets report as allocatable. */
  readonly allocatable: Quantity;
  /** host − N × (effective + reserved): what is left over. */
  readonly unused: Quantity;
}

export interface HostSplit {
  readonly kubelets: bigint;
  /** The balloon requests to give every node. */
  readonly balloon: ResourceList;
  /** Each node's effective size. */
  readonly effective: ResourceList;
  readonly resources: readonly ResourceSplit[];
}

function kubeletCount(kubelets: number | bigint): bigint {
  const count = typeof kubelets === "bigint" ? kubelets : Number.isSafeInteger(kubelets) ? BigInt(kubelets) : 0n;
  if (count < 1n) {
    throw new BalloonError("invalid-argument", `kubelets must be a positive integer, got ${String(kubelets)}`);
  }
  return count;
}

/**
 * Sizes the balloons for KEP-5620's testing story: N kubelets on one host, each capped at 1/N of
 * it, so that together they never oversubscribe the host: N × (effective + reserved) ≤ host.
 */
export function splitHost(input: SplitHostInput): HostSplit {
  const count = kubeletCount(input.kubelets);
  requireNonNegative(input.host, "host");
  requireNonNegative(input.reservedPerNode, "reservedPerNode");
  requireNonNegative(input.allocatable, "allocatable");
  requireNonNegative(input.floor, "floor");
  requireSensibleUnits(input.host, "host");
  requireSensibleUnits(input.reservedPerNode, "reservedPerNode");
  requireSensibleUnits(input.allocatable, "allocatable");
  requireSensibleUnits(input.floor, "floor");
  const floors = floorWithDefaults(input.floor);

  const resources: ResourceSplit[] = [];
  const balloon: Record<string, Quantity> = {};
  const effective: Record<string, Quantity> = {};
  for (const [name, host] of Object.entries(input.host)) {
    requireResizable(name, "host");
    const step = granularityFor(name, input.granularity);
    const reserved = amountOf(input.reservedPerNode ?? {}, name);
    const allocatable = input.allocatable?.[name] ?? host.sub(reserved);
    if (allocatable.cmp(host) > 0) {
      // A kubelet cannot offer more than the machine it runs on.
      throw new BalloonError("invalid-argument", `allocatable ${name} ${allocatable.toString()} exceeds the host's ${host.toString()}`);
    }
    const share = host.divFloor(count).floorTo(step);
    const budget = share.sub(reserved);
    if (budget.sign() <= 0 || allocatable.sign() <= 0) {
      throw new BalloonError(
        "invalid-argument",
        `host ${name} ${host.toString()} split ${count} ways gives ${share.toString()} per node, which does not cover the ${reserved.toString()} each node reserves`,
      );
    }
    const floor = amountOf(floors, name).ceilTo(step);
    if (floor.cmp(allocatable) > 0) {
      throw new BalloonError(
        "invalid-argument",
        `the balloon floor for ${name} (${floor.toString()}) exceeds allocatable ${allocatable.toString()}`,
      );
    }
    // The balloon is rounded up so a node never offers more than its budget, and never below the
    // floor, which keeps it Burstable (a BestEffort balloon can never be resized).
    const nodeBalloon = allocatable.sub(budget.min(allocatable)).ceilTo(step).max(floor).min(allocatable);
    const nodeEffective = allocatable.sub(nodeBalloon);
    const unused = host.sub(nodeEffective.add(reserved).mul(count));
    resources.push({ resource: name, share, effective: nodeEffective, balloon: nodeBalloon, allocatable, unused });
    balloon[name] = nodeBalloon;
    effective[name] = nodeEffective;
  }
  return { kubelets: count, balloon, effective, resources };
}
