import { BalloonError } from "./errors.js";
import type { Quantity } from "./quantity.js";
import { amountOf, type ResourceList } from "./resource-list.js";
import { granularityFor, requireNonNegative, requireResizable } from "./sizing-rules.js";

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

  const resources: ResourceSplit[] = [];
  const balloon: Record<string, Quantity> = {};
  const effective: Record<string, Quantity> = {};
  for (const [name, host] of Object.entries(input.host)) {
    requireResizable(name, "host");
    const step = granularityFor(name, input.granularity);
    const reserved = amountOf(input.reservedPerNode ?? {}, name);
    const allocatable = input.allocatable?.[name] ?? host.sub(reserved);
    const share = host.divFloor(count).floorTo(step);
    const budget = share.sub(reserved);
    if (budget.sign() <= 0 || allocatable.sign() <= 0) {
      throw new BalloonError(
        "invalid-argument",
        `host ${name} ${host.toString()} split ${count} ways gives ${share.toString()} per node, which does not cover the ${reserved.toString()} each node reserves`,
      );
    }
    // The balloon is rounded up so a node never offers more than its budget.
    const nodeBalloon = allocatable.sub(budget.min(allocatable)).ceilTo(step).min(allocatable);
    const nodeEffective = allocatable.sub(nodeBalloon);
    const unused = host.sub(nodeEffective.add(reserved).mul(count));
    resources.push({ resource: name, share, effective: nodeEffective, balloon: nodeBalloon, allocatable, unused });
    balloon[name] = nodeBalloon;
    effective[name] = nodeEffective;
  }
  return { kubelets: count, balloon, effective, resources };
}
