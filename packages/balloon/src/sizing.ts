import { BalloonError } from "./errors.js";
import { Quantity } from "./quantity.js";
import { amountOf, sumResourceLists, type ResourceList } from "./resource-list.js";
import { DEFAULT_FLOOR, granularityFor, requireNonNegative, requireResizable } from "./sizing-rules.js";

/** A node's sizes as reported in `status.capacity` and `status.allocatable`. */
export interface NodeResources {
  /** Optional; when given, allocatable must not exceed it. */
  readonly capacity?: ResourceList;
  /** A: what the kubelet lets pods request (capacity minus system and kube reservations). */
  readonly allocatable: ResourceList;
}

export interface PlanResizeInput {
  readonly node: NodeResources;
  /** O: the requests of every other active pod on the node (see `podRequests`); not the balloon's. */
  readonly pods: readonly ResourceList[];
  /** B: the balloon pod's current requests. */
  readonly balloon: ResourceList;
  /** T: the effective node size wanted, per resource (cpu and/or memory). */
  readonly target: ResourceList;
  /** Smallest balloon allowed per resource; defaults to `DEFAULT_FLOOR` (1m cpu, 1Mi memory). */
  readonly floor?: ResourceList;
  /** Rounding step per resource; defaults to `DEFAULT_GRANULARITY` (1m cpu, 1Mi memory). */
  readonly granularity?: ResourceList;
}

/** In KEP-5620 terms: upsizing the balloon shrinks the node, downsizing it grows the node. */
export type ResizeDirection = "shrink-node" | "grow-node" | "unchanged";

/** The plan for one resource. */
export interface ResourceResize {
  readonly resource: string;
  /** T, as asked. */
  readonly target: Quantity;
  /** B before. */
  readonly current: Quantity;
  /** B after (when accepted): A − T rounded up to the granularity, then kept within [floor, A]. */
  readonly planned: Quantity;
  /** A − planned: what pods will be able to request. At most the target unless `limitedBy` is "floor". */
  readonly effective: Quantity;
  readonly direction: ResizeDirection;
  /** Set when the balloon could not follow the target exactly. */
  readonly limitedBy?: "floor" | "allocatable";
}

/** Why a resource's balloon cannot grow to the planned size. */
export interface ResizeRefusal {
  readonly resource: string;
  /** The balloon size the target needs. */
  readonly requested: Quantity;
  /** A − O: the most the balloon may request without displacing a running pod. */
  readonly room: Quantity;
  /** O: what the other pods request. */
  readonly otherPods: Quantity;
  readonly allocatable: Quantity;
}

interface PlanBase {
  readonly resources: readonly ResourceResize[];
  /** Human-readable summary, suitable for logs and events. */
  readonly message: string;
}

/**
 * The decision. `resize` and `unchanged` carry the balloon's full new requests (resources the
 * target does not mention are kept). `refused` leaves the balloon as it is: a resize is atomic,
 * so one resource that cannot fit refuses the whole plan, exactly as the kubelet would defer it.
 */
export type ResizePlan =
  | (PlanBase & { readonly decision: "resize" | "unchanged"; readonly balloon: ResourceList; readonly effective: ResourceList })
  | (PlanBase & { readonly decision: "refused"; readonly balloon: ResourceList; readonly refusals: readonly ResizeRefusal[] });

/** E = A − B: the node size pods can actually use, for every resource in allocatable. */
export function effectiveNodeSize(allocatable: ResourceList, balloon: ResourceList): ResourceList {
  const result: Record<string, Quantity> = {};
  for (const [name, amount] of Object.entries(allocatable)) result[name] = amount.sub(amountOf(balloon, name));
  return result;
}

function validate(input: PlanResizeInput): void {
  const { node, target, floor, balloon, pods } = input;
  requireNonNegative(node.allocatable, "allocatable");
  requireNonNegative(node.capacity, "capacity");
  requireNonNegative(balloon, "balloon request");
  requireNonNegative(target, "target");
  requireNonNegative(floor, "floor");
  pods.forEach((pod, index) => requireNonNegative(pod, `pod ${index} request`));
  if (node.capacity) {
    for (const [name, amount] of Object.entries(node.allocatable)) {
      const capacity = node.capacity[name];
      if (capacity && amount.cmp(capacity) > 0) {
        throw new BalloonError(
          "invalid-argument",
          `allocatable ${name} ${amount.toString()} exceeds capacity ${capacity.toString()}`,
        );
      }
    }
  }
  for (const name of Object.keys(target)) {
    requireResizable(name, "target");
    if (!node.allocatable[name]) {
      throw new BalloonError("invalid-argument", `target names ${name}, which the node's allocatable does not list`);
    }
  }
}

function planResource(name: string, input: PlanResizeInput): ResourceResize {
  const allocatable = amountOf(input.node.allocatable, name);
  const target = amountOf(input.target, name);
  const current = amountOf(input.balloon, name);
  const step = granularityFor(name, input.granularity);
  const floor = amountOf(input.floor ?? DEFAULT_FLOOR, name).ceilTo(step);
  if (floor.cmp(allocatable) > 0) {
    throw new BalloonError(
      "invalid-argument",
      `the balloon floor for ${name} (${floor.toString()}) exceeds allocatable ${allocatable.toString()}`,
    );
  }
  // Print in the step's family when it is binary (1Mi → "6Gi"), else in allocatable's.
  const format = step.format === "BinarySI" ? "BinarySI" : allocatable.format;
  // Round the balloon up, so the node never offers more than the target.
  let planned = allocatable.sub(target).ceilTo(step).withFormat(format);
  let limitedBy: ResourceResize["limitedBy"];
  if (planned.cmp(floor) < 0) {
    planned = floor.withFormat(format);
    limitedBy = "floor";
  } else if (planned.cmp(allocatable) > 0) {
    planned = allocatable;
    limitedBy = "allocatable";
  }
  const order = planned.cmp(current);
  const direction: ResizeDirection = order > 0 ? "shrink-node" : order < 0 ? "grow-node" : "unchanged";
  const base = { resource: name, target, current, planned, effective: allocatable.sub(planned), direction };
  return limitedBy ? { ...base, limitedBy } : base;
}

function describe(resource: ResourceResize): string {
  const verb = resource.direction === "unchanged" ? "keep" : resource.direction === "shrink-node" ? "grow balloon" : "shrink balloon";
  const limit = resource.limitedBy ? ` (limited by ${resource.limitedBy})` : "";
  return `${resource.resource}: ${verb} ${resource.current.toString()} → ${resource.planned.toString()}, node offers ${resource.effective.toString()} for target ${resource.target.toString()}${limit}`;
}

/**
 * Decides the balloon's new requests for a target effective node size (KEP-5620).
 *
 * For each resource r of the target: B_new = A − T, rounded up to the granularity and kept
 * within [floor, A]. Shrinking the balloon (growing the node) always succeeds. Growing it
 * (shrinking the node) must fit beside every other pod, O + B_new ≤ A, because a balloon never
 * displaces a running pod; otherwise the plan is refused, naming each resource that does not fit.
 * Throws when the balloon would end with no request above zero (only possible with a zero floor).
 */
export function planResize(input: PlanResizeInput): ResizePlan {
  validate(input);
  const others = sumResourceLists(...input.pods);
  const resources = Object.keys(input.target).map((name) => planResource(name, input));

  const refusals: ResizeRefusal[] = [];
  for (const resource of resources) {
    if (resource.direction !== "shrink-node") continue;
    const allocatable = amountOf(input.node.allocatable, resource.resource);
    const otherPods = amountOf(others, resource.resource);
    const room = allocatable.sub(otherPods);
    if (resource.planned.cmp(room) > 0) {
      refusals.push({ resource: resource.resource, requested: resource.planned, room, otherPods, allocatable });
    }
  }

  if (refusals.length > 0) {
    const details = refusals.map(
      (r) =>
        `${r.resource}: the balloon needs ${r.requested.toString()} but other pods request ${r.otherPods.toString()} of ${r.allocatable.toString()} allocatable, leaving ${r.room.toString()}`,
    );
    return {
      decision: "refused",
      balloon: input.balloon,
      resources,
      refusals,
      message: `refused: the target does not fit beside running pods; ${details.join("; ")}`,
    };
  }

  const changed: Record<string, Quantity> = {};
  for (const resource of resources) changed[resource.resource] = resource.planned;
  const balloon = { ...input.balloon, ...changed };
  if (!Object.values(balloon).some((amount) => amount.sign() > 0)) {
    // With no request above zero the pod would turn BestEffort, and a resize may not change QoS.
    throw new BalloonError(
      "invalid-argument",
      "the plan would leave the balloon with no request above zero (BestEffort), which in-place resize rejects; keep a floor above zero",
    );
  }
  const decision = resources.some((r) => r.direction !== "unchanged") ? "resize" : "unchanged";
  return {
    decision,
    balloon,
    effective: effectiveNodeSize(input.node.allocatable, balloon),
    resources,
    message: `${decision}: ${resources.map(describe).join("; ")}`,
  };
}
