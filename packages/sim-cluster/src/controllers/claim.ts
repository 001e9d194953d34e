import type { KubeObject } from "@kubekit/generic-controlplane";
import { isApiError, isNotFound, type KubeClient, type ResourceRef } from "@kubekit/generic-controlplane/controllers";
import { selectorMatches, type LabelSelector } from "../selector.js";
import { controllerRefOf, ownerReferenceTo } from "./util.js";

const MERGE_PATCH = "application/merge-patch+json";

/**
 * `ControllerRefManager.ClaimObject` over `objects` (pods or ReplicaSets of one namespace): the
 * ones `owner` controls once it has adopted the orphans its selector matches and released its
 * own objects whose labels no longer match. Each patch carries the object's resourceVersion, so
 * one that changed meanwhile is left for the next sync (which its change brings). A controller
 * being deleted neither adopts nor releases. `apiVersion` is the owner's (apps/v1 by default);
 * `finalizer` is added to what it adopts (a Job's pods carry its tracking finalizer).
 */
export async function claimObjects<T extends KubeObject>(
  client: KubeClient,
  resource: ResourceRef,
  owner: KubeObject & { spec?: { selector?: LabelSelector } },
  kind: string,
  objects: readonly T[],
  options: { apiVersion?: string; finalizer?: string } = {},
): Promise<T[]> {
  const uid = owner.metadata?.uid;
  const deleting = owner.metadata?.deletionTimestamp !== undefined;
  const claimed: T[] = [];
  const changes: Array<Promise<void>> = [];
  const patchOwners = (pod: T, ownerReferences: unknown[], claim: boolean, finalizers?: string[]) =>
    changes.push(
      client
        .patch<T>(
          resource,
          pod.metadata?.namespace,
          pod.metadata?.name ?? "",
          {
            metadata: {
              ownerReferences,
              resourceVersion: pod.metadata?.resourceVersion,
              ...(finalizers !== undefined ? { finalizers } : {}),
            },
          },
          MERGE_PATCH,
        )
        .then((patched) => {
          if (claim) claimed.push(patched);
        })
        .catch((error: unknown) => {
          if (!(isNotFound(error) || (isApiError(error) && error.code === 409))) throw error;
        }),
    );
  for (const pod of objects) {
    const ref = controllerRefOf(pod);
    const matches = selectorMatches(owner.spec?.selector, pod.metadata?.labels);
    if (ref !== undefined) {
      if (ref.uid !== uid) continue;
      if (matches) claimed.push(pod);
      else if (!deleting)
        patchOwners(
          pod,
          (pod.metadata?.ownerReferences ?? []).filter((r) => r.uid !== uid),
          false,
        );
      continue;
    }
    if (deleting || !matches || pod.metadata?.deletionTimestamp !== undefined) continue;
    const finalizer = options.finalizer;
    const finalizers =
      finalizer === undefined || pod.metadata?.finalizers?.includes(finalizer)
        ? undefined
        : [...(pod.metadata?.finalizers ?? []), finalizer];
    patchOwners(
      pod,
      [...(pod.metadata?.ownerReferences ?? []), ownerReferenceTo(owner, options.apiVersion ?? "apps/v1", kind)],
      true,
      finalizers,
    );
  }
  await Promise.all(changes);
  return claimed;
}
