import type { KubeObject, OwnerReference } from "@kubekit/generic-controlplane";
import { runWorkers, splitKey, WorkQueue, type Controller, type ControllerContext } from "@kubekit/generic-controlplane/controllers";
import type { Deployment } from "../resources/deployments.js";
import { PDBS, type PodDisruptionBudget } from "../resources/pod-disruption-budgets.js";
import type { Pod } from "../resources/pods.js";
import type { ReplicaSet } from "../resources/replicasets.js";
import type { StatefulSet } from "../resources/statefulsets.js";
import { DEPLOYMENTS, PODS, REPLICA_SETS, STATEFUL_SETS } from "../refs.js";
import { selectorMatches } from "../selector.js";
import { budgetStatus, withDisruptionAllowed, type ScaleFinder } from "./disruption-status.js";
import { aborted, controllerRefOf, keyOf, nowRFC3339, toleratingStaleCache } from "./util.js";

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
  return {
    name: "disruption",
    async run(context: ControllerContext, signal: AbortSignal) {
      const queue = new WorkQueue({ name: "disruption", ...(context.registry !== undefined ? { registry: context.registry } : {}) });
      const budgets = context.informers.informerFor(PDBS);
      const pods = context.informers.informerFor(PODS);
      const replicaSets = context.informers.informerFor(REPLICA_SETS);
      const deployments = context.informers.informerFor(DEPLOYMENTS);
      const statefulSets = context.informers.informerFor(STATEFUL_SETS);

      const enqueue = (object: KubeObject) => queue.add(keyOf(object));
      budgets.addEventHandler({ add: enqueue, update: (_old, pdb) => enqueue(pdb), delete: enqueue });
      // A pod enqueues the budgets that select it, before and after the change (getPdbForPod).
      const forPods = (...versions: KubeObject[]) => {
        const namespace = versions[0]?.metadata?.namespace;
        for (const pdb of budgets.cache.list() as PodDisruptionBudget[]) {
          if (pdb.metadata?.namespace !== namespace) continue;
          if (versions.some((pod) => selectorMatches(pdb.spec?.selector, pod.metadata?.labels))) enqueue(pdb);
        }
      };
      pods.addEventHandler({ add: (pod) => forPods(pod), update: (old, pod) => forPods(old, pod), delete: (pod) => forPods(pod) });
      // A controller's scale is the denominator of percentages and maxUnavailable.
      const forNamespace = (object: KubeObject) => {
        for (const pdb of budgets.cache.list()) if (pdb.metadata?.namespace === object.metadata?.namespace) enqueue(pdb);
      };
      const onScale = { update: (old: KubeObject, now: KubeObject) => (sameJson(old["spec"], now["spec"]) ? undefined : forNamespace(now)), delete: forNamespace };
      replicaSets.addEventHandler(onScale);
      deployments.addEventHandler(onScale);
      statefulSets.addEventHandler(onScale);
      const informers = [budgets, pods, replicaSets, deployments, statefulSets];
      for (const informer of informers) informer.start();
      await Promise.race([Promise.all(informers.map((i) => i.waitForSync())), aborted(signal)]);

      // The finders for the controllers served here: a ReplicaSet's Deployment, else the ReplicaSet; a StatefulSet.
      const find: ScaleFinder = (ref: OwnerReference, namespace: string) => {
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

      const sync = toleratingStaleCache(async (key: string) => {
        const pdb = budgets.cache.get(key) as PodDisruptionBudget | undefined;
        if (pdb === undefined) return undefined;
        const { namespace } = splitKey(key);
        const selected = (pods.cache.list() as Pod[]).filter((pod) => pod.metadata?.namespace === namespace && selectorMatches(pdb.spec?.selector, pod.metadata?.labels));
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
              { status: "False", reason: "SyncFailed", message: error instanceof Error ? error.message : String(error), ...(status.observedGeneration !== undefined ? { observedGeneration: status.observedGeneration } : {}) },
              nowRFC3339(),
            ),
          };
        }
        if (!sameJson(next, pdb.status)) await context.client.update(PDBS, namespace, { ...pdb, status: next }, "status");
        return recheckAt !== undefined ? { requeueAfterMs: Math.max(0, recheckAt - now) + 10 } : undefined;
      });
      const workers = runWorkers(queue, options.workers ?? 2, sync, context.logger);
      await aborted(signal);
      await queue.shutDownWithDrain();
      await workers;
    },
  };
}
