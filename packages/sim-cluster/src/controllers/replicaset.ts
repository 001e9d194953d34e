import type { KubeObject } from "@kubekit/generic-controlplane";
import { controllerFor, isNotFound, splitKey, type Controller, type Requeue } from "@kubekit/generic-controlplane/controllers";
import type { Pod } from "../resources/pods.js";
import type { ReplicaSet } from "../resources/replicasets.js";
import { PODS, REPLICA_SETS, REPLICATION_CONTROLLERS } from "../refs.js";
import { selectorMatches, type LabelSelector } from "../selector.js";
import { Expectations } from "./expectations.js";
import { claimObjects } from "./claim.js";
import { controllerRefOf, isPodActive, isPodReady, keyOf, nowRFC3339, ownerReferenceTo, podAvailability } from "./util.js";

/** Pods to delete first when scaling down, as upstream's ActivePods ordering: unscheduled, pending, not ready, newest. */
function deletionRank(pod: Pod): number[] {
  return [
    pod.spec?.nodeName ? 1 : 0,
    pod.status?.phase === "Pending" ? 0 : 1,
    isPodReady(pod) ? 1 : 0,
    -Date.parse(pod.metadata?.creationTimestamp ?? "0"),
  ];
}

function compareRanks(a: number[], b: number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

type Condition = { type?: string; status?: string; reason?: string; message?: string; lastTransitionTime?: string };

/**
 * calculateStatus's ReplicaFailure condition: set (reason FailedCreate, the error as message)
 * when managing the pods failed and it is not there yet, removed once a sync succeeds. The same
 * array comes back when nothing changes.
 */
function replicaFailureConditions(conditions: unknown, failure: { reason: string; error: unknown } | undefined): Condition[] | undefined {
  const list = Array.isArray(conditions) ? (conditions as Condition[]) : undefined;
  const existing = list?.find((c) => c.type === "ReplicaFailure");
  if (failure !== undefined && existing === undefined) {
    const message = failure.error instanceof Error ? failure.error.message : String(failure.error);
    return [...(list ?? []), { type: "ReplicaFailure", status: "True", lastTransitionTime: nowRFC3339(), reason: failure.reason, message }];
  }
  if (failure === undefined && existing !== undefined) {
    const rest = (list ?? []).filter((c) => c !== existing);
    return rest.length > 0 ? rest : undefined;
  }
  return list;
}

/** What differs between ReplicaSets and ReplicationControllers (whose selector is a plain label map). */
const KINDS = {
  ReplicaSet: {
    name: "replicaset",
    resource: REPLICA_SETS,
    apiVersion: "apps/v1",
    selectorOf: (spec: ReplicaSet["spec"]) => spec?.selector,
  },
  ReplicationController: {
    name: "replicationcontroller",
    resource: REPLICATION_CONTROLLERS,
    apiVersion: "v1",
    selectorOf: (spec: ReplicaSet["spec"]) => ({ matchLabels: (spec?.selector ?? {}) as Record<string, string> }) as LabelSelector,
  },
};

/**
 * The ReplicaSet controller (upstream `pkg/controller/replicaset`): keeps `spec.replicas` active
 * pods of each ReplicaSet, created from its template with a controller reference, adopting
 * orphaned pods its selector matches and releasing its pods whose labels no longer match; and
 * reports replicas, ready and available (ready for `minReadySeconds`) counts in its status.
 * With `kind: "ReplicationController"` it is the replication manager, which upstream also runs
 * on the ReplicaSet controller's code.
 */
export function replicaSetController(options: { workers?: number; kind?: keyof typeof KINDS } = {}): Controller {
  const kind = options.kind ?? "ReplicaSet";
  const { name, resource, apiVersion, selectorOf } = KINDS[kind];
  const ownerKey = (pod: KubeObject): string | undefined => {
    const ref = controllerRefOf(pod);
    return ref?.kind === kind ? `${pod.metadata?.namespace ?? ""}/${ref.name}` : undefined;
  };
  return controllerFor<Expectations>(resource)
    .named(name)
    .watches(PODS, {
      handlers: ({ queue, primary: replicaSets, state: expectations }) => {
        const enqueueOwner = (pod: KubeObject) => {
          const key = ownerKey(pod);
          if (key !== undefined) queue.add(key);
          // An orphan: the ReplicaSets whose selector matches it may adopt it (getPodReplicaSets).
          else if (controllerRefOf(pod) === undefined && isPodActive(pod)) {
            for (const rs of replicaSets.cache.list() as ReplicaSet[]) {
              if (rs.metadata?.namespace === pod.metadata?.namespace && selectorMatches(selectorOf(rs.spec), pod.metadata?.labels))
                queue.add(keyOf(rs));
            }
          }
        };
        return {
          add: (pod) => {
            const key = ownerKey(pod);
            if (key !== undefined) expectations.creationObserved(key);
            enqueueOwner(pod);
          },
          update: (old, pod) => {
            // A graceful delete shows first as a deletionTimestamp: count it deleted now, as upstream,
            // rather than wait for the kubelet to remove the pod.
            const key = pod.metadata?.deletionTimestamp === undefined ? undefined : ownerKey(pod);
            if (key !== undefined) expectations.deletionObserved(key, pod.metadata?.name ?? "");
            enqueueOwner(pod);
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
    .withState(() => new Expectations())
    .withOptions({ workers: options.workers ?? 2 })
    .complete(async (key, { context, primary: replicaSets, informer, state: expectations }): Promise<void | Requeue> => {
      const pods = informer(PODS);
      const stored = replicaSets.cache.get(key) as ReplicaSet | undefined;
      const selector = selectorOf(stored?.spec);
      const rs: ReplicaSet | undefined =
        stored === undefined ? undefined : { ...stored, spec: { ...stored.spec, ...(selector !== undefined ? { selector } : {}) } };
      if (rs === undefined || rs.metadata?.deletionTimestamp !== undefined) {
        expectations.forget(key);
        return;
      }
      const { namespace } = splitKey(key);
      const inNamespace = (pods.cache.list() as Pod[]).filter((pod) => pod.metadata?.namespace === namespace && isPodActive(pod));
      const active = await claimObjects(context.client, PODS, rs, kind, inNamespace, { apiVersion });
      const diff = expectations.satisfied(key) ? (rs.spec?.replicas ?? 0) - active.length : 0;
      // A failed create or delete is reported as the ReplicaFailure condition, then retried.
      let manageError: { reason: string; error: unknown } | undefined;
      if (diff > 0) {
        expectations.expectCreations(key, diff);
        const template = rs.spec?.template ?? {};
        const created = await Promise.allSettled(
          Array.from({ length: diff }, () =>
            context.client
              .create(PODS, namespace, {
                apiVersion: "v1",
                kind: "Pod",
                metadata: {
                  generateName: `${rs.metadata?.name ?? ""}-`,
                  namespace: namespace ?? "",
                  labels: { ...(template.metadata?.labels ?? {}) },
                  ...(template.metadata?.annotations ? { annotations: { ...template.metadata.annotations } } : {}),
                  ownerReferences: [ownerReferenceTo(rs, apiVersion, kind)],
                },
                spec: structuredClone(template.spec ?? {}),
              })
              .catch((error: unknown) => {
                expectations.creationObserved(key);
                throw error;
              }),
          ),
        );
        const failed = created.find((r): r is PromiseRejectedResult => r.status === "rejected");
        if (failed !== undefined) manageError = { reason: "FailedCreate", error: failed.reason };
      } else if (diff < 0) {
        const victims = [...active].sort((a, b) => compareRanks(deletionRank(a), deletionRank(b))).slice(0, -diff);
        expectations.expectDeletions(
          key,
          victims.map((pod) => pod.metadata?.name ?? ""),
        );
        await Promise.all(
          victims.map((pod) =>
            context.client.delete(PODS, namespace, pod.metadata?.name ?? "").catch((error: unknown) => {
              // Gone already, or the delete failed: either way no event will come for it.
              expectations.deletionObserved(key, pod.metadata?.name ?? "");
              if (!isNotFound(error)) throw error;
            }),
          ),
        );
      }
      const ready = active.filter(isPodReady).length;
      const now = Date.now();
      let availableInMs: number | undefined;
      let available = 0;
      for (const pod of active) {
        const availability = podAvailability(pod, rs.spec?.minReadySeconds ?? 0, now);
        if (availability.available) available++;
        else if (availability.inMs !== undefined) availableInMs = Math.min(availableInMs ?? Infinity, availability.inMs);
      }
      const status = {
        replicas: active.length,
        fullyLabeledReplicas: active.length,
        readyReplicas: ready,
        availableReplicas: available,
        observedGeneration: rs.metadata?.generation ?? 0,
      };
      const current = rs.status ?? {};
      const conditions = replicaFailureConditions(current.conditions, manageError);
      const changed =
        (Object.keys(status) as Array<keyof typeof status>).some((k) => (current[k] ?? 0) !== status[k]) ||
        conditions !== current.conditions;
      if (changed) {
        try {
          await context.client.patch(
            resource,
            namespace,
            rs.metadata?.name ?? "",
            { status: { ...status, conditions: conditions ?? null } },
            "application/merge-patch+json",
            "status",
          );
        } catch (error) {
          if (!isNotFound(error)) throw error;
        }
      }
      if (manageError !== undefined) throw manageError.error instanceof Error ? manageError.error : new Error(String(manageError.error));
      // A pod ready but not yet for minReadySeconds becomes available without an event.
      if (availableInMs !== undefined) return { requeueAfterMs: availableInMs + 10 };
    });
}
