import type { KubeObject } from "@kubekit/generic-controlplane";
import { runWorkers, splitKey, WorkQueue, type Controller, type ControllerContext } from "@kubekit/generic-controlplane/controllers";
import type { PersistentVolumeClaim } from "../resources/persistent-volumes.js";
import type { Pod } from "../resources/pods.js";
import { PERSISTENT_VOLUME_CLAIMS, PODS } from "../refs.js";
import { PVC_PROTECTION_FINALIZER } from "../storage-protection-admission.js";
import { aborted, keyOf, toleratingStaleCache } from "./util.js";

const MERGE_PATCH = "application/merge-patch+json";

/** The claims a pod's volumes name: its `persistentVolumeClaim` volumes and its generic ephemeral volumes (`<pod>-<volume>`). */
export function claimsOfPod(pod: Pod): string[] {
  const volumes =
    (pod.spec?.["volumes"] as Array<{ name?: string; persistentVolumeClaim?: { claimName?: string }; ephemeral?: unknown }> | undefined) ??
    [];
  return volumes.flatMap((v) => {
    if (v.persistentVolumeClaim?.claimName) return [v.persistentVolumeClaim.claimName];
    return v.ephemeral !== undefined && v.ephemeral !== null ? [`${pod.metadata?.name ?? ""}-${v.name ?? ""}`] : [];
  });
}

/**
 * `podUsesPVC`: a pod uses a claim once it is scheduled (the kubelet sees it and will not start it
 * on a claim being deleted) and until it is terminal, when one of its volumes names the claim.
 */
export function podUsesClaim(pod: Pod, claim: PersistentVolumeClaim): boolean {
  if (!pod.spec?.nodeName || pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed") return false;
  if (pod.metadata?.namespace !== claim.metadata?.namespace) return false;
  return claimsOfPod(pod).includes(claim.metadata?.name ?? "");
}

/**
 * The PVC protection controller (upstream `pkg/controller/volume/pvcprotection`): a claim gets the
 * `kubernetes.io/pvc-protection` finalizer if it lacks it, and a deleted claim loses it once no
 * scheduled, non-terminal pod uses the claim (checked against the cache, then the API server),
 * so a claim deleted while in use stays Terminating until its pods go.
 */
export function pvcProtectionController(): Controller {
  return {
    name: "pvc-protection",
    async run(context: ControllerContext, signal: AbortSignal) {
      const { client } = context;
      const queue = new WorkQueue({ name: "pvcprotection", ...(context.registry !== undefined ? { registry: context.registry } : {}) });
      const claims = context.informers.informerFor(PERSISTENT_VOLUME_CLAIMS);
      const pods = context.informers.informerFor(PODS);
      const enqueue = (claim: KubeObject) => queue.add(keyOf(claim));
      claims.addEventHandler({ add: enqueue, update: (_old, claim) => enqueue(claim) });
      // A pod that goes away or finishes may free its claims.
      const onPod = (pod: KubeObject) => {
        for (const name of claimsOfPod(pod)) queue.add(`${pod.metadata?.namespace ?? ""}/${name}`);
      };
      pods.addEventHandler({
        add: onPod,
        update: (old, pod) => {
          onPod(old);
          onPod(pod);
        },
        delete: onPod,
      });
      const informers = [claims, pods];
      for (const informer of informers) informer.start();
      await Promise.race([Promise.all(informers.map((i) => i.waitForSync())), aborted(signal)]);

      const inUse = async (claim: PersistentVolumeClaim): Promise<boolean> => {
        if ((pods.cache.list() as Pod[]).some((pod) => podUsesClaim(pod, claim))) return true;
        // The cache may not show a pod made a moment ago: ask the server before letting the claim go.
        const live = await client.list<Pod>(PODS, claim.metadata?.namespace);
        return live.items.some((pod) => podUsesClaim(pod, claim));
      };

      const sync = async (key: string) => {
        const claim = claims.cache.get(key) as PersistentVolumeClaim | undefined;
        if (claim === undefined) return;
        const finalizers = claim.metadata?.finalizers ?? [];
        const deleting = claim.metadata?.deletionTimestamp !== undefined;
        let wanted: string[];
        if (!deleting && !finalizers.includes(PVC_PROTECTION_FINALIZER)) wanted = [...finalizers, PVC_PROTECTION_FINALIZER];
        else if (deleting && finalizers.includes(PVC_PROTECTION_FINALIZER) && !(await inUse(claim)))
          wanted = finalizers.filter((f) => f !== PVC_PROTECTION_FINALIZER);
        else return;
        const { namespace, name } = splitKey(key);
        await client.patch(
          PERSISTENT_VOLUME_CLAIMS,
          namespace,
          name,
          { metadata: { finalizers: wanted, resourceVersion: claim.metadata?.resourceVersion } },
          MERGE_PATCH,
        );
      };

      const workers = runWorkers(queue, 1, toleratingStaleCache(sync), context.logger);
      await aborted(signal);
      await queue.shutDownWithDrain();
      await workers;
    },
  };
}
