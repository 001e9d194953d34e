import type { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { importControllerManagerFlags, type ControllerManagerFlags } from "./controller-manager-flags.js";
import { importNodePodCIDRs } from "./node-pod-cidrs.js";
import type { ImportResult, ObservedRange, ObservedUse } from "./observed.js";
import { importServiceCIDRs } from "./service-cidrs.js";

export { controllerManagerFlagsFromArgs, importControllerManagerFlags, type ControllerManagerFlags } from "./controller-manager-flags.js";
export { importNodePodCIDRs } from "./node-pod-cidrs.js";
export { importServiceCIDRs, SERVICE_CIDR_GROUP } from "./service-cidrs.js";
export type { ImportResult, ObservedRange, ObservedSource, ObservedUse } from "./observed.js";

/** The address space a cluster is seen to use, from every importer. */
export interface ObservedSpace {
  ranges: ObservedRange[];
  /**
   * The uses some source was read for: a use counts once a range of it was observed or its flag
   * was given. Claims of other uses cannot be called unused.
   */
  observedUses: ObservedUse[];
  /** Sources that could not be read, and why. */
  skipped: string[];
  /** Values that are not CIDRs. */
  problems: string[];
}

/** Reads ServiceCIDRs, node pod CIDRs and the given kube-controller-manager flags. */
export async function importObservedSpace(client: KubeClient, flags: ControllerManagerFlags = {}): Promise<ObservedSpace> {
  const results: ImportResult[] = [await importServiceCIDRs(client), await importNodePodCIDRs(client), importControllerManagerFlags(flags)];
  const ranges = results.flatMap((r) => r.ranges);
  const uses = new Set<ObservedUse>(ranges.map((r) => r.use));
  if (flags.clusterCIDR !== undefined) uses.add("pods");
  if (flags.serviceClusterIPRange !== undefined) uses.add("services");
  return {
    ranges,
    observedUses: (["services", "pods"] as const).filter((u) => uses.has(u)),
    skipped: results.flatMap((r) => (r.skipped === undefined ? [] : [r.skipped])),
    problems: results.flatMap((r) => r.problems),
  };
}
