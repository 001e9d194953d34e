import type { V1Node, V1Pod } from "@kubernetes/client-node";
import { BalloonError } from "./errors.js";
import { BALLOON_CONTAINER } from "./names.js";
import { nodeResources } from "./objects.js";
import { isBalloonPod, isPodActive, podRequests } from "./pods.js";
import { resourceList, subtractResourceLists, type ResourceList } from "./resource-list.js";
import { planResize, type ResizePlan } from "./sizing.js";

export interface PlanNodeResizeInput {
  readonly node: V1Node;
  /** Pods as listed from the cluster (or a file); those bound to other nodes are ignored. */
  readonly pods: readonly V1Pod[];
  readonly target: ResourceList;
  readonly floor?: ResourceList;
  readonly granularity?: ResourceList;
}

/** A plan for one node, with the balloon pod it applies to. */
export type NodeResizePlan = ResizePlan & { readonly node: string; readonly balloonPod: string };

/**
 * `planResize` from live objects: finds the node's balloon pod (by the well-known label), takes
 * the `balloon` container's requests as B, and counts everything else on the node (other active
 * pods, and the balloon pod's own overhead) as O.
 */
export function planNodeResize(input: PlanNodeResizeInput): NodeResizePlan {
  const nodeName = input.node.metadata?.name;
  if (!nodeName) throw new BalloonError("invalid-input", "the node has no metadata.name");
  const onNode = input.pods.filter((pod) => pod.spec?.nodeName === nodeName && isPodActive(pod));
  const balloons = onNode.filter(isBalloonPod);
  if (balloons.length !== 1) {
    throw new BalloonError(
      "invalid-input",
      balloons.length === 0 ? `node ${nodeName} has no running balloon pod` : `node ${nodeName} has ${balloons.length} balloon pods; expected one`,
    );
  }
  const balloonPod = balloons[0] as V1Pod;
  const container = balloonPod.spec?.containers.find((c) => c.name === BALLOON_CONTAINER);
  if (!container) {
    throw new BalloonError("invalid-input", `balloon pod ${balloonPod.metadata?.name ?? "?"} has no container named ${BALLOON_CONTAINER}`);
  }
  const balloonContainer = resourceList(container.resources?.requests ?? {}, "balloon container requests");
  // Whatever the balloon pod holds besides the resizable container (overhead, other containers) stays put.
  const balloonRest = subtractResourceLists(podRequests(balloonPod), balloonContainer);
  const others = onNode.filter((pod) => pod !== balloonPod).map(podRequests);
  const plan = planResize({
    node: nodeResources(input.node),
    pods: [...others, balloonRest],
    balloon: balloonContainer,
    target: input.target,
    ...(input.floor ? { floor: input.floor } : {}),
    ...(input.granularity ? { granularity: input.granularity } : {}),
  });
  return { ...plan, node: nodeName, balloonPod: balloonPod.metadata?.name ?? "?" };
}
