/**
 * The well-known names this package puts on balloon objects. KEP-5620 leaves the key open
 * ("a well-known label", to be settled with sig-instrumentation); these live under a domain the
 * project owns so they never collide with a future upstream `*.k8s.io` key.
 */

/** Pod label marking a balloon: its requests are capacity that does not exist, not workload usage. */
export const BALLOON_LABEL = "balloon.kubekit.dev/balloon";
/** The value of `BALLOON_LABEL` on balloon pods. Select them with `balloon.kubekit.dev/balloon=true`. */
export const BALLOON_LABEL_VALUE = "true";

/** Pod annotation spelling out what the requests mean, for tools that read annotations (KEP-5620 Proposal). */
export const BALLOON_CAPACITY_ANNOTATION = "balloon.kubekit.dev/requests-are";
/** The value of `BALLOON_CAPACITY_ANNOTATION`: the requested resources are absent from the node. */
export const BALLOON_CAPACITY_ANNOTATION_VALUE = "nonexistent-capacity";

/**
 * Node annotation holding the node's target effective size (`cpu=4,memory=16Gi`), so a balloon
 * recreated by the DaemonSet at its tiny template size can be resized back to it.
 */
export const NODE_TARGET_ANNOTATION = "balloon.kubekit.dev/target";

/**
 * Node annotation publishing the node's effective size (`cpu=4,memory=16Gi`): allocatable minus the
 * balloon pod as the kubelet holds it, what pods can actually request. Autoscalers and dashboards
 * read it instead of `status.allocatable`, which still shows the whole machine.
 */
export const NODE_EFFECTIVE_ANNOTATION = "balloon.kubekit.dev/effective";

/** Default object names; the PriorityClass cannot start with `system-`, which is reserved. */
export const DEFAULT_NAME = "node-balloon";
export const DEFAULT_NAMESPACE = "kube-system";
/** The container whose requests are the balloon. */
export const BALLOON_CONTAINER = "balloon";
/** The highest value a user-defined PriorityClass may have; critical (≥ 2e9) would make the kubelet evict for it. */
export const BALLOON_PRIORITY = 1_000_000_000;
