import type { KubeObject } from "@kubekit/generic-controlplane";
import {
  isApiError,
  isNotFound,
  runWorkers,
  WorkQueue,
  type Controller,
  type ControllerContext,
} from "@kubekit/generic-controlplane/controllers";
import type { PersistentVolume, PersistentVolumeClaim } from "../resources/persistent-volumes.js";
import type { Pod } from "../resources/pods.js";
import type { StorageClass } from "../resources/storage-classes.js";
import { PERSISTENT_VOLUME_CLAIMS, PERSISTENT_VOLUMES, PODS, STORAGE_CLASSES } from "../refs.js";
import { aborted, toleratingStaleCache } from "./util.js";
import {
  BETA_STORAGE_PROVISIONER,
  BIND_COMPLETED,
  BOUND_BY_CONTROLLER,
  claimClass,
  defaultClass,
  findMatchingVolume,
  NO_PROVISIONER,
  podClaimNames,
  provisionedVolume,
  STORAGE_PROVISIONER,
} from "./volume-matching.js";

const MERGE_PATCH = "application/merge-patch+json";
const CLAIM = "claim:";
const VOLUME = "volume:";

/**
 * The PersistentVolume controller's binder (upstream `pkg/controller/volume/persistentvolume`),
 * with the provisioning a CSI external-provisioner would do, in one loop:
 *
 * - a claim without a class gets the default StorageClass (the newest annotated
 *   `storageclass.kubernetes.io/is-default-class: "true"`), as the retroactive default assignment does;
 * - a Pending claim binds to the volume `findMatchingVolume` picks: the volume gets the claim in
 *   `spec.claimRef` and phase Bound, the claim the volume's name, capacity and access modes and
 *   phase Bound;
 * - failing that, a class with a provisioner (other than `kubernetes.io/no-provisioner`)
 *   provisions `pvc-<claim uid>` (annotated `pv.kubernetes.io/provisioned-by`), which then binds;
 *   under `volumeBindingMode: WaitForFirstConsumer` only once a pod using the claim is scheduled;
 * - a volume without a claim is Available; one whose claim is gone is Released, and deleted when
 *   its reclaim policy is Delete (there is no storage behind it to delete).
 *
 * A claim in use or a bound volume that is deleted stays Terminating until the protection
 * controllers (`pvc-protection`, `pv-protection`) remove their finalizers.
 */
export function volumeBinderController(): Controller {
  return {
    name: "persistentvolume-binder",
    async run(context: ControllerContext, signal: AbortSignal) {
      const { client } = context;
      const events = context.events("persistentvolume-controller");
      const queue = new WorkQueue({
        name: "persistentvolume-binder",
        ...(context.registry !== undefined ? { registry: context.registry } : {}),
      });
      const claims = context.informers.informerFor(PERSISTENT_VOLUME_CLAIMS);
      const volumes = context.informers.informerFor(PERSISTENT_VOLUMES);
      const classes = context.informers.informerFor(STORAGE_CLASSES);
      const pods = context.informers.informerFor(PODS);
      const claimKey = (namespace: string | undefined, name: string | undefined) => `${CLAIM}${namespace ?? ""}/${name ?? ""}`;
      const pendingClaims = () => {
        for (const claim of claims.cache.list() as PersistentVolumeClaim[])
          if (!claim.spec?.volumeName || claim.status?.phase !== "Bound")
            queue.add(claimKey(claim.metadata?.namespace, claim.metadata?.name));
      };
      const onClaim = (claim: KubeObject) => queue.add(claimKey(claim.metadata?.namespace, claim.metadata?.name));
      const onVolume = (pv: KubeObject) => {
        queue.add(`${VOLUME}${pv.metadata?.name ?? ""}`);
        const ref = (pv as PersistentVolume).spec?.claimRef;
        if (ref?.name) queue.add(claimKey(ref.namespace, ref.name));
      };
      claims.addEventHandler({
        add: onClaim,
        update: (_old, claim) => onClaim(claim),
        delete: (claim) => {
          for (const pv of volumes.cache.list() as PersistentVolume[]) {
            const ref = pv.spec?.claimRef;
            if (ref?.namespace === claim.metadata?.namespace && ref?.name === claim.metadata?.name)
              queue.add(`${VOLUME}${pv.metadata?.name ?? ""}`);
          }
        },
      });
      volumes.addEventHandler({
        add: (pv) => {
          onVolume(pv);
          pendingClaims();
        },
        update: (_old, pv) => {
          onVolume(pv);
          pendingClaims();
        },
        delete: onVolume,
      });
      classes.addEventHandler({ add: pendingClaims, update: pendingClaims });
      const onPod = (pod: KubeObject) => {
        if ((pod as Pod).spec?.nodeName) for (const name of podClaimNames(pod)) queue.add(claimKey(pod.metadata?.namespace, name));
      };
      pods.addEventHandler({ add: onPod, update: (_old, pod) => onPod(pod) });
      const informers = [claims, volumes, classes, pods];
      for (const informer of informers) informer.start();
      await Promise.race([Promise.all(informers.map((i) => i.waitForSync())), aborted(signal)]);

      const patchStatus = (ref: typeof PERSISTENT_VOLUMES, namespace: string | undefined, name: string, status: Record<string, unknown>) =>
        client.patch(ref, namespace, name, { status }, MERGE_PATCH, "status");

      /** `bind`: the volume to the claim, then the claim to the volume, each spec before its status. */
      const bind = async (pv: PersistentVolume, claim: PersistentVolumeClaim) => {
        const namespace = claim.metadata?.namespace ?? "";
        const name = claim.metadata?.name ?? "";
        const volumeName = pv.metadata?.name ?? "";
        if (pv.spec?.claimRef?.uid !== claim.metadata?.uid) {
          const byController = pv.spec?.claimRef === undefined || pv.spec.claimRef === null;
          await client.patch(
            PERSISTENT_VOLUMES,
            undefined,
            volumeName,
            {
              metadata: {
                resourceVersion: pv.metadata?.resourceVersion,
                ...(byController ? { annotations: { [BOUND_BY_CONTROLLER]: "yes" } } : {}),
              },
              spec: {
                claimRef: {
                  kind: "PersistentVolumeClaim",
                  apiVersion: "v1",
                  namespace,
                  name,
                  uid: claim.metadata?.uid ?? "",
                  resourceVersion: claim.metadata?.resourceVersion ?? "",
                },
              },
            },
            MERGE_PATCH,
          );
        }
        if (pv.status?.phase !== "Bound") await patchStatus(PERSISTENT_VOLUMES, undefined, volumeName, { phase: "Bound" });
        if (claim.spec?.volumeName !== volumeName || claim.metadata?.annotations?.[BIND_COMPLETED] !== "yes") {
          const annotations = { [BIND_COMPLETED]: "yes", ...(claim.spec?.volumeName ? {} : { [BOUND_BY_CONTROLLER]: "yes" }) };
          await client.patch(
            PERSISTENT_VOLUME_CLAIMS,
            namespace,
            name,
            { metadata: { annotations, resourceVersion: claim.metadata?.resourceVersion }, spec: { volumeName } },
            MERGE_PATCH,
          );
        }
        await patchStatus(PERSISTENT_VOLUME_CLAIMS, namespace, name, {
          phase: "Bound",
          accessModes: pv.spec?.accessModes ?? [],
          capacity: pv.spec?.capacity ?? {},
        });
      };

      const syncClaim = async (key: string) => {
        const claim = claims.cache.get(key) as PersistentVolumeClaim | undefined;
        if (claim === undefined || claim.metadata?.deletionTimestamp !== undefined) return;
        const allVolumes = volumes.cache.list() as PersistentVolume[];
        if (claim.spec?.volumeName) {
          const pv = allVolumes.find((v) => v.metadata?.name === claim.spec?.volumeName);
          const ref = pv?.spec?.claimRef;
          // Bound, or pre-bound to a volume that is free or promised to it.
          if (
            pv !== undefined &&
            (ref === undefined ||
              ref === null ||
              (ref.name === claim.metadata?.name &&
                ref.namespace === claim.metadata?.namespace &&
                (!ref.uid || ref.uid === claim.metadata?.uid)))
          ) {
            if (claim.status?.phase !== "Bound" || pv.status?.phase !== "Bound" || ref?.uid !== claim.metadata?.uid) await bind(pv, claim);
          }
          return;
        }
        const allClasses = classes.cache.list() as StorageClass[];
        if (claim.spec?.storageClassName === undefined || claim.spec.storageClassName === null) {
          const chosen = defaultClass(allClasses);
          if (chosen !== undefined) {
            await client.patch(
              PERSISTENT_VOLUME_CLAIMS,
              claim.metadata?.namespace,
              claim.metadata?.name ?? "",
              { metadata: { resourceVersion: claim.metadata?.resourceVersion }, spec: { storageClassName: chosen.metadata?.name ?? "" } },
              MERGE_PATCH,
            );
            return;
          }
        }
        const storageClass = allClasses.find((c) => c.metadata?.name === claimClass(claim) && claimClass(claim) !== "");
        if (storageClass?.volumeBindingMode === "WaitForFirstConsumer") {
          const consumer = (pods.cache.list() as Pod[]).find(
            (p) =>
              p.metadata?.namespace === claim.metadata?.namespace &&
              p.spec?.nodeName &&
              podClaimNames(p).includes(claim.metadata?.name ?? ""),
          );
          if (consumer === undefined) return;
        }
        const match = findMatchingVolume(claim, allVolumes);
        if (match !== undefined) return bind(match, claim);
        const provisioner = storageClass?.provisioner;
        if (storageClass === undefined || provisioner === undefined || provisioner === NO_PROVISIONER) return;
        const pv = provisionedVolume(claim, storageClass);
        if (allVolumes.some((v) => v.metadata?.name === pv.metadata?.name)) return;
        if (claim.metadata?.annotations?.[STORAGE_PROVISIONER] !== provisioner) {
          await client.patch(
            PERSISTENT_VOLUME_CLAIMS,
            claim.metadata?.namespace,
            claim.metadata?.name ?? "",
            { metadata: { annotations: { [STORAGE_PROVISIONER]: provisioner, [BETA_STORAGE_PROVISIONER]: provisioner } } },
            MERGE_PATCH,
          );
        }
        try {
          await client.create(PERSISTENT_VOLUMES, undefined, pv);
        } catch (error) {
          if (!(isApiError(error) && error.code === 409)) throw error;
          return;
        }
        void events.event(
          {
            apiVersion: "v1",
            kind: "PersistentVolumeClaim",
            namespace: claim.metadata?.namespace ?? "",
            name: claim.metadata?.name ?? "",
            uid: claim.metadata?.uid ?? "",
          },
          "Normal",
          "ProvisioningSucceeded",
          `Successfully provisioned volume ${pv.metadata?.name ?? ""}`,
        );
      };

      const syncVolume = async (name: string) => {
        const pv = volumes.cache.get(name) as PersistentVolume | undefined;
        // A volume being deleted is still released when its claim goes, which lets its protection finalizer go.
        if (pv === undefined) return;
        const deleting = pv.metadata?.deletionTimestamp !== undefined;
        const ref = pv.spec?.claimRef;
        if (ref === undefined || ref === null) {
          if (pv.status?.phase !== "Available") await patchStatus(PERSISTENT_VOLUMES, undefined, name, { phase: "Available" });
          return;
        }
        let claim = claims.cache.get(`${ref.namespace ?? ""}/${ref.name ?? ""}`) as PersistentVolumeClaim | undefined;
        // The cache may not show a claim made a moment ago: ask before releasing its volume.
        if (claim === undefined && ref.uid) {
          try {
            claim = await client.get<PersistentVolumeClaim>(PERSISTENT_VOLUME_CLAIMS, ref.namespace, ref.name ?? "");
          } catch (error) {
            if (!isNotFound(error)) throw error;
          }
        }
        if (!ref.uid) {
          if (pv.status?.phase !== "Available") await patchStatus(PERSISTENT_VOLUMES, undefined, name, { phase: "Available" });
          return;
        }
        if (claim !== undefined && claim.metadata?.uid === ref.uid) {
          if (claim.spec?.volumeName === name && pv.status?.phase !== "Bound")
            await patchStatus(PERSISTENT_VOLUMES, undefined, name, { phase: "Bound" });
          return;
        }
        // The claim is gone: the volume is Released, then reclaimed.
        if (pv.status?.phase !== "Released") await patchStatus(PERSISTENT_VOLUMES, undefined, name, { phase: "Released" });
        if (pv.spec?.persistentVolumeReclaimPolicy === "Delete" && !deleting) {
          await client.delete(PERSISTENT_VOLUMES, undefined, name).catch((error: unknown) => {
            if (!isNotFound(error)) throw error;
          });
        }
      };

      const sync = async (key: string) => {
        if (key.startsWith(CLAIM)) await syncClaim(key.slice(CLAIM.length));
        else if (key.startsWith(VOLUME)) await syncVolume(key.slice(VOLUME.length));
      };
      // One worker: two claims must not both take the same volume from a stale cache.
      const workers = runWorkers(queue, 1, toleratingStaleCache(sync), context.logger);
      await aborted(signal);
      await queue.shutDownWithDrain();
      await workers;
    },
  };
}
