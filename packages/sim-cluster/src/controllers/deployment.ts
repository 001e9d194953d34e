import type { KubeObject } from "@kubekit/generic-controlplane";
import { int64Literal } from "@kubekit/generic-controlplane/registry";
import {
  controllerFor,
  isApiError,
  isNotFound,
  splitKey,
  type Controller,
  type KubeClient,
  type ReconcileContext,
  type Requeue,
} from "@kubekit/generic-controlplane/controllers";
import type { Deployment } from "../resources/deployments.js";
import { scaledValue } from "../resources/int-or-percent.js";
import type { ReplicaSet } from "../resources/replicasets.js";
import { DEPLOYMENTS, REPLICA_SETS } from "../refs.js";
import { selectorMatches } from "../selector.js";
import { claimObjects } from "./claim.js";
import { controllerRefOf, keyOf, nowRFC3339, ownerReferenceTo, toleratingStaleCache } from "./util.js";
import { canonicalJson, podTemplateHash } from "./pod-template-hash.js";
import { activeOrLatest, DESIRED_REPLICAS, isScalingEvent, MAX_REPLICAS, proportionalSizes } from "./deployment-scale.js";
import { deploymentConditions, newCondition, pausedCondition, setCondition, type DeploymentCondition } from "./deployment-progress.js";

export const POD_TEMPLATE_HASH = "pod-template-hash";
export const REVISION = "deployment.kubernetes.io/revision";
const REVISION_HISTORY = "deployment.kubernetes.io/revision-history";
/** Annotations of the Deployment's own bookkeeping, not copied between it and its ReplicaSets. */
const ANNOTATIONS_TO_SKIP = new Set([
  "kubectl.kubernetes.io/last-applied-configuration",
  REVISION,
  REVISION_HISTORY,
  DESIRED_REPLICAS,
  MAX_REPLICAS,
  "deprecated.deployment.rollback.to",
]);

const MERGE_PATCH = "application/merge-patch+json";

function replicasOf(rs: ReplicaSet): number {
  return rs.spec?.replicas ?? 0;
}

/**
 * The revision annotation as upstream's `Revision` reads it: an int64, exact (revisions beyond 2^53
 * are valid, as a ReplicaSet adopted with one shows); one that does not parse counts as none.
 */
function revisionOf(object: KubeObject): bigint {
  return int64Literal(object.metadata?.annotations?.[REVISION] ?? "0") ?? 0n;
}

function maxRevision(revisions: readonly bigint[]): bigint {
  return revisions.reduce((max, revision) => (revision > max ? revision : max), 0n);
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

/** The Deployment's annotations a ReplicaSet carries (`copyDeploymentAnnotationsToReplicaSet`), e.g. `kubernetes.io/change-cause` for `rollout history`. */
function copiedAnnotations(deployment: Deployment): Record<string, string> {
  return Object.fromEntries(Object.entries(deployment.metadata?.annotations ?? {}).filter(([k]) => !ANNOTATIONS_TO_SKIP.has(k)));
}

async function scaleReplicaSet(
  client: KubeClient,
  rs: ReplicaSet,
  replicas: number,
  deployment: Deployment,
  maxSurge: number,
): Promise<void> {
  const desired = String(deployment.spec?.replicas ?? 0);
  const max = String((deployment.spec?.replicas ?? 0) + maxSurge);
  const annotations = rs.metadata?.annotations ?? {};
  if (replicasOf(rs) === replicas && annotations[DESIRED_REPLICAS] === desired && annotations[MAX_REPLICAS] === max) return;
  await client.patch(
    REPLICA_SETS,
    rs.metadata?.namespace,
    rs.metadata?.name ?? "",
    { metadata: { annotations: { [DESIRED_REPLICAS]: desired, [MAX_REPLICAS]: max } }, spec: { replicas } },
    MERGE_PATCH,
  );
}

/**
 * `DeploymentController.scale`: a change of `spec.replicas` (or a paused Deployment) resizes the
 * only active ReplicaSet, or, mid-rollout, every active one in proportion.
 */
async function scale(
  client: KubeClient,
  deployment: Deployment,
  newRS: ReplicaSet | undefined,
  oldRSs: readonly ReplicaSet[],
  maxSurge: number,
): Promise<void> {
  const replicas = deployment.spec?.replicas ?? 0;
  const only = activeOrLatest(newRS, oldRSs);
  if (only !== undefined) {
    await scaleReplicaSet(client, only, replicas, deployment, maxSurge);
    return;
  }
  // A saturated new ReplicaSet: the old ones go.
  if (newRS !== undefined && replicasOf(newRS) === replicas && (newRS.status?.availableReplicas ?? 0) === replicas) {
    await Promise.all(oldRSs.filter((rs) => replicasOf(rs) > 0).map((rs) => scaleReplicaSet(client, rs, 0, deployment, maxSurge)));
    return;
  }
  if (deployment.spec?.strategy?.type === "Recreate") return;
  const sizes = proportionalSizes(replicas, maxSurge, deployment.status?.replicas ?? 0, [...(newRS ? [newRS] : []), ...oldRSs]);
  for (const [rs, size] of sizes) await scaleReplicaSet(client, rs, size, deployment, maxSurge);
}

/**
 * The Deployment controller (upstream `pkg/controller/deployment`): a ReplicaSet per pod
 * template, named `<deployment>-<pod-template-hash>` and revisioned (a template that comes back,
 * as by `kubectl rollout undo`, makes its ReplicaSet the newest revision, the older numbers kept
 * in `revision-history`); RollingUpdate moves pods to the new ReplicaSet within maxSurge and
 * maxUnavailable, Recreate scales the old ones to zero first. A paused Deployment only scales; a
 * change of replicas mid-rollout is spread over the active ReplicaSets in proportion. Status and
 * the Available/Progressing conditions are what `kubectl rollout status` reads, with
 * `ProgressDeadlineExceeded` when no pod moved for `progressDeadlineSeconds`. Old ReplicaSets
 * beyond `revisionHistoryLimit` are deleted.
 */
export function deploymentController(options: { workers?: number } = {}): Controller {
  return (
    controllerFor(DEPLOYMENTS, { kind: "Deployment" })
      .named("deployment")
      .owns(REPLICA_SETS)
      // An orphaned ReplicaSet: the Deployments whose selector matches it may adopt it (getDeploymentsForReplicaSet).
      .watches(
        REPLICA_SETS,
        (rs, { primary: deployments }) => {
          if (controllerRefOf(rs) !== undefined || rs.metadata?.deletionTimestamp !== undefined) return undefined;
          return (deployments.cache.list() as Deployment[])
            .filter((d) => d.metadata?.namespace === rs.metadata?.namespace && selectorMatches(d.spec?.selector, rs.metadata?.labels))
            .map(keyOf);
        },
        { on: ["add", "update"] },
      )
      .withOptions({ workers: options.workers ?? 2 })
      .complete(
        toleratingStaleCache(async (key: string, { client, primary: deployments, informer }: ReconcileContext): Promise<void | Requeue> => {
          const replicaSets = informer(REPLICA_SETS);
          const deployment = deployments.cache.get(key) as Deployment | undefined;
          if (deployment === undefined || deployment.metadata?.deletionTimestamp !== undefined) return;
          const { namespace } = splitKey(key);
          const name = deployment.metadata?.name ?? "";
          // Its ReplicaSets, with matching orphans adopted and ones that no longer match released (claimReplicaSets).
          const owned = await claimObjects(
            client,
            REPLICA_SETS,
            deployment,
            "Deployment",
            (replicaSets.cache.list() as ReplicaSet[]).filter((rs) => rs.metadata?.namespace === namespace),
          );
          const wanted = templateWithoutHash(deployment.spec?.template);
          let newRS = owned.find((rs) => templateWithoutHash(rs.spec?.template) === wanted);
          const oldRSs = owned.filter((rs) => rs !== newRS);
          const replicas = deployment.spec?.replicas ?? 0;
          const recreate = deployment.spec?.strategy?.type === "Recreate";
          const { maxSurge, maxUnavailable } = recreate ? { maxSurge: 0, maxUnavailable: 0 } : fenceposts(deployment);
          const maxOldRevision = maxRevision(oldRSs.map(revisionOf));
          const paused = deployment.spec?.paused === true;
          const nowText = nowRFC3339();
          let conditions = pausedCondition((deployment.status?.["conditions"] as DeploymentCondition[] | undefined) ?? [], paused, nowText);
          let created = false;

          // A paused Deployment, or one whose replica count changed, is only scaled (upstream `sync`).
          const rollout = !paused && !isScalingEvent(replicas, [...(newRS ? [newRS] : []), ...oldRSs]);
          if (newRS === undefined && rollout) {
            const current = owned.reduce((n, rs) => n + replicasOf(rs), 0);
            const initial = recreate ? 0 : Math.max(0, Math.min(replicas + maxSurge - current, replicas));
            const hash = podTemplateHash(deployment.spec?.template);
            const template = structuredClone(deployment.spec?.template ?? {});
            template.metadata = {
              ...(template.metadata ?? {}),
              labels: { ...(template.metadata?.labels ?? {}), [POD_TEMPLATE_HASH]: hash },
            };
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
                  annotations: {
                    ...copiedAnnotations(deployment),
                    [REVISION]: String(maxOldRevision + 1n),
                    [DESIRED_REPLICAS]: String(replicas),
                    [MAX_REPLICAS]: String(replicas + maxSurge),
                  },
                  ownerReferences: [ownerReferenceTo(deployment, "apps/v1", "Deployment")],
                },
                spec: {
                  replicas: initial,
                  selector,
                  template,
                  ...(deployment.spec?.minReadySeconds !== undefined ? { minReadySeconds: deployment.spec.minReadySeconds } : {}),
                },
              });
              created = true;
              conditions = setProgressing(
                conditions,
                "NewReplicaSetCreated",
                `Created new replica set "${newRS.metadata?.name ?? ""}"`,
                nowText,
              );
            } catch (error) {
              // Created by an earlier sync the cache has not shown yet: the next event brings it.
              if (isApiError(error) && error.code === 409) return;
              throw error;
            }
          } else if (newRS !== undefined) {
            // SetNewReplicaSetAnnotations: the newest revision (a template that came back keeps its
            // earlier numbers in revision-history), the Deployment's annotations, and minReadySeconds.
            const annotations: Record<string, string> = {};
            const had = newRS.metadata?.annotations ?? {};
            for (const [k, v] of Object.entries(copiedAnnotations(deployment))) if (had[k] !== v) annotations[k] = v;
            if (revisionOf(newRS) <= maxOldRevision) {
              annotations[REVISION] = String(maxOldRevision + 1n);
              if (had[REVISION] !== undefined)
                annotations[REVISION_HISTORY] = had[REVISION_HISTORY] ? `${had[REVISION_HISTORY]},${had[REVISION]}` : had[REVISION];
            }
            const minReady = deployment.spec?.minReadySeconds ?? 0;
            const spec = (newRS.spec?.minReadySeconds ?? 0) !== minReady ? { minReadySeconds: minReady } : undefined;
            if (Object.keys(annotations).length > 0 || spec !== undefined) {
              newRS = await client.patch<ReplicaSet>(
                REPLICA_SETS,
                namespace,
                newRS.metadata?.name ?? "",
                { metadata: { annotations }, ...(spec ? { spec } : {}) },
                MERGE_PATCH,
              );
            }
            if (rollout && !conditions.some((c) => c.type === "Progressing"))
              conditions = setProgressing(
                conditions,
                "FoundNewReplicaSet",
                `Found new replica set "${newRS.metadata?.name ?? ""}"`,
                nowText,
              );
          }
          const revision = maxRevision([maxOldRevision, newRS !== undefined ? revisionOf(newRS) : 0n]);
          if (revision > 0n && deployment.metadata?.annotations?.[REVISION] !== String(revision)) {
            await client.patch(DEPLOYMENTS, namespace, name, { metadata: { annotations: { [REVISION]: String(revision) } } }, MERGE_PATCH);
          }

          const active = oldRSs.filter((rs) => replicasOf(rs) > 0);
          if (!rollout) {
            await scale(client, deployment, newRS, oldRSs, maxSurge);
          } else if (newRS !== undefined && !created) {
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
                await scaleReplicaSet(
                  client,
                  newRS,
                  newReplicas + Math.min(replicas + maxSurge - current, replicas - newReplicas),
                  deployment,
                  maxSurge,
                );
              } else if (active.length > 0) {
                // Old pods go as far as availability allows (scaleDownOldReplicaSetsForRollingUpdate).
                const available = owned.reduce((n, rs) => n + (rs.status?.availableReplicas ?? 0), 0);
                const minAvailable = replicas - maxUnavailable;
                const newUnavailable = newReplicas - (newRS.status?.availableReplicas ?? 0);
                const allPods = owned.reduce((n, rs) => n + replicasOf(rs), 0);
                // Unhealthy old replicas can go without touching availability (cleanupUnhealthyReplicas);
                // nothing goes while the new ReplicaSet's unavailable pods use up the budget.
                let budget = Math.max(0, allPods - minAvailable - newUnavailable);
                let totalScaleDown = budget === 0 ? 0 : Math.max(0, available - minAvailable);
                const oldestFirst = [...active].sort(
                  (a, b) => Date.parse(a.metadata?.creationTimestamp ?? "0") - Date.parse(b.metadata?.creationTimestamp ?? "0"),
                );
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
          const all = created && newRS !== undefined ? [...owned, newRS] : owned;
          const sum = (pick: (rs: ReplicaSet) => number | undefined) => all.reduce((n, rs) => n + (pick(rs) ?? 0), 0);
          const counts = {
            replicas: sum((rs) => rs.status?.replicas),
            updatedReplicas: created || newRS === undefined ? 0 : (newRS.status?.replicas ?? 0),
            readyReplicas: sum((rs) => rs.status?.readyReplicas),
            availableReplicas: sum((rs) => rs.status?.availableReplicas),
          };
          const before = deployment.status ?? {};
          const num = (k: keyof typeof counts) => before[k] ?? 0;
          const progress = deploymentConditions({
            name,
            newRSName: newRS?.metadata?.name,
            replicas,
            maxUnavailable: recreate ? 0 : Math.min(maxUnavailable, replicas),
            progressDeadlineSeconds: deployment.spec?.progressDeadlineSeconds,
            before: {
              replicas: num("replicas"),
              updatedReplicas: num("updatedReplicas"),
              readyReplicas: num("readyReplicas"),
              availableReplicas: num("availableReplicas"),
            },
            after: counts,
            conditions,
            rollout,
            now: Date.now(),
          });
          const status = {
            observedGeneration: deployment.metadata?.generation ?? 0,
            ...counts,
            unavailableReplicas: Math.max(0, all.reduce((n, rs) => n + replicasOf(rs), 0) - counts.availableReplicas),
            conditions: progress.conditions,
          };
          const { conditions: _c, ...numbers } = status;
          const changed =
            (Object.keys(numbers) as Array<keyof typeof numbers>).some((k) => (before[k] ?? 0) !== numbers[k]) ||
            canonicalJson(deployment.status?.["conditions"] ?? []) !== canonicalJson(progress.conditions);
          if (changed) await client.patch(DEPLOYMENTS, namespace, name, { status }, MERGE_PATCH, "status");

          if (
            newRS !== undefined &&
            ((paused && rollout === false) ||
              (counts.updatedReplicas === replicas &&
                counts.replicas === replicas &&
                counts.availableReplicas === replicas &&
                replicasOf(newRS) === replicas))
          ) {
            // Keep at most revisionHistoryLimit old ReplicaSets, oldest revisions go first (cleanupDeployment).
            const limit = deployment.spec?.revisionHistoryLimit ?? 10;
            const idle = oldRSs
              .filter((rs) => replicasOf(rs) === 0 && (rs.status?.replicas ?? 0) === 0)
              .sort((a, b) => (revisionOf(a) < revisionOf(b) ? -1 : revisionOf(a) > revisionOf(b) ? 1 : 0));
            for (const rs of idle.slice(0, Math.max(0, idle.length - limit))) {
              await client.delete(REPLICA_SETS, namespace, rs.metadata?.name ?? "").catch((error: unknown) => {
                if (!isNotFound(error)) throw error;
              });
            }
          }
          if (progress.deadlineInMs !== undefined) return { requeueAfterMs: progress.deadlineInMs + 1000 };
        }),
      )
  );
}

/** A Progressing=True condition of `reason` (when the new ReplicaSet is created or found), unless the Deployment has no deadline. */
function setProgressing(conditions: DeploymentCondition[], reason: string, message: string, now: string): DeploymentCondition[] {
  return setCondition(conditions, newCondition("Progressing", "True", reason, message, now));
}
