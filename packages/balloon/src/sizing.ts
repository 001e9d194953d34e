import { BalloonError } from "./errors.js";
import { Quantity } from "@kubekit/apimachinery";
import { amountOf, resourceListsEqual, sumResourceLists, type ResourceList } from "./resource-list.js";
import {
  bestEffortBalloon,
  floorWithDefaults,
  granularityFor,
  requireNonNegative,
  requireSensibleUnits,
  requireValidTarget,
} from "./sizing-rules.js";

/** A node's sizes as reported in `status.capacity` and `status.allocatable`. */
export interface NodeResources {
  /** Optional; when given, allocatable must not exceed it. */
  readonly capacity?: ResourceList;
  /** A: what the kubelet lets pods request (capacity minus system and kube reservations). */
  readonly allocatable: ResourceList;
}

/**
 * What to do when growing the balloon (shrinking the node) does not fit beside the running pods.
 *
 * - `refuse` (default): plan nothing; the reclaim was wrong, as KEP-5620 puts it.
 * - `defer`: submit the full size anyway. The kubelet keeps it `PodResizePending=Deferred` and
 *   applies it once pods leave, while the scheduler already counts the desired size, so no new pod
 *   takes the space: the node drains by reservation.
 * - `partial`: grow the balloon only as far as the room there is now.
 */
export type ShortfallPolicy = "refuse" | "defer" | "partial";

export interface PlanResizeInput {
  readonly node: NodeResources;
  /** O: the requests of every other active pod on the node (see `podRequests`); not the balloon's. */
  readonly pods: readonly ResourceList[];
  /**
   * B: the balloon container's requests as the kubelet holds them, i.e. its `allocatedResources`
   * while a resize is in flight (the kubelet compares a new size against these, not the spec).
   */
  readonly balloon: ResourceList;
  /**
   * The balloon container's requests in the spec when they differ from `balloon` (a resize
   * submitted but not yet allocated). Defaults to `balloon`.
   */
  readonly balloonDesired?: ResourceList;
  /**
   * What the balloon pod holds besides the resized container: RuntimeClass overhead and any other
   * container. It stays put, so the container gets A − fixed − T and can grow to at most A − fixed.
   */
  readonly balloonFixed?: ResourceList;
  /** T: the effective node size wanted, per resource (cpu and/or memory). */
  readonly target: ResourceList;
  /** Smallest balloon allowed per resource; resources it does not name keep `DEFAULT_FLOOR` (1m cpu, 1Mi memory). */
  readonly floor?: ResourceList;
  /** Rounding step per resource; defaults to `DEFAULT_GRANULARITY` (1m cpu, 1Mi memory). */
  readonly granularity?: ResourceList;
  /** What to do when the balloon cannot grow beside the running pods (default `refuse`). */
  readonly onShortfall?: ShortfallPolicy;
}

/** In KEP-5620 terms: upsizing the balloon shrinks the node, downsizing it grows the node. */
export type ResizeDirection = "shrink-node" | "grow-node" | "unchanged";

/** The plan for one resource. */
export interface ResourceResize {
  readonly resource: string;
  /** T, as asked. */
  readonly target: Quantity;
  /** B before, as the kubelet holds it (allocated). */
  readonly current: Quantity;
  /** The balloon's size in the spec before the plan (differs from `current` while a resize is in flight). */
  readonly desired: Quantity;
  /**
   * B after (when accepted): A − fixed − T rounded up to the granularity, then kept within
   * [floor, A − fixed], and within the room when `onShortfall` is `partial`.
   */
  readonly planned: Quantity;
  /** A − fixed − planned: what pods will be able to request. At most the target unless `limitedBy` is "floor" or "room". */
  readonly effective: Quantity;
  /** Relative to `current`, as the kubelet sees the resize. */
  readonly direction: ResizeDirection;
  /** Set when the balloon could not follow the target exactly. */
  readonly limitedBy?: "floor" | "allocatable" | "room";
}

/** Why a resource's balloon cannot grow to the planned size now. */
export interface ResizeRefusal {
  readonly resource: string;
  /** The balloon size the target needs. */
  readonly requested: Quantity;
  /** A − O − fixed: the most the balloon may request without displacing a running pod. */
  readonly room: Quantity;
  /** O: what the other pods request (with the balloon pod's fixed part). */
  readonly otherPods: Quantity;
  readonly allocatable: Quantity;
}

interface PlanBase {
  readonly resources: readonly ResourceResize[];
  /** Human-readable summary, suitable for logs and events. */
  readonly message: string;
  /** True when the balloon's spec and allocation differ: a resize is already in flight. */
  readonly inFlight: boolean;
}

/**
 * The decision. Every variant carries the balloon container's full requests to hold in the spec
 * (resources the target does not mention are kept):
 *
 * - `resize`: submit `balloon` (it fits now, or it is partial, or it cancels an in-flight resize);
 * - `unchanged`: the spec already holds `balloon`;
 * - `defer`: submit `balloon` although it does not fit now (`onShortfall: "defer"`); `refusals` say why it will wait;
 * - `refused`: leave the spec as it is (`balloon` is the current spec); `refusals` say why. A resize is
 *   atomic, so one resource that cannot fit refuses the whole plan, as the kubelet would defer it.
 */
export type ResizePlan =
  | (PlanBase & { readonly decision: "resize" | "unchanged"; readonly balloon: ResourceList; readonly effective: ResourceList })
  | (PlanBase & {
      readonly decision: "defer";
      readonly balloon: ResourceList;
      readonly effective: ResourceList;
      readonly refusals: readonly ResizeRefusal[];
    })
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
  requireNonNegative(input.balloonDesired, "balloon desired request");
  requireNonNegative(input.balloonFixed, "balloon fixed request");
  requireValidTarget(target);
  requireNonNegative(floor, "floor");
  requireSensibleUnits(floor, "floor");
  requireSensibleUnits(balloon, "balloon request");
  pods.forEach((pod, index) => requireNonNegative(pod, `pod ${index} request`));
  if (node.capacity) {
    for (const [name, amount] of Object.entries(node.allocatable)) {
      const capacity = node.capacity[name];
      if (capacity && amount.cmp(capacity) > 0) {
        throw new BalloonError("invalid-argument", `allocatable ${name} ${amount.toString()} exceeds capacity ${capacity.toString()}`);
      }
    }
  }
  if (!Object.values(balloon).some((amount) => amount.sign() > 0)) {
    // A pod with no requests is BestEffort, and a resize may not change the QoS class.
    throw new BalloonError("invalid-argument", bestEffortBalloon("the balloon"));
  }
  for (const name of Object.keys(target)) {
    if (!node.allocatable[name]) {
      throw new BalloonError("invalid-argument", `target names ${name}, which the node's allocatable does not list`);
    }
  }
}

function planResource(name: string, input: PlanResizeInput): ResourceResize {
  const allocatable = amountOf(input.node.allocatable, name);
  const fixed = amountOf(input.balloonFixed ?? {}, name);
  // The balloon pod as a whole must fit allocatable, or the kubelet marks the resize Infeasible.
  const ceiling = allocatable.sub(fixed);
  const target = amountOf(input.target, name);
  const current = amountOf(input.balloon, name);
  const desired = amountOf(input.balloonDesired ?? input.balloon, name);
  const step = granularityFor(name, input.granularity);
  const floor = amountOf(floorWithDefaults(input.floor), name).ceilTo(step);
  if (floor.cmp(ceiling) > 0) {
    throw new BalloonError(
      "invalid-argument",
      `the balloon floor for ${name} (${floor.toString()}) exceeds allocatable ${allocatable.toString()}${fixed.isZero() ? "" : ` less the balloon pod's fixed ${fixed.toString()}`}`,
    );
  }
  // Print in the step's family when it is binary (1Mi → "6Gi"), else in allocatable's.
  const format = step.format === "BinarySI" ? "BinarySI" : allocatable.format;
  // Round the balloon up, so the node never offers more than the target.
  let planned = ceiling.sub(target).ceilTo(step).withFormat(format);
  let limitedBy: ResourceResize["limitedBy"];
  if (planned.cmp(floor) < 0) {
    planned = floor.withFormat(format);
    limitedBy = "floor";
  } else if (planned.cmp(ceiling) > 0) {
    planned = ceiling.withFormat(format);
    limitedBy = "allocatable";
  }
  return resourceResize({ resource: name, target, current, desired, planned, ceiling }, limitedBy);
}

function resourceResize(
  r: { resource: string; target: Quantity; current: Quantity; desired: Quantity; planned: Quantity; ceiling: Quantity },
  limitedBy: ResourceResize["limitedBy"],
): ResourceResize {
  const order = r.planned.cmp(r.current);
  const direction: ResizeDirection = order > 0 ? "shrink-node" : order < 0 ? "grow-node" : "unchanged";
  const base = {
    resource: r.resource,
    target: r.target,
    current: r.current,
    desired: r.desired,
    planned: r.planned,
    effective: r.ceiling.sub(r.planned),
    direction,
  };
  return limitedBy ? { ...base, limitedBy } : base;
}

function describe(resource: ResourceResize): string {
  const verb = resource.direction === "unchanged" ? "keep" : resource.direction === "shrink-node" ? "grow balloon" : "shrink balloon";
  const limit = resource.limitedBy ? ` (limited by ${resource.limitedBy})` : "";
  const pending = resource.desired.equals(resource.current) ? "" : ` (spec asks ${resource.desired.toString()}, not yet allocated)`;
  return `${resource.resource}: ${verb} ${resource.current.toString()}${pending} → ${resource.planned.toString()}, node offers ${resource.effective.toString()} for target ${resource.target.toString()}${limit}`;
}

function describeRefusal(r: ResizeRefusal): string {
  return `${r.resource}: the balloon needs ${r.requested.toString()} but other pods request ${r.otherPods.toString()} of ${r.allocatable.toString()} allocatable, leaving ${r.room.toString()}`;
}

/** The room each growing resource lacks, as the kubelet's fit check (O + B_new ≤ A) would find it. */
function refusalsOf(resources: readonly ResourceResize[], input: PlanResizeInput, others: ResourceList): ResizeRefusal[] {
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
  return refusals;
}

/** Each refused resource limited to its room now (never below what the kubelet already holds). */
function partially(resources: readonly ResourceResize[], refusals: readonly ResizeRefusal[], input: PlanResizeInput): ResourceResize[] {
  return resources.map((resource) => {
    const refusal = refusals.find((r) => r.resource === resource.resource);
    if (!refusal) return resource;
    const step = granularityFor(resource.resource, input.granularity);
    const planned = refusal.room.floorTo(step).max(resource.current).withFormat(resource.planned.format);
    const ceiling = resource.effective.add(resource.planned);
    return resourceResize({ ...resource, planned, ceiling }, "room");
  });
}

function newBalloon(input: PlanResizeInput, resources: readonly ResourceResize[]): ResourceList {
  const changed: Record<string, Quantity> = {};
  for (const resource of resources) changed[resource.resource] = resource.planned;
  const balloon = { ...(input.balloonDesired ?? input.balloon), ...changed };
  if (!Object.values(balloon).some((amount) => amount.sign() > 0)) {
    // With no request above zero the pod would turn BestEffort, and a resize may not change QoS.
    throw new BalloonError(
      "invalid-argument",
      "the plan would leave the balloon with no request above zero (BestEffort), which in-place resize rejects; keep a floor above zero",
    );
  }
  return balloon;
}

/**
 * Decides the balloon's new requests for a target effective node size (KEP-5620).
 *
 * For each resource r of the target: B_new = A − fixed − T, rounded up to the granularity and
 * kept within [floor, A − fixed]. The kubelet compares B_new with what it has allocated (B), not
 * with the spec. Shrinking the balloon (growing the node) always succeeds. Growing it (shrinking
 * the node) must fit beside every other pod, O + fixed + B_new ≤ A, because a balloon never
 * displaces a running pod; otherwise `onShortfall` decides (refuse by default, naming each
 * resource that does not fit). Throws when the balloon is or would end BestEffort.
 */
export function planResize(input: PlanResizeInput): ResizePlan {
  validate(input);
  const others = sumResourceLists(...input.pods, input.balloonFixed ?? {});
  const desired = input.balloonDesired ?? input.balloon;
  const inFlight = !resourceListsEqual(desired, input.balloon);
  let resources = Object.keys(input.target).map((name) => planResource(name, input));
  const refusals = refusalsOf(resources, input, others);
  const policy = input.onShortfall ?? "refuse";

  if (refusals.length > 0 && policy === "partial") {
    resources = partially(resources, refusals, input);
  } else if (refusals.length > 0) {
    const details = refusals.map(describeRefusal).join("; ");
    if (policy === "defer") {
      const balloon = newBalloon(input, resources);
      return {
        decision: "defer",
        balloon,
        effective: effectiveNodeSize(input.node.allocatable, sumResourceLists(balloon, input.balloonFixed ?? {})),
        resources,
        refusals,
        inFlight,
        message: `defer: the balloon is submitted at its full size and waits (Deferred) until pods leave; ${details}`,
      };
    }
    return {
      decision: "refused",
      balloon: desired,
      resources,
      refusals,
      inFlight,
      message: `refused: the target does not fit beside running pods; ${details}`,
    };
  }

  const balloon = newBalloon(input, resources);
  const decision = resourceListsEqual(balloon, desired) ? "unchanged" : "resize";
  if (decision === "unchanged" && refusals.length > 0) {
    // partial could not move at all: report the shortfall rather than a silent no-op.
    return {
      decision: "refused",
      balloon: desired,
      resources,
      refusals,
      inFlight,
      message: `refused: no room to grow the balloon at all; ${refusals.map(describeRefusal).join("; ")}`,
    };
  }
  return {
    decision,
    balloon,
    effective: effectiveNodeSize(input.node.allocatable, sumResourceLists(balloon, input.balloonFixed ?? {})),
    resources,
    inFlight,
    message: `${decision}: ${resources.map(describe).join("; ")}`,
  };
}
