import type { KubeObject } from "@kubekit/generic-controlplane";
import { isApiError, isNotFound, type KubeClient } from "@kubekit/generic-controlplane/controllers";
import type { Pod } from "../resources/pods.js";
import { PODS } from "../refs.js";
import { selectorMatches, type LabelSelector } from "../selector.js";
import { controllerRefOf, ownerReferenceTo } from "./util.js";

const MERGE_PATCH = "application/merge-patch+json";

/**
 * `PodControllerRefManager.ClaimPods`: of `pods` (one namespace, active), the ones `owner`
 * controls once it has adopted the orphans its selector matches and released its own pods whose
 * labels no longer match. Each patch carries the pod's resourceVersion, so a pod that changed
 * meanwhile is left for the next sync (which its change brings). A controller being deleted
 * neither adopts nor releases.
 */
export async function claimPods(client: KubeClient, owner: KubeObject & { spec?: { selector?: LabelSelector } }, kind: string, pods: readonly Pod[]): Promise<Pod[]> {
  const uid = owner.metadata?.uid;
  const deleting = owner.metadata?.deletionTimestamp !== undefined;
  const claimed: Pod[] = [];
  const changes: Array<Promise<void>> = [];
  const patchOwners = (pod: Pod, ownerReferences: unknown[], claim: boolean) =>
    changes.push(
      client
        .patch<Pod>(PODS, pod.metadata?.namespace, pod.metadata?.name ?? "", { metadata: { ownerReferences, resourceVersion: pod.metadata?.resourceVersion } }, MERGE_PATCH)
        .then((patched) => {
          if (claim) claimed.push(patched);
        })
        .catch((error: unknown) => {
          if (!(isNotFound(error) || (isApiError(error) && error.code === 409))) throw error;
        }),
    );
  for (const pod of pods) {
    const ref = controllerRefOf(pod);
    const matches = selectorMatches(owner.spec?.selector, pod.metadata?.labels);
    if (ref !== undefined) {
      if (ref.uid !== uid) continue;
      if (matches) claimed.push(pod);
      else if (!deleting) patchOwners(pod, (pod.metadata?.ownerReferences ?? []).filter((r) => r.uid !== uid), false);
      continue;
    }
    if (deleting || !matches || pod.metadata?.deletionTimestamp !== undefined) continue;
    patchOwners(pod, [...(pod.metadata?.ownerReferences ?? []), ownerReferenceTo(owner, "apps/v1", kind)], true);
  }
  await Promise.all(changes);
  return claimed;
}
