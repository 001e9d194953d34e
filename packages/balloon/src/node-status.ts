import type { KubeClient, Node, Pod } from "@kubekit/client";
import { BALLOON_LABEL, BALLOON_LABEL_VALUE, NODE_TARGET_ANNOTATION } from "./names.js";
import { balloonParts, nodeBalloon } from "./node-plan.js";
import { balloonOwner, type BalloonOwner } from "./ownership.js";
import { podResizeState } from "./pods.js";
import { NODES, PODS } from "./resources.js";
import { pickResources, resourceList, subtractResourceLists, sumResourceLists, type ResourceList } from "./resource-list.js";
import { RESIZABLE_RESOURCES } from "./sizing-rules.js";

/** One node as `balloon status` shows it. */
export interface NodeBalloonStatus {
  readonly node: string;
  /** The Node's labels (zone, instance type, node group), to group nodes as an autoscaler does. */
  readonly labels: Readonly<Record<string, string>>;
  readonly capacity: ResourceList;
  readonly allocatable: ResourceList;
  /** The balloon pod resized on this node, if there is one. */
  readonly balloonPod?: string;
  /** The balloon container's spec. */
  readonly desired: ResourceList;
  /** The balloon container's `allocatedResources` (the spec when the kubelet reports none). */
  readonly allocated: ResourceList;
  /** Allocatable minus the whole balloon pod as allocated (overhead included): what pods can use now. */
  readonly effective: ResourceList;
  /** The node's `balloon.kubekit.dev/target` annotation, as written. */
  readonly target?: string;
  /** `Deferred: …`, `Infeasible: …`, `InProgress`, or empty. */
  readonly resize: string;
}

/** What a node offers with its balloon, from the Node and the balloon pods bound to it. */
export function nodeBalloonStatus(node: Node, pods: readonly Pod[], owner?: BalloonOwner): NodeBalloonStatus {
  const name = node.metadata?.name ?? "?";
  const capacity = pickResources(resourceList(node.status?.capacity ?? {}, `node ${name} capacity`), RESIZABLE_RESOURCES);
  const allocatable = pickResources(resourceList(node.status?.allocatable ?? {}, `node ${name} allocatable`), RESIZABLE_RESOURCES);
  const target = node.metadata?.annotations?.[NODE_TARGET_ANNOTATION];
  const labels = { ...(node.metadata?.labels ?? {}) };
  const balloon = nodeBalloon(pods, name, owner);
  if (!balloon) {
    return {
      node: name,
      labels,
      capacity,
      allocatable,
      desired: {},
      allocated: {},
      effective: allocatable,
      ...(target ? { target } : {}),
      resize: "",
    };
  }
  const { allocated, desired, fixed } = balloonParts(balloon);
  // The whole pod as the kubelet holds it: the allocated container plus overhead and anything else.
  const effective = pickResources(subtractResourceLists(allocatable, sumResourceLists(allocated, fixed)), RESIZABLE_RESOURCES);
  const state = podResizeState(balloon);
  const resize = state.pending
    ? `${state.pending}${state.pendingMessage ? `: ${state.pendingMessage}` : ""}`
    : state.inProgress
      ? `InProgress${state.inProgressError ? `: ${state.inProgressError}` : ""}`
      : "";
  return {
    node: name,
    labels,
    capacity,
    allocatable,
    balloonPod: balloon.metadata?.name ?? "?",
    desired,
    allocated,
    effective,
    ...(target ? { target } : {}),
    resize,
  };
}

/** Reads every Node and `owner`'s balloon pods (in its namespace, by the well-known label) and reports each node. */
export async function readNodeBalloonStatus(client: KubeClient, owner?: BalloonOwner): Promise<NodeBalloonStatus[]> {
  const nodes = await client.list<Node>(NODES);
  const balloons = await client.list<Pod>(PODS, balloonOwner(owner).namespace, {
    labelSelector: `${BALLOON_LABEL}=${BALLOON_LABEL_VALUE}`,
  });
  return nodes.items.map((node) => nodeBalloonStatus(node, balloons.items, owner)).sort((a, b) => a.node.localeCompare(b.node));
}
