import type { Container, Node, Pod } from "@kubekit/client";
import { podQOSClass } from "./pods.js";
import { resourceList } from "./resource-list.js";

/** Why a memory resize of the balloon may be Infeasible on this node. */
export interface SwapRisk {
  /** `status.nodeInfo.swap.capacity` in bytes. */
  readonly swapBytes: number;
  readonly message: string;
}

/**
 * The kubelet marks a memory resize of a swap-capable container Infeasible ("In-place resize of
 * containers with swap is not supported"). Under `memorySwap.swapBehavior: LimitedSwap` a
 * container may swap when its pod is Burstable and it has a memory request or limit that differ
 * (upstream's `GetContainerSwapBehavior`). The swap behaviour itself is kubelet configuration and not
 * in the API, so a node that reports swap is a risk, not a certainty. A balloon whose memory limit
 * equals its memory request never swaps.
 */
export function swapRisk(node: Node, pod: Pod, container: Container): SwapRisk | undefined {
  const swapBytes = node.status?.nodeInfo?.swap?.capacity ?? 0;
  if (swapBytes <= 0) return undefined;
  if (podQOSClass(pod) !== "Burstable") return undefined;
  const requests = resourceList(container.resources?.requests ?? {}, "balloon requests");
  const limits = resourceList(container.resources?.limits ?? {}, "balloon limits");
  const request = requests.memory ?? limits.memory;
  if (!request || request.isZero()) return undefined;
  if (limits.memory?.equals(request)) return undefined;
  return {
    swapBytes,
    message: `node ${node.metadata?.name ?? "?"} reports ${swapBytes} bytes of swap: if its kubelet runs LimitedSwap, a memory resize of the Burstable balloon is Infeasible; give the balloon a memory limit equal to its request (balloonManifests({ memoryLimit: true })) so it never swaps`,
  };
}
