import type { Pod } from "../resources/pods.js";
import { isTolerated, tolerationsOf, toleratesTaint, type Taint, type Toleration } from "../scheduler/taint-toleration.js";

/**
 * What the taint eviction controller does with a pod on a node with these taints
 * (processPodOnNode): nothing when there is no NoExecute taint; evict at once when one is not
 * tolerated; otherwise evict after the shortest `tolerationSeconds` among the tolerations used
 * (0 or less: at once), or never when none of them has a limit.
 */
export function evictionDelayMs(pod: Pod, taints: readonly Taint[]): number | undefined {
  const noExecute = taints.filter((t) => t.effect === "NoExecute");
  if (noExecute.length === 0) return undefined;
  const tolerations = tolerationsOf(pod);
  if (noExecute.some((taint) => !isTolerated(taint, tolerations))) return 0;
  // getMatchingTolerations: every toleration that tolerates one of the taints.
  const used = tolerations.filter((t: Toleration) => noExecute.some((taint) => toleratesTaint(t, taint)));
  let shortest: number | undefined;
  for (const toleration of used) {
    const seconds = toleration.tolerationSeconds;
    if (seconds === undefined || seconds === null) continue;
    if (seconds <= 0) return 0;
    shortest = shortest === undefined ? seconds : Math.min(shortest, seconds);
  }
  return shortest === undefined ? undefined : shortest * 1000;
}
