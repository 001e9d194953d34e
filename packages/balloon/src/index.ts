export { VERSION } from "./version.js";
export { BalloonError, isBalloonError, type BalloonErrorCode } from "./errors.js";
export { Quantity, QuantityError, type QuantityErrorCode } from "@kubekit/apimachinery";
export { MAX_EXPONENT, type QuantityFormat } from "@kubekit/apimachinery";
export {
  amountOf,
  clampResourceList,
  fits,
  formatResourceList,
  isResourceName,
  maxResourceLists,
  parseResourceList,
  pickResources,
  resourceList,
  resourceListStrings,
  resourceListsEqual,
  shortfalls,
  subtractResourceLists,
  sumResourceLists,
  type ResourceList,
  type ResourceListInput,
  type Shortfall,
} from "./resource-list.js";
export {
  effectiveNodeSize,
  planResize,
  type NodeResources,
  type PlanResizeInput,
  type ResizeDirection,
  type ResizePlan,
  type ResizeRefusal,
  type ResourceResize,
  type ShortfallPolicy,
} from "./sizing.js";
export { DEFAULT_FLOOR, DEFAULT_GRANULARITY, RESIZABLE_RESOURCES } from "./sizing-rules.js";
export { splitHost, type HostSplit, type ResourceSplit, type SplitHostInput } from "./split-host.js";
export {
  isBalloonPod,
  isPodActive,
  isPodTerminal,
  isPodTerminating,
  podQOSClass,
  podRequests,
  podResizeState,
  type PodResizeState,
} from "./pods.js";
export { balloonOwner, isOwnedBalloonPod, type BalloonOwner } from "./ownership.js";
export { swapRisk, type SwapRisk } from "./swap.js";
export {
  BALLOON_CAPACITY_ANNOTATION,
  BALLOON_CAPACITY_ANNOTATION_VALUE,
  BALLOON_CONTAINER,
  BALLOON_LABEL,
  BALLOON_LABEL_VALUE,
  BALLOON_PRIORITY,
  DEFAULT_NAME,
  DEFAULT_NAMESPACE,
  NODE_EFFECTIVE_ANNOTATION,
  NODE_TARGET_ANNOTATION,
} from "./names.js";
export {
  balloonManifests,
  DEFAULT_IMAGE,
  manifestList,
  manifestsToYaml,
  type BalloonManifestOptions,
  type BalloonManifests,
} from "./manifests.js";
export { nodeResources, nodesOf, parseObjectsYaml, podsOf } from "./objects.js";
export {
  balloonParts,
  nodeBalloon,
  planNodeResize,
  type BalloonParts,
  type BalloonPodRef,
  type NodeResizePlan,
  type PlanNodeResizeInput,
} from "./node-plan.js";
export { formatPlanText, formatSplitText, formatStatusText } from "./plan-format.js";
export { balloonResizePatch, resizeNode, type ResizeNodeOptions, type ResizeResult } from "./resize-client.js";
export { resizeProgress, type ResizeProgress } from "./resize-progress.js";
export { mergedTarget, recordNodeTarget, restoreNodeTarget, type RecordedTarget } from "./node-target.js";
export { nodeBalloonStatus, readNodeBalloonStatus, type NodeBalloonStatus } from "./node-status.js";
