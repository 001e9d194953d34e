import type { Node, Pod } from "@kubekit/client";
import { BalloonError } from "./errors.js";
import { BALLOON_CONTAINER } from "./names.js";
import { nodeResources } from "./objects.js";
import { bestEffortBalloon, requireValidTarget } from "./sizing-rules.js";
import { isOwnedBalloonPod, type BalloonOwner } from "./ownership.js";
import { isPodActive, isPodTerminal, podRequests, podResizeState, type PodResizeState } from "./pods.js";
import { amountOf, resourceList, type ResourceList } from "./resource-list.js";
import { planResize, type ResizePlan, type ShortfallPolicy } from "./sizing.js";
import { swapRisk, type SwapRisk } from "./swap.js";

export interface PlanNodeResizeInput {
  readonly node: Node;
  /** Pods as listed from the cluster (or a file); those bound to other nodes are ignored. */
  readonly pods: readonly Pod[];
  readonly target: ResourceList;
  readonly floor?: ResourceList;
  readonly granularity?: ResourceList;
  readonly onShortfall?: ShortfallPolicy;
  /** Whose balloons to resize (default the `node-balloon` DaemonSet in `kube-system`). */
  readonly owner?: BalloonOwner;
}

/** The balloon pod a plan applies to, as read from the cluster. */
export interface BalloonPodRef {
  readonly namespace: string;
  readonly name: string;
  readonly uid?: string;
  readonly resourceVersion?: string;
}

/** A plan for one node, with the balloon pod it applies to and what the kubelet reports about it. */
export type NodeResizePlan = ResizePlan & {
  readonly node: string;
  readonly balloonPod: string;
  readonly balloonRef: BalloonPodRef;
  /** The balloon's resize conditions before the plan (a Deferred or Infeasible resize already submitted). */
  readonly resizeState: PodResizeState;
  /**
   * Other balloon pods on the node, counted as ordinary pods: one being replaced (terminating)
   * under `OnDelete`, or a surplus one. Only the newest live balloon is resized.
   */
  readonly otherBalloons: readonly string[];
  /** Set when a memory resize of this balloon may be Infeasible because the node has swap. */
  readonly swap?: SwapRisk;
};

function byNewest(a: Pod, b: Pod): number {
  const time = (pod: Pod) => new Date(pod.metadata?.creationTimestamp ?? 0).getTime();
  return time(b) - time(a) || (b.metadata?.name ?? "").localeCompare(a.metadata?.name ?? "");
}

/**
 * The balloon pod to resize on a node: the newest active, non-terminating balloon of `owner`'s
 * DaemonSet bound to it (a DaemonSet replacement is newer than the balloon it replaces). Pods that
 * merely carry the balloon label are ordinary pods.
 */
export function nodeBalloon(pods: readonly Pod[], nodeName: string, owner?: BalloonOwner): Pod | undefined {
  return pods.filter((pod) => pod.spec?.nodeName === nodeName && isPodActive(pod) && isOwnedBalloonPod(pod, owner)).sort(byNewest)[0];
}

/** A balloon pod split the way the kubelet holds it. */
export interface BalloonParts {
  /** The `balloon` container's `allocatedResources` (its spec before the kubelet has admitted the pod). */
  readonly allocated: ResourceList;
  /** The `balloon` container's spec. */
  readonly desired: ResourceList;
  /** Everything else the pod holds: RuntimeClass overhead and any other container. */
  readonly fixed: ResourceList;
}

/** Splits a balloon pod into its resizable container (allocated and desired) and the fixed rest. */
export function balloonParts(pod: Pod): BalloonParts {
  const spec = pod.spec;
  const container = spec?.containers.find((c) => c.name === BALLOON_CONTAINER);
  if (!spec || !container) {
    throw new BalloonError("invalid-input", `balloon pod ${pod.metadata?.name ?? "?"} has no container named ${BALLOON_CONTAINER}`);
  }
  const context = `balloon pod ${pod.metadata?.name ?? "?"} container ${container.name}`;
  const desired = resourceList({ ...container.resources?.limits, ...container.resources?.requests }, `${context} requests`);
  const status = pod.status?.containerStatuses?.find((s) => s.name === container.name);
  const allocated = status?.allocatedResources ? resourceList(status.allocatedResources, `${context} allocatedResources`) : desired;
  const rest: Pod = { ...pod, spec: { ...spec, containers: spec.containers.filter((c) => c !== container) } };
  return { allocated, desired, fixed: podRequests(rest) };
}

/**
 * `planResize` from live objects, the way the kubelet will judge the resize: finds the node's
 * balloon pod (the well-known label on a pod of `owner`'s DaemonSet), takes the `balloon` container's allocated requests as B
 * (its spec as the resize already asked for), the rest of the balloon pod (RuntimeClass overhead,
 * other containers) as fixed, and every other active pod on the node at upstream's
 * `determineContainerReqs` size as O. A terminating balloon (an `OnDelete` replacement) still
 * holds its requests and counts as O.
 */
export function planNodeResize(input: PlanNodeResizeInput): NodeResizePlan {
  const nodeName = input.node.metadata?.name;
  if (!nodeName) throw new BalloonError("invalid-input", "the node has no metadata.name");
  // A target no node could meet is the caller's error, whatever the node holds.
  requireValidTarget(input.target);
  const onNode = input.pods.filter((pod) => pod.spec?.nodeName === nodeName && !isPodTerminal(pod));
  const owned = (pod: Pod) => isOwnedBalloonPod(pod, input.owner);
  const balloonPod = nodeBalloon(onNode, nodeName, input.owner);
  if (!balloonPod) {
    const leaving = onNode.some(owned);
    throw new BalloonError(
      "invalid-input",
      leaving
        ? `node ${nodeName} has only a terminating balloon pod; wait for its replacement`
        : `node ${nodeName} has no running balloon pod`,
    );
  }
  const { allocated, desired, fixed } = balloonParts(balloonPod);
  if (!Object.values(allocated).some((amount) => amount.sign() > 0)) {
    // The cluster's state, not the caller's input, is wrong here.
    throw new BalloonError("invalid-input", bestEffortBalloon(`balloon pod ${balloonPod.metadata?.name ?? "?"}`));
  }
  const others = onNode.filter((pod) => pod !== balloonPod);
  const plan = planResize({
    node: nodeResources(input.node),
    pods: others.map(podRequests),
    balloon: allocated,
    balloonDesired: desired,
    // Whatever the balloon pod holds besides the resizable container (overhead, other containers) stays put.
    balloonFixed: fixed,
    target: input.target,
    ...(input.floor ? { floor: input.floor } : {}),
    ...(input.granularity ? { granularity: input.granularity } : {}),
    ...(input.onShortfall ? { onShortfall: input.onShortfall } : {}),
  });
  const memoryChanges = !amountOf(plan.balloon, "memory").equals(amountOf(allocated, "memory"));
  const container = balloonPod.spec?.containers.find((c) => c.name === BALLOON_CONTAINER);
  const swap = memoryChanges && container ? swapRisk(input.node, balloonPod, container) : undefined;
  const metadata = balloonPod.metadata ?? {};
  return {
    ...plan,
    node: nodeName,
    balloonPod: metadata.name ?? "?",
    balloonRef: {
      namespace: metadata.namespace ?? "default",
      name: metadata.name ?? "?",
      ...(metadata.uid ? { uid: metadata.uid } : {}),
      ...(metadata.resourceVersion ? { resourceVersion: metadata.resourceVersion } : {}),
    },
    resizeState: podResizeState(balloonPod),
    otherBalloons: others.filter(owned).map((pod) => pod.metadata?.name ?? "?"),
    ...(swap ? { swap } : {}),
  };
}
