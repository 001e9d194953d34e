import { isApiError, isNotFound, type KubeClient } from "@kubekit/generic-controlplane/controllers";
import type { ControllerRevision } from "../resources/controller-revisions.js";
import type { KubeObject } from "@kubekit/generic-controlplane";
import type { Pod } from "../resources/pods.js";
import { CONTROLLER_REVISIONS } from "../refs.js";
import { CONTROLLER_REVISION_HASH } from "./daemonset-pods.js";
import { canonicalJson, podTemplateHash } from "./pod-template-hash.js";
import { ownerReferenceTo } from "./util.js";

/** What keeps its templates as ControllerRevisions: a DaemonSet or a StatefulSet. */
export interface HistoryOwner extends KubeObject {
  kind?: string;
  spec?: { template?: { metadata?: KubeObject["metadata"] }; revisionHistoryLimit?: number };
  status?: { collisionCount?: number };
}

/**
 * What a DaemonSet's or StatefulSet's ControllerRevision holds (upstream `getPatch`): a strategic merge patch that
 * replaces the template, which `kubectl rollout undo` sends back to roll back.
 */
export function revisionData(ds: HistoryOwner): { spec: { template: Record<string, unknown> } } {
  return { spec: { template: { ...structuredClone(ds.spec?.template ?? {}), $patch: "replace" } } };
}

function revisionNumber(revision: ControllerRevision): number {
  return revision.revision ?? 0;
}

/**
 * `constructHistory` (`getStatefulSetRevisions` for a StatefulSet, the `kind` the revisions' owner
 * reference names): the ControllerRevision of the owner's current template (created with
 * the next revision number when new, renumbered as the newest when an old template came back,
 * e.g. by `rollout undo`), its hash for the pods' `controller-revision-hash` label, the older ones,
 * and the owner's collision count: a new revision whose name another template's revision already
 * has is named from the hash with the count raised, until the name is free or holds the same
 * template (history's `CreateControllerRevision`).
 */
export async function currentRevision(
  client: KubeClient,
  ds: HistoryOwner,
  owned: readonly ControllerRevision[],
  kind = "DaemonSet",
): Promise<{ hash: string; current: ControllerRevision; old: ControllerRevision[]; collisionCount: number }> {
  const data = revisionData(ds);
  const wanted = canonicalJson(data);
  const namespace = ds.metadata?.namespace;
  let collisionCount = ds.status?.collisionCount ?? 0;
  let current = owned.find((r) => canonicalJson(r.data) === wanted);
  const old = owned.filter((r) => r !== current);
  const maxOld = Math.max(0, ...old.map(revisionNumber));
  while (current === undefined) {
    const hash = podTemplateHash(data, collisionCount);
    const revision: ControllerRevision = {
      apiVersion: "apps/v1",
      kind: "ControllerRevision",
      metadata: {
        name: `${ds.metadata?.name ?? ""}-${hash}`,
        namespace: namespace ?? "",
        labels: { ...(ds.spec?.template?.metadata?.labels ?? {}), [CONTROLLER_REVISION_HASH]: hash },
        ownerReferences: [ownerReferenceTo(ds, "apps/v1", kind)],
      },
      data,
      revision: maxOld + 1,
    };
    try {
      current = await client.create<ControllerRevision>(CONTROLLER_REVISIONS, namespace, revision);
    } catch (error) {
      if (!(isApiError(error) && error.code === 409)) throw error;
      // The same template (ours from an earlier sync the cache has not shown yet), or a collision.
      const existing = await client.get<ControllerRevision>(CONTROLLER_REVISIONS, namespace, revision.metadata!.name!);
      if (canonicalJson(existing.data) === wanted) current = existing;
      else collisionCount++;
    }
  }
  if (revisionNumber(current) <= maxOld) {
    current = await client.patch<ControllerRevision>(
      CONTROLLER_REVISIONS,
      namespace,
      current.metadata?.name ?? "",
      { revision: maxOld + 1 },
      "application/merge-patch+json",
    );
  }
  return { hash: current.metadata?.labels?.[CONTROLLER_REVISION_HASH] ?? "", current, old, collisionCount };
}

/** `cleanupHistory`: old revisions no live pod runs, beyond `revisionHistoryLimit`, lowest revision first. */
export async function cleanupHistory(
  client: KubeClient,
  ds: HistoryOwner,
  old: readonly ControllerRevision[],
  pods: readonly Pod[],
): Promise<void> {
  const limit = ds.spec?.revisionHistoryLimit ?? 10;
  const live = new Set(pods.map((p) => p.metadata?.labels?.[CONTROLLER_REVISION_HASH]));
  const unused = old
    .filter((r) => !live.has(r.metadata?.labels?.[CONTROLLER_REVISION_HASH]))
    .sort((a, b) => revisionNumber(a) - revisionNumber(b));
  for (const revision of unused.slice(0, Math.max(0, unused.length - limit))) {
    await client.delete(CONTROLLER_REVISIONS, ds.metadata?.namespace, revision.metadata?.name ?? "").catch((error: unknown) => {
      if (!isNotFound(error)) throw error;
    });
  }
}
