import type { KubeObject } from "@kubekit/generic-controlplane";
import {
  isApiError,
  isNotFound,
  runWorkers,
  splitKey,
  WorkQueue,
  type Controller,
  type ControllerContext,
  type Requeue,
} from "@kubekit/generic-controlplane/controllers";
import type { ControllerRevision } from "../resources/controller-revisions.js";
import type { PersistentVolumeClaim } from "../resources/persistent-volumes.js";
import type { PodTemplateSpec } from "../resources/pod-spec.js";
import type { Pod } from "../resources/pods.js";
import type { StatefulSet } from "../resources/statefulsets.js";
import { CONTROLLER_REVISIONS, PERSISTENT_VOLUME_CLAIMS, PODS, STATEFUL_SETS } from "../refs.js";
import { selectorMatches } from "../selector.js";
import { claimObjects } from "./claim.js";
import { cleanupHistory, currentRevision } from "./daemonset-history.js";
import {
  claimOwnerReferences,
  claimsFor,
  claimVolumes,
  identityLabels,
  identityMatches,
  newStatefulSetPod,
  ordinalOf,
  startOrdinal,
  storageMatches,
} from "./statefulset-identity.js";
import { planStatefulSet, statefulSetStatus, type OrdinalPod } from "./statefulset-plan.js";
import { aborted, controllerRefOf, isOwnedBy, keyOf, toleratingStaleCache } from "./util.js";

const MERGE_PATCH = "application/merge-patch+json";

/** The template a ControllerRevision holds (`ApplyRevision`). */
function templateOf(revision: ControllerRevision | undefined): PodTemplateSpec | undefined {
  const template = (revision?.data as { spec?: { template?: Record<string, unknown> } } | undefined)?.spec?.template;
  if (template === undefined) return undefined;
  const { $patch: _replace, ...rest } = template;
  return rest;
}

/**
 * The StatefulSet controller (upstream `pkg/controller/statefulset`, 1.32): pods `<set>-<n>` for
 * n from `spec.ordinals.start`, each with its identity labels, hostname and the set's service as
 * subdomain, and its claims `<template>-<set>-<n>` created before it (and kept after it, unless the
 * retention policy says otherwise). The order of creations, deletions and updates is
 * `planStatefulSet`'s; templates are kept as ControllerRevisions named in `currentRevision` and
 * `updateRevision`, which the pods' `controller-revision-hash` label names.
 */
export function statefulSetController(options: { workers?: number } = {}): Controller {
  return {
    name: "statefulset",
    async run(context: ControllerContext, signal: AbortSignal) {
      const { client } = context;
      const events = context.events("statefulset-controller");
      const queue = new WorkQueue({ name: "statefulset", ...(context.registry !== undefined ? { registry: context.registry } : {}) });
      const sets = context.informers.informerFor(STATEFUL_SETS);
      const pods = context.informers.informerFor(PODS);
      const revisions = context.informers.informerFor(CONTROLLER_REVISIONS);
      const claims = context.informers.informerFor(PERSISTENT_VOLUME_CLAIMS);
      const enqueue = (set: KubeObject) => queue.add(keyOf(set));
      const enqueueOwner = (object: KubeObject) => {
        const ref = controllerRefOf(object);
        if (ref?.kind === "StatefulSet") queue.add(`${object.metadata?.namespace ?? ""}/${ref.name}`);
      };
      // An orphan the sets whose selector matches it may adopt.
      const enqueueMatching = (pod: KubeObject) => {
        if (controllerRefOf(pod) !== undefined || pod.metadata?.deletionTimestamp !== undefined) return;
        for (const set of sets.cache.list() as StatefulSet[]) {
          if (set.metadata?.namespace === pod.metadata?.namespace && selectorMatches(set.spec?.selector, pod.metadata?.labels))
            enqueue(set);
        }
      };
      sets.addEventHandler({ add: enqueue, update: (_old, set) => enqueue(set), delete: enqueue });
      pods.addEventHandler({
        add: (pod) => {
          enqueueOwner(pod);
          enqueueMatching(pod);
        },
        update: (old, pod) => {
          enqueueOwner(pod);
          enqueueMatching(pod);
          if (controllerRefOf(old)?.uid !== controllerRefOf(pod)?.uid) enqueueOwner(old);
        },
        delete: enqueueOwner,
      });
      revisions.addEventHandler({ add: enqueueOwner, update: (_old, r) => enqueueOwner(r), delete: enqueueOwner });
      // A claim gone (deleted with its pod) lets the set make the pod's claims again.
      claims.addEventHandler({
        delete: (claim) => {
          for (const set of sets.cache.list() as StatefulSet[]) if (set.metadata?.namespace === claim.metadata?.namespace) enqueue(set);
        },
      });
      const informers = [sets, pods, revisions, claims];
      for (const informer of informers) informer.start();
      await Promise.race([Promise.all(informers.map((i) => i.waitForSync())), aborted(signal)]);

      /** `createPersistentVolumeClaims`: the pod's claims that do not exist yet. */
      const createClaims = async (set: StatefulSet, ordinal: number, podName: string) => {
        for (const claim of claimsFor(set, ordinal)) {
          const name = claim.metadata?.name ?? "";
          const cached = claims.cache.get(`${set.metadata?.namespace ?? ""}/${name}`) as PersistentVolumeClaim | undefined;
          if (cached !== undefined) {
            if (cached.metadata?.deletionTimestamp !== undefined) throw new Error(`pvc ${name} is being deleted`);
            continue;
          }
          try {
            await client.create(PERSISTENT_VOLUME_CLAIMS, set.metadata?.namespace, claim);
            void events.event(
              involved(set),
              "Normal",
              "SuccessfulCreate",
              `create Claim ${name} Pod ${podName} in StatefulSet ${set.metadata?.name ?? ""} success`,
            );
          } catch (error) {
            if (!(isApiError(error) && error.code === 409)) throw error;
          }
        }
      };

      /** The retention policy's owner references on the claims of the set's live pods (`ClaimsMatchRetentionPolicy`). */
      const retainClaims = async (set: StatefulSet, members: readonly OrdinalPod[]) => {
        for (const { ordinal, pod } of members) {
          if (pod.metadata?.deletionTimestamp !== undefined) continue;
          for (const wanted of claimsFor(set, ordinal)) {
            const claim = claims.cache.get(`${set.metadata?.namespace ?? ""}/${wanted.metadata?.name ?? ""}`) as
              PersistentVolumeClaim | undefined;
            if (claim === undefined || claim.metadata?.deletionTimestamp !== undefined) continue;
            const refs = claimOwnerReferences(claim, set, pod, ordinal);
            const uids = (list: readonly { uid: string }[]) =>
              list
                .map((r) => r.uid)
                .sort()
                .join(",");
            if (uids(refs) === uids(claim.metadata?.ownerReferences ?? [])) continue;
            await client.patch(
              PERSISTENT_VOLUME_CLAIMS,
              claim.metadata?.namespace,
              claim.metadata?.name ?? "",
              { metadata: { ownerReferences: refs, resourceVersion: claim.metadata?.resourceVersion } },
              MERGE_PATCH,
            );
          }
        }
      };

      /**
       * `UpdateStatefulPod`: the identity labels and claim volumes put back on a pod that lost them
       * (claim volumes with their claims made first); spec.volumes is immutable, so the API refuses
       * that part, as upstream's update is refused, with a FailedUpdate event.
       */
      const repairPod = async (set: StatefulSet, { ordinal, pod }: OrdinalPod) => {
        const name = pod.metadata?.name ?? "";
        const patch: { metadata: Record<string, unknown>; spec?: Record<string, unknown> } = {
          metadata: { resourceVersion: pod.metadata?.resourceVersion },
        };
        if (!identityMatches(set, pod)) patch.metadata["labels"] = identityLabels(set, ordinal);
        try {
          if (!storageMatches(set, pod)) {
            patch.spec = { volumes: claimVolumes(set, pod.spec?.["volumes"] as Array<{ name?: string }> | undefined, ordinal) };
            await createClaims(set, ordinal, name);
          }
          await client.patch(PODS, pod.metadata?.namespace, name, patch, MERGE_PATCH);
        } catch (error) {
          if (isNotFound(error)) return;
          void events.event(
            involved(set),
            "Warning",
            "FailedUpdate",
            `update Pod ${name} in StatefulSet ${set.metadata?.name ?? ""} failed error: ${error instanceof Error ? error.message : String(error)}`,
          );
          throw error;
        }
        void events.event(
          involved(set),
          "Normal",
          "SuccessfulUpdate",
          `update Pod ${name} in StatefulSet ${set.metadata?.name ?? ""} successful`,
        );
      };

      const sync = async (key: string): Promise<void | Requeue> => {
        const set = sets.cache.get(key) as StatefulSet | undefined;
        if (set === undefined || set.metadata?.deletionTimestamp !== undefined) return;
        const { namespace } = splitKey(key);
        const owned = (revisions.cache.list() as ControllerRevision[]).filter(
          (r) => r.metadata?.namespace === namespace && isOwnedBy(r, set),
        );
        const { current: update, old, collisionCount } = await currentRevision(client, set, owned, "StatefulSet");
        const updateName = update.metadata?.name ?? "";
        // The current revision is the one the status names while it exists (getStatefulSetRevisions).
        const current =
          set.status?.currentRevision === updateName
            ? update
            : (owned.find((r) => r.metadata?.name === set.status?.currentRevision) ?? update);
        const currentName = current.metadata?.name ?? "";
        // Only pods named as its members are adopted (getPodsForStatefulSet's isMemberOf filter).
        const candidates = (pods.cache.list() as Pod[]).filter(
          (p) => p.metadata?.namespace === namespace && (ordinalOf(set, p) !== undefined || isOwnedBy(p, set)),
        );
        const claimed = await claimObjects(client, PODS, set, "StatefulSet", candidates);
        const members: OrdinalPod[] = [];
        for (const pod of claimed) {
          const ordinal = ordinalOf(set, pod);
          if (ordinal !== undefined) members.push({ ordinal, pod });
        }
        const now = Date.now();
        const plan = planStatefulSet(set, members, updateName, now);
        const partition = set.spec?.updateStrategy?.type === "RollingUpdate" ? (set.spec.updateStrategy.rollingUpdate?.partition ?? 0) : 0;
        const creates = plan.create.map(async (ordinal) => {
          // Below the partition a pod comes back at the current revision (newVersionedStatefulSetPod).
          const fromCurrent = set.spec?.updateStrategy?.type === "RollingUpdate" && ordinal < startOrdinal(set) + partition;
          const template = (fromCurrent ? templateOf(current) : undefined) ?? set.spec?.template ?? {};
          const pod = newStatefulSetPod(set, template, ordinal, fromCurrent ? currentName : updateName);
          await createClaims(set, ordinal, pod.metadata?.name ?? "");
          try {
            await client.create(PODS, namespace, pod);
          } catch (error) {
            // Made by an earlier sync the cache has not shown yet.
            if (isApiError(error) && error.code === 409) return;
            throw error;
          }
          void events.event(
            involved(set),
            "Normal",
            "SuccessfulCreate",
            `create Pod ${pod.metadata?.name ?? ""} in StatefulSet ${set.metadata?.name ?? ""} successful`,
          );
        });
        const deletes = plan.delete.map(async (pod) => {
          try {
            await client.delete(PODS, namespace, pod.metadata?.name ?? "", { preconditions: { uid: pod.metadata?.uid ?? "" } });
          } catch (error) {
            if (isNotFound(error) || (isApiError(error) && error.code === 409)) return;
            throw error;
          }
          void events.event(
            involved(set),
            "Normal",
            "SuccessfulDelete",
            `delete Pod ${pod.metadata?.name ?? ""} in StatefulSet ${set.metadata?.name ?? ""} successful`,
          );
        });
        const missingClaims = plan.claimsFor.map(({ ordinal, pod }) => createClaims(set, ordinal, pod.metadata?.name ?? ""));
        const repairs = plan.repair.map((member) => repairPod(set, member));
        const results = await Promise.allSettled([...creates, ...deletes, ...missingClaims, ...repairs]);
        await retainClaims(set, members);
        const failed = results.find((r) => r.status === "rejected");
        if (failed !== undefined) throw failed.reason;

        // The plan's deletions count as terminating, its creations as not yet there (as upstream's status of this sync).
        const deleted = new Set(plan.delete);
        const counted = members.map((m) =>
          deleted.has(m.pod)
            ? { ...m, pod: { ...m.pod, metadata: { ...m.pod.metadata, deletionTimestamp: new Date(now).toISOString() } } }
            : m,
        );
        const status = { ...statefulSetStatus(set, counted, currentName, updateName, now), collisionCount };
        const before = set.status ?? {};
        if ((Object.keys(status) as Array<keyof typeof status>).some((k) => (before[k] ?? 0) !== status[k])) {
          await client.patch(STATEFUL_SETS, namespace, set.metadata?.name ?? "", { status }, MERGE_PATCH, "status");
        }
        await cleanupHistory(
          client,
          set,
          old.filter((r) => r !== current),
          claimed,
        );
        if (plan.requeueAfterMs !== undefined) return { requeueAfterMs: plan.requeueAfterMs };
      };

      const workers = runWorkers(queue, options.workers ?? 2, toleratingStaleCache(sync), context.logger);
      await aborted(signal);
      await queue.shutDownWithDrain();
      await workers;
    },
  };
}

function involved(set: StatefulSet): { apiVersion: string; kind: string; namespace: string; name: string; uid: string } {
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    namespace: set.metadata?.namespace ?? "",
    name: set.metadata?.name ?? "",
    uid: set.metadata?.uid ?? "",
  };
}
