import type { KubeObject, OwnerReference } from "@kubekit/generic-controlplane";
import { controllerFor, splitKey, type Controller, type Informer, type ReconcileContext } from "@kubekit/generic-controlplane/controllers";
import type { Deployment } from "../resources/deployments.js";
import { PDBS, type PodDisruptionBudget } from "../resources/pod-disruption-budgets.js";
import type { Pod } from "../resources/pods.js";
import type { ReplicaSet } from "../resources/replicasets.js";
import type { StatefulSet } from "../resources/statefulsets.js";
import { DEPLOYMENTS, PODS, REPLICA_SETS, STATEFUL_SETS } from "../refs.js";
import { selectorMatches } from "../selector.js";
import { budgetStatus, withDisruptionAllowed, type ScaleFinder } from "./disruption-status.js";
import { controllerRefOf, keyOf, nowRFC3339, toleratingStaleCache } from "./util.js";

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * The disruption controller (upstream `pkg/controller/disruption`): for every
 * PodDisruptionBudget, the pods its selector matches, how many it expects (the pods themselves
 * for an integer `minAvailable`, else the scale of their Deployments, ReplicaSets and StatefulSets) and how
 * many must stay healthy, the ready pods not being deleted or evicted moments ago, and so the
 * disruptions allowed; with `observedGeneration`, the `DisruptionAllowed` condition and the
 * evictions not yet seen through (`disruptedPods`, dropped once the pod goes or after 2 minutes).
 * A budget it cannot compute allows nothing (`SyncFailed`).
 */
export function disruptionController(options: { workers?: number } = {}): Controller {
  // A controller's scale is the denominator of percentages and maxUnavailable.
  const onScale = ({ queue, primary: budgets }: ReconcileContext) => {
    const forNamespace = (object: KubeObject) => {
      for (const pdb of budgets.cache.list()) if (pdb.metadata?.namespace === object.metadata?.namespace) queue.add(keyOf(pdb));
    };
    return {
      update: (old: KubeObject, now: KubeObject) => (sameJson(old["spec"], now["spec"]) ? undefined : forNamespace(now)),
      delete: forNamespace,
    };
  };
  return controllerFor(PDBS)
    .named("disruption")
    .watches(PODS, {
      // A pod enqueues the budgets that select it, before and after the change (getPdbForPod).
      handlers: ({ queue, primary: budgets }) => {
        const forPods = (...versions: KubeObject[]) => {
          const namespace = versions[0]?.metadata?.namespace;
          for (const pdb of budgets.cache.list() as PodDisruptionBudget[]) {
            if (pdb.metadata?.namespace !== namespace) continue;
            if (versions.some((pod) => selectorMatches(pdb.spec?.selector, pod.metadata?.labels))) queue.add(keyOf(pdb));
          }
        };
        return { add: (pod) => forPods(pod), update: (old, pod) => forPods(old, pod), delete: (pod) => forPods(pod) };
      },
    })
    .watches(REPLICA_SETS, { handlers: onScale })
    .watches(DEPLOYMENTS, { handlers: onScale })
    .watches(STATEFUL_SETS, { handlers: onScale })
    .withOptions({ workers: options.workers ?? 2 })
    .complete(
      toleratingStaleCache(async (key: string, { primary: budgets, informer, client }: ReconcileContext) => {
        const find = scaleFinder(informer(REPLICA_SETS), informer(DEPLOYMENTS), informer(STATEFUL_SETS));
        const pods = informer(PODS);
        const pdb = budgets.cache.get(key) as PodDisruptionBudget | undefined;
        if (pdb === undefined) return undefined;
        const { namespace } = splitKey(key);
        const selected = (pods.cache.list() as Pod[]).filter(
          (pod) => pod.metadata?.namespace === namespace && selectorMatches(pdb.spec?.selector, pod.metadata?.labels),
        );
        const now = Date.now();
        let next: NonNullable<PodDisruptionBudget["status"]>;
        let recheckAt: number | undefined;
        try {
          ({ status: next, recheckAt } = budgetStatus(pdb, selected, find, now));
        } catch (error) {
          // failSafe: a budget that cannot be computed allows no disruption.
          const status = { ...(pdb.status ?? {}), disruptionsAllowed: 0 };
          next = {
            ...status,
            conditions: withDisruptionAllowed(
              status.conditions,
              {
                status: "False",
                reason: "SyncFailed",
                message: error instanceof Error ? error.message : String(error),
                ...(status.observedGeneration !== undefined ? { observedGeneration: status.observedGeneration } : {}),
              },
              nowRFC3339(),
            ),
          };
        }
        if (!sameJson(next, pdb.status)) await client.update(PDBS, namespace, { ...pdb, status: next }, "status");
        return recheckAt !== undefined ? { requeueAfterMs: Math.max(0, recheckAt - now) + 10 } : undefined;
      }),
    );
}

/** The finders for the controllers served here: a ReplicaSet's Deployment, else the ReplicaSet; a StatefulSet. */
function scaleFinder(replicaSets: Informer, deployments: Informer, statefulSets: Informer): ScaleFinder {
  return (ref: OwnerReference, namespace: string) => {
    if (ref.kind === "StatefulSet" && ref.apiVersion.startsWith("apps/")) {
      const set = statefulSets.cache.get(`${namespace}/${ref.name}`) as StatefulSet | undefined;
      return set === undefined || set.metadata?.uid !== ref.uid ? undefined : { uid: ref.uid, scale: set.spec?.replicas ?? 1 };
    }
    if (ref.kind !== "ReplicaSet" || !ref.apiVersion.startsWith("apps/")) return undefined;
    const rs = replicaSets.cache.get(`${namespace}/${ref.name}`) as ReplicaSet | undefined;
    if (rs === undefined || rs.metadata?.uid !== ref.uid) return undefined;
    const owner = controllerRefOf(rs);
    if (owner !== undefined && owner.kind === "Deployment") {
      const deployment = deployments.cache.get(`${namespace}/${owner.name}`) as Deployment | undefined;
      if (deployment === undefined || deployment.metadata?.uid !== owner.uid) return undefined;
      return { uid: owner.uid, scale: deployment.spec?.replicas ?? 1 };
    }
    return { uid: rs.metadata.uid, scale: rs.spec?.replicas ?? 1 };
  };
}
