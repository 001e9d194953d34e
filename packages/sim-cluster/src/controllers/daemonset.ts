import type { KubeObject } from "@kubekit/generic-controlplane";
import {
  controllerFor,
  isNotFound,
  splitKey,
  type Controller,
  type ReconcileContext,
  type Requeue,
} from "@kubekit/generic-controlplane/controllers";
import type { ControllerRevision } from "../resources/controller-revisions.js";
import type { DaemonSet, DaemonSetStatus } from "../resources/daemonsets.js";
import type { Node } from "../resources/nodes.js";
import type { Pod } from "../resources/pods.js";
import { CONTROLLER_REVISIONS, DAEMON_SETS, NODES, PODS } from "../refs.js";
import { cleanupHistory, currentRevision } from "./daemonset-history.js";
import {
  byCreationAndPhase,
  CONTROLLER_REVISION_HASH,
  daemonPodFor,
  nodeShouldRunDaemonPod,
  rollingUpdateStep,
  surgeAndUnavailable,
  targetNodeName,
} from "./daemonset-pods.js";
import { claimObjects } from "./claim.js";
import { Expectations } from "./expectations.js";
import { selectorMatches } from "../selector.js";
import { controllerRefOf, isOwnedBy, isPodReady, keyOf, ownerReferenceTo, podAvailability, toleratingStaleCache } from "./util.js";

/** Pods the DaemonSet should create (one node each) and delete in this sync (`podsShouldBeOnNode` over every node). */
function manage(
  ds: DaemonSet,
  nodes: readonly Node[],
  nodeToPods: ReadonlyMap<string, Pod[]>,
  hash: string,
  surge: boolean,
): { createOn: string[]; deletePods: Pod[] } {
  const createOn: string[] = [];
  const deletePods: Pod[] = [];
  for (const node of nodes) {
    const name = node.metadata?.name ?? "";
    const { shouldRun, shouldContinueRunning } = nodeShouldRunDaemonPod(node, ds);
    const pods = nodeToPods.get(name) ?? [];
    if (shouldRun && pods.length === 0) {
      createOn.push(name);
    } else if (shouldContinueRunning) {
      const running: Pod[] = [];
      for (const pod of pods) {
        if (pod.metadata?.deletionTimestamp !== undefined) continue;
        // A failed daemon pod is replaced.
        if (pod.status?.phase === "Failed") deletePods.push(pod);
        else running.push(pod);
      }
      running.sort(byCreationAndPhase);
      if (!surge) {
        // At most one pod a node: the oldest stays.
        deletePods.push(...running.slice(1));
      } else {
        // While surging, the oldest new and the oldest old pod may run side by side.
        let keptNew = false;
        let keptOld = false;
        for (const pod of running) {
          const isNew = pod.metadata?.labels?.[CONTROLLER_REVISION_HASH] === hash;
          if (isNew && !keptNew) keptNew = true;
          else if (!isNew && !keptOld) keptOld = true;
          else deletePods.push(pod);
        }
      }
    } else {
      deletePods.push(...pods.filter((p) => p.metadata?.deletionTimestamp === undefined));
    }
  }
  // A pod for a node that is gone is never scheduled, so no pod GC would remove it.
  const names = new Set(nodes.map((n) => n.metadata?.name));
  for (const [node, pods] of nodeToPods)
    if (!names.has(node)) deletePods.push(...pods.filter((p) => !p.spec?.nodeName && p.metadata?.deletionTimestamp === undefined));
  return { createOn, deletePods };
}

/** `updateDaemonSetStatus`: the counts `kubectl get ds` and `rollout status` read, per node that should run the pod. */
function daemonSetStatus(
  ds: DaemonSet,
  nodes: readonly Node[],
  nodeToPods: ReadonlyMap<string, Pod[]>,
  hash: string,
  now: number,
): { status: DaemonSetStatus; availableInMs?: number } {
  let desired = 0;
  let current = 0;
  let misscheduled = 0;
  let ready = 0;
  let available = 0;
  let updated = 0;
  let availableInMs: number | undefined;
  for (const node of nodes) {
    const { shouldRun } = nodeShouldRunDaemonPod(node, ds);
    const pods = [...(nodeToPods.get(node.metadata?.name ?? "") ?? [])].sort(byCreationAndPhase);
    if (!shouldRun) {
      if (pods.length > 0) misscheduled++;
      continue;
    }
    desired++;
    const pod = pods[0];
    if (pod === undefined) continue;
    current++;
    if (isPodReady(pod)) {
      ready++;
      const availability = podAvailability(pod, ds.spec?.minReadySeconds ?? 0, now);
      if (availability.available) available++;
      else if (availability.inMs !== undefined) availableInMs = Math.min(availableInMs ?? Infinity, availability.inMs);
    }
    if (pod.metadata?.labels?.[CONTROLLER_REVISION_HASH] === hash) updated++;
  }
  return {
    status: {
      desiredNumberScheduled: desired,
      currentNumberScheduled: current,
      numberMisscheduled: misscheduled,
      numberReady: ready,
      numberAvailable: available,
      numberUnavailable: desired - available,
      updatedNumberScheduled: updated,
      observedGeneration: ds.metadata?.generation ?? 0,
    },
    ...(availableInMs !== undefined ? { availableInMs } : {}),
  };
}

/**
 * The DaemonSet controller (upstream `pkg/controller/daemon`): one pod per node that should run
 * it (the template's nodeSelector, node affinity and tolerations against the node's labels and
 * taints), placed by the scheduler through a `metadata.name` node affinity term and carrying the
 * default daemon tolerations; nodes added or removed gain or lose their pod. Each template is
 * kept as a ControllerRevision (`kubectl rollout history/undo daemonset`); RollingUpdate replaces
 * pods within maxUnavailable or maxSurge, OnDelete only when a pod is deleted. The status holds
 * the desired/current/ready/updated/available/misscheduled counts and observedGeneration.
 */
export function daemonSetController(options: { workers?: number } = {}): Controller {
  const ownerKey = (object: KubeObject): string | undefined => {
    const ref = controllerRefOf(object);
    return ref?.kind === "DaemonSet" ? `${object.metadata?.namespace ?? ""}/${ref.name}` : undefined;
  };
  return controllerFor<Expectations>(DAEMON_SETS, { kind: "DaemonSet" })
    .named("daemonset")
    .watches(PODS, {
      handlers: ({ queue, primary: daemonSets, state: expectations }) => {
        const enqueueOwner = (object: KubeObject) => {
          const key = ownerKey(object);
          if (key !== undefined) queue.add(key);
        };
        // An orphaned pod: the DaemonSets whose selector matches it may adopt it (getDaemonSetsForPod).
        const enqueueMatching = (pod: KubeObject) => {
          if (controllerRefOf(pod) !== undefined || pod.metadata?.deletionTimestamp !== undefined) return;
          for (const ds of daemonSets.cache.list() as DaemonSet[]) {
            if (ds.metadata?.namespace === pod.metadata?.namespace && selectorMatches(ds.spec?.selector, pod.metadata?.labels))
              queue.add(keyOf(ds));
          }
        };
        return {
          add: (pod) => {
            const key = ownerKey(pod);
            if (key !== undefined) expectations.creationObserved(key);
            enqueueOwner(pod);
            enqueueMatching(pod);
          },
          update: (old, pod) => {
            enqueueOwner(pod);
            enqueueMatching(pod);
            // Released or re-owned: the former owner counts again.
            const before = ownerKey(old);
            if (before !== undefined && before !== ownerKey(pod)) queue.add(before);
          },
          delete: (pod) => {
            const key = ownerKey(pod);
            if (key !== undefined) expectations.deletionObserved(key, pod.metadata?.name ?? "");
            enqueueOwner(pod);
          },
        };
      },
    })
    .watches(NODES, {
      handlers: ({ queue, primary: daemonSets }) => {
        const enqueueAll = () => {
          for (const ds of daemonSets.cache.list()) queue.add(keyOf(ds));
        };
        return { add: enqueueAll, update: enqueueAll, delete: enqueueAll };
      },
    })
    .owns(CONTROLLER_REVISIONS)
    .withState(() => new Expectations())
    .withOptions({ workers: options.workers ?? 2 })
    .complete(
      toleratingStaleCache(
        async (
          key: string,
          { client, primary: daemonSets, informer, state: expectations }: ReconcileContext<Expectations>,
        ): Promise<void | Requeue> => {
          const pods = informer(PODS);
          const nodes = informer(NODES);
          const revisions = informer(CONTROLLER_REVISIONS);
          const ds = daemonSets.cache.get(key) as DaemonSet | undefined;
          if (ds === undefined || ds.metadata?.deletionTimestamp !== undefined) {
            expectations.forget(key);
            return;
          }
          const { namespace } = splitKey(key);
          const owned = (revisions.cache.list() as ControllerRevision[]).filter(
            (r) => r.metadata?.namespace === namespace && isOwnedBy(r, ds),
          );
          const { hash, old, collisionCount } = await currentRevision(client, ds, owned);
          // Its pods, with matching orphans adopted and pods that no longer match released (claimPods).
          const daemonPods = await claimObjects(
            client,
            PODS,
            ds,
            "DaemonSet",
            (pods.cache.list() as Pod[]).filter((p) => p.metadata?.namespace === namespace),
          );
          const nodeToPods = new Map<string, Pod[]>();
          for (const pod of daemonPods) {
            const node = targetNodeName(pod);
            if (node === undefined) continue;
            const list = nodeToPods.get(node) ?? [];
            list.push(pod);
            nodeToPods.set(node, list);
          }
          const allNodes = nodes.cache.list() as Node[];
          const rolling = ds.spec?.updateStrategy?.type === "RollingUpdate";

          if (expectations.satisfied(key)) {
            const desired = allNodes.filter((n) => nodeShouldRunDaemonPod(n, ds).shouldRun).length;
            const surge = rolling && surgeAndUnavailable(ds, desired).maxSurge > 0;
            let { createOn, deletePods } = manage(ds, allNodes, nodeToPods, hash, surge);
            if (createOn.length === 0 && deletePods.length === 0 && rolling) {
              const shouldRun = (name: string) => {
                const node = allNodes.find((n) => n.metadata?.name === name);
                return node !== undefined && nodeShouldRunDaemonPod(node, ds).shouldRun;
              };
              ({ createOn, deletePods } = rollingUpdateStep(ds, nodeToPods, hash, desired, shouldRun, Date.now()));
            }
            if (createOn.length > 0 || deletePods.length > 0) {
              expectations.expect(
                key,
                createOn.length,
                deletePods.map((p) => p.metadata?.name ?? ""),
              );
              const creates = createOn.map(async (node) => {
                const pod = daemonPodFor(ds, node, hash);
                pod.metadata!.ownerReferences = [ownerReferenceTo(ds, "apps/v1", "DaemonSet")];
                try {
                  await client.create(PODS, namespace, pod);
                } catch (error) {
                  expectations.creationObserved(key);
                  throw error;
                }
              });
              const deletes = deletePods.map(async (pod) => {
                try {
                  await client.delete(PODS, namespace, pod.metadata?.name ?? "");
                } catch (error) {
                  // Gone already, or the delete failed: either way no event will come for it.
                  expectations.deletionObserved(key, pod.metadata?.name ?? "");
                  if (!isNotFound(error)) throw error;
                }
              });
              const results = await Promise.allSettled([...creates, ...deletes]);
              const failed = results.find((r) => r.status === "rejected");
              if (failed !== undefined) throw failed.reason;
            }
          }

          await cleanupHistory(client, ds, old, daemonPods);
          const counted = daemonSetStatus(ds, allNodes, nodeToPods, hash, Date.now());
          const { availableInMs } = counted;
          // Upstream's DaemonSet status has a collision count only once there was a collision.
          const status = {
            ...counted.status,
            ...(collisionCount > 0 || ds.status?.collisionCount !== undefined ? { collisionCount } : {}),
          };
          const before: Record<string, unknown> = ds.status ?? {};
          if (Object.entries(status).some(([k, v]) => (before[k] ?? 0) !== v)) {
            await client.patch(DAEMON_SETS, namespace, ds.metadata?.name ?? "", { status }, "application/merge-patch+json", "status");
          }
          // A pod ready but not yet for minReadySeconds becomes available without an event.
          if (availableInMs !== undefined) return { requeueAfterMs: availableInMs + 10 };
        },
      ),
    );
}
