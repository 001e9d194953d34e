import type { KubeObject } from "@kubekit/generic-controlplane";
import { isApiError, isNotFound, runWorkers, splitKey, WorkQueue, type Controller, type ControllerContext, type KubeClient } from "@kubekit/generic-controlplane/controllers";
import { scaledValue, type Deployment } from "../resources/deployments.js";
import type { ReplicaSet } from "../resources/replicasets.js";
import { DEPLOYMENTS, REPLICA_SETS } from "../refs.js";
import { aborted, controllerRefOf, isOwnedBy, keyOf, nowRFC3339, ownerReferenceTo } from "./util.js";
import { canonicalJson, podTemplateHash } from "./pod-template-hash.js";

export const POD_TEMPLATE_HASH = "pod-template-hash";
export const REVISION = "deployment.kubernetes.io/revision";
const DESIRED_REPLICAS = "deployment.kubernetes.io/desired-replicas";
const MAX_REPLICAS = "deployment.kubernetes.io/max-replicas";

const MERGE_PATCH = "application/merge-patch+json";

function replicasOf(rs: ReplicaSet): number {
  return rs.spec?.replicas ?? 0;
}

function revisionOf(object: KubeObject): number {
  const value = Number(object.metadata?.annotations?.[REVISION] ?? "0");
  return Number.isFinite(value) ? value : 0;
}

/** EqualIgnoreHash: the templates match once the pod-template-hash label is taken out. */
function templateWithoutHash(template: unknown): string {
  const copy = structuredClone(template ?? {}) as { metadata?: { labels?: Record<string, string> } };
  if (copy.metadata?.labels) delete copy.metadata.labels[POD_TEMPLATE_HASH];
  if (copy.metadata?.labels && Object.keys(copy.metadata.labels).length === 0) delete copy.metadata.labels;
  return canonicalJson(copy);
}

/** maxSurge and maxUnavailable resolved against the desired replicas (ResolveFenceposts). */
export function fenceposts(deployment: Deployment): { maxSurge: number; maxUnavailable: number } {
  const replicas = deployment.spec?.replicas ?? 0;
  const rolling = deployment.spec?.strategy?.rollingUpdate;
  const maxSurge = scaledValue(rolling?.maxSurge ?? "25%", replicas, true);
  let maxUnavailable = scaledValue(rolling?.maxUnavailable ?? "25%", replicas, false);
  if (maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
  return { maxSurge, maxUnavailable };
}

interface Condition {
  type: string;
  status: string;
  reason: string;
  message: string;
  lastUpdateTime: string;
  lastTransitionTime: string;
}

function condition(existing: Condition[] | undefined, type: string, status: string, reason: string, message: string): Condition {
  const now = nowRFC3339();
  const before = existing?.find((c) => c.type === type);
  if (before !== undefined && before.status === status && before.reason === reason && before.message === message) return before;
  return { type, status, reason, message, lastUpdateTime: now, lastTransitionTime: before !== undefined && before.status === status ? before.lastTransitionTime : now };
}

async function scaleReplicaSet(client: KubeClient, rs: ReplicaSet, replicas: number, deployment: Deployment, maxSurge: number): Promise<void> {
  await client.patch(
    REPLICA_SETS,
    rs.metadata?.namespace,
    rs.metadata?.name ?? "",
    {
      metadata: { annotations: { [DESIRED_REPLICAS]: String(deployment.spec?.replicas ?? 0), [MAX_REPLICAS]: String((deployment.spec?.replicas ?? 0) + maxSurge) } },
      spec: { replicas },
    },
    MERGE_PATCH,
  );
}

/**
 * The Deployment controller (upstream `pkg/controller/deployment`): a ReplicaSet per pod
 * template, named `<deployment>-<pod-template-hash>` and revisioned; RollingUpdate moves pods to
 * the new ReplicaSet within maxSurge and maxUnavailable, Recreate scales the old ones to zero
 * first; status and the Available/Progressing conditions are what `kubectl rollout status`
 * reads. Old ReplicaSets beyond `revisionHistoryLimit` are deleted. Not yet: pausing, rollback,
 * proportional scaling of several active ReplicaSets, progress deadlines and minReadySeconds.
 */
export function deploymentController(options: { workers?: number } = {}): Controller {
  return {
    name: "deployment",
    async run(context: ControllerContext, signal: AbortSignal) {
      const { client } = context;
      const queue = new WorkQueue({ name: "deployment", ...(context.registry !== undefined ? { registry: context.registry } : {}) });
      const deployments = context.informers.informerFor(DEPLOYMENTS);
      const replicaSets = context.informers.informerFor(REPLICA_SETS);
      const enqueue = (d: KubeObject) => queue.add(keyOf(d));
      deployments.addEventHandler({ add: enqueue, update: (_old, d) => enqueue(d), delete: enqueue });
      const enqueueOwner = (rs: KubeObject) => {
        const ref = controllerRefOf(rs);
        if (ref?.kind === "Deployment") queue.add(`${rs.metadata?.namespace ?? ""}/${ref.name}`);
      };
      replicaSets.addEventHandler({ add: enqueueOwner, update: (_old, rs) => enqueueOwner(rs), delete: enqueueOwner });
      deployments.start();
      replicaSets.start();
      await Promise.race([Promise.all([deployments.waitForSync(), replicaSets.waitForSync()]), aborted(signal)]);

      const sync = async (key: string): Promise<void> => {
        const deployment = deployments.cache.get(key) as Deployment | undefined;
        if (deployment === undefined || deployment.metadata?.deletionTimestamp !== undefined) return;
        const { namespace } = splitKey(key);
        const name = deployment.metadata?.name ?? "";
        const owned = (replicaSets.cache.list() as ReplicaSet[]).filter((rs) => rs.metadata?.namespace === namespace && isOwnedBy(rs, deployment));
        const wanted = templateWithoutHash(deployment.spec?.template);
        let newRS = owned.find((rs) => templateWithoutHash(rs.spec?.template) === wanted);
        const oldRSs = owned.filter((rs) => rs !== newRS);
        const replicas = deployment.spec?.replicas ?? 0;
        const recreate = deployment.spec?.strategy?.type === "Recreate";
        const { maxSurge, maxUnavailable } = recreate ? { maxSurge: 0, maxUnavailable: 0 } : fenceposts(deployment);
        const maxOldRevision = Math.max(0, ...oldRSs.map(revisionOf));
        let created = false;

        if (newRS === undefined) {
          const current = owned.reduce((n, rs) => n + replicasOf(rs), 0);
          const initial = recreate ? 0 : Math.max(0, Math.min(replicas + maxSurge - current, replicas));
          const hash = podTemplateHash(deployment.spec?.template);
          const template = structuredClone(deployment.spec?.template ?? {});
          template.metadata = { ...(template.metadata ?? {}), labels: { ...(template.metadata?.labels ?? {}), [POD_TEMPLATE_HASH]: hash } };
          const selector = structuredClone(deployment.spec?.selector ?? {});
          selector.matchLabels = { ...(selector.matchLabels ?? {}), [POD_TEMPLATE_HASH]: hash };
          try {
            newRS = await client.create<ReplicaSet>(REPLICA_SETS, namespace, {
              apiVersion: "apps/v1",
              kind: "ReplicaSet",
              metadata: {
                name: `${name}-${hash}`,
                namespace: namespace ?? "",
                labels: { ...(template.metadata.labels ?? {}) },
                annotations: { [REVISION]: String(maxOldRevision + 1), [DESIRED_REPLICAS]: String(replicas), [MAX_REPLICAS]: String(replicas + maxSurge) },
                ownerReferences: [ownerReferenceTo(deployment, "apps/v1", "Deployment")],
              },
              spec: { replicas: initial, selector, template, ...(deployment.spec?.minReadySeconds !== undefined ? { minReadySeconds: deployment.spec.minReadySeconds } : {}) },
            });
            created = true;
          } catch (error) {
            // Created by an earlier sync the cache has not shown yet: the next event brings it.
            if (isApiError(error) && error.code === 409) return;
            throw error;
          }
        } else if (revisionOf(newRS) <= maxOldRevision) {
          // A template that came back (rollout undo by hand): it becomes the newest revision.
          await client.patch(REPLICA_SETS, namespace, newRS.metadata?.name ?? "", { metadata: { annotations: { [REVISION]: String(maxOldRevision + 1) } } }, MERGE_PATCH);
        }
        const revision = created ? maxOldRevision + 1 : Math.max(revisionOf(newRS), maxOldRevision + (revisionOf(newRS) <= maxOldRevision ? 1 : 0));
        if (deployment.metadata?.annotations?.[REVISION] !== String(revision)) {
          await client.patch(DEPLOYMENTS, namespace, name, { metadata: { annotations: { [REVISION]: String(revision) } } }, MERGE_PATCH);
        }

        const active = oldRSs.filter((rs) => replicasOf(rs) > 0);
        if (!created) {
          if (recreate) {
            if (active.length > 0) {
              await Promise.all(active.map((rs) => scaleReplicaSet(client, rs, 0, deployment, 0)));
            } else if (oldRSs.every((rs) => (rs.status?.replicas ?? 0) === 0) && replicasOf(newRS) !== replicas) {
              await scaleReplicaSet(client, newRS, replicas, deployment, 0);
            }
          } else {
            const current = owned.reduce((n, rs) => n + replicasOf(rs), 0);
            const newReplicas = replicasOf(newRS);
            if (newReplicas > replicas) {
              await scaleReplicaSet(client, newRS, replicas, deployment, maxSurge);
            } else if (newReplicas < replicas && current < replicas + maxSurge) {
              await scaleReplicaSet(client, newRS, newReplicas + Math.min(replicas + maxSurge - current, replicas - newReplicas), deployment, maxSurge);
            } else if (active.length > 0) {
              // Old pods go as far as availability allows (scaleDownOldReplicaSetsForRollingUpdate).
              const available = owned.reduce((n, rs) => n + (rs.status?.availableReplicas ?? 0), 0);
              const minAvailable = replicas - maxUnavailable;
              const newUnavailable = newReplicas - (newRS.status?.availableReplicas ?? 0);
              const allPods = owned.reduce((n, rs) => n + replicasOf(rs), 0);
              // Unhealthy old replicas can go without touching availability (cleanupUnhealthyReplicas).
              let budget = Math.max(0, allPods - minAvailable - newUnavailable);
              let totalScaleDown = Math.max(0, available - minAvailable);
              const oldestFirst = [...active].sort((a, b) => Date.parse(a.metadata?.creationTimestamp ?? "0") - Date.parse(b.metadata?.creationTimestamp ?? "0"));
              for (const rs of oldestFirst) {
                const unhealthy = Math.max(0, replicasOf(rs) - (rs.status?.availableReplicas ?? 0));
                const cleanup = Math.min(unhealthy, budget);
                budget -= cleanup;
                const down = Math.min(replicasOf(rs) - cleanup, totalScaleDown);
                totalScaleDown -= down;
                const target = replicasOf(rs) - cleanup - down;
                if (target !== replicasOf(rs)) await scaleReplicaSet(client, rs, target, deployment, maxSurge);
              }
            }
          }
        }

        // Status (calculateStatus) from the cache; the ReplicaSet events that follow bring it up to date.
        const all = created ? [...owned, newRS] : owned;
        const sum = (pick: (rs: ReplicaSet) => number | undefined) => all.reduce((n, rs) => n + (pick(rs) ?? 0), 0);
        const available = sum((rs) => rs.status?.availableReplicas);
        const updated = created ? 0 : (newRS.status?.replicas ?? 0);
        const actual = sum((rs) => rs.status?.replicas);
        const complete = updated === replicas && actual === replicas && available === replicas && replicasOf(newRS) === replicas;
        const conditions = deployment.status?.["conditions"] as Condition[] | undefined;
        const newName = newRS.metadata?.name ?? "";
        const status = {
          observedGeneration: deployment.metadata?.generation ?? 0,
          replicas: actual,
          updatedReplicas: updated,
          readyReplicas: sum((rs) => rs.status?.readyReplicas),
          availableReplicas: available,
          unavailableReplicas: Math.max(0, replicas - available),
          conditions: [
            available >= replicas - maxUnavailable
              ? condition(conditions, "Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability.")
              : condition(conditions, "Available", "False", "MinimumReplicasUnavailable", "Deployment does not have minimum availability."),
            complete
              ? condition(conditions, "Progressing", "True", "NewReplicaSetAvailable", `ReplicaSet "${newName}" has successfully progressed.`)
              : created
                ? condition(conditions, "Progressing", "True", "NewReplicaSetCreated", `Created new replica set "${newName}"`)
                : condition(conditions, "Progressing", "True", "ReplicaSetUpdated", `ReplicaSet "${newName}" is progressing.`),
          ],
        };
        const { conditions: _c, ...counts } = status;
        const before = deployment.status ?? {};
        const changed =
          (Object.keys(counts) as Array<keyof typeof counts>).some((k) => (before[k] ?? 0) !== counts[k]) || JSON.stringify(conditions ?? []) !== JSON.stringify(status.conditions);
        if (changed) await client.patch(DEPLOYMENTS, namespace, name, { status }, MERGE_PATCH, "status");

        if (complete) {
          // Keep at most revisionHistoryLimit old ReplicaSets, oldest revisions go first (cleanupDeployment).
          const limit = deployment.spec?.revisionHistoryLimit ?? 10;
          const idle = oldRSs.filter((rs) => replicasOf(rs) === 0 && (rs.status?.replicas ?? 0) === 0).sort((a, b) => revisionOf(a) - revisionOf(b));
          for (const rs of idle.slice(0, Math.max(0, idle.length - limit))) {
            await client.delete(REPLICA_SETS, namespace, rs.metadata?.name ?? "").catch((error: unknown) => {
              if (!isNotFound(error)) throw error;
            });
          }
        }
      };

      const workers = runWorkers(
        queue,
        options.workers ?? 2,
        async (key) => {
          try {
            await sync(key);
          } catch (error) {
            // A stale cache: the event that updates it requeues the deployment.
            if (isApiError(error) && (error.code === 409 || error.code === 404)) return;
            throw error;
          }
        },
        context.logger,
      );
      await aborted(signal);
      await queue.shutDownWithDrain();
      await workers;
    },
  };
}
