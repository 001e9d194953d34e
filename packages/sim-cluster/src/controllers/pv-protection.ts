import type { KubeObject } from "@kubekit/generic-controlplane";
import { runWorkers, WorkQueue, type Controller, type ControllerContext } from "@kubekit/generic-controlplane/controllers";
import type { PersistentVolume } from "../resources/persistent-volumes.js";
import { PERSISTENT_VOLUMES } from "../refs.js";
import { PV_PROTECTION_FINALIZER } from "../storage-protection-admission.js";
import { aborted, keyOf, toleratingStaleCache } from "./util.js";

/**
 * The PV protection controller (upstream `pkg/controller/volume/pvprotection`): a volume gets the
 * `kubernetes.io/pv-protection` finalizer if it lacks it, and a deleted volume loses it once its
 * phase is no longer Bound (the binder releases it when its claim is gone).
 */
export function pvProtectionController(): Controller {
  return {
    name: "pv-protection",
    async run(context: ControllerContext, signal: AbortSignal) {
      const { client } = context;
      const queue = new WorkQueue({ name: "pvprotection", ...(context.registry !== undefined ? { registry: context.registry } : {}) });
      const volumes = context.informers.informerFor(PERSISTENT_VOLUMES);
      const enqueue = (pv: KubeObject) => queue.add(keyOf(pv));
      volumes.addEventHandler({ add: enqueue, update: (_old, pv) => enqueue(pv) });
      volumes.start();
      await Promise.race([volumes.waitForSync(), aborted(signal)]);

      const sync = async (name: string) => {
        const pv = volumes.cache.get(name) as PersistentVolume | undefined;
        if (pv === undefined) return;
        const finalizers = pv.metadata?.finalizers ?? [];
        const deleting = pv.metadata?.deletionTimestamp !== undefined;
        let wanted: string[];
        if (!deleting && !finalizers.includes(PV_PROTECTION_FINALIZER)) wanted = [...finalizers, PV_PROTECTION_FINALIZER];
        else if (deleting && finalizers.includes(PV_PROTECTION_FINALIZER) && pv.status?.phase !== "Bound")
          wanted = finalizers.filter((f) => f !== PV_PROTECTION_FINALIZER);
        else return;
        await client.patch(
          PERSISTENT_VOLUMES,
          undefined,
          name,
          { metadata: { finalizers: wanted, resourceVersion: pv.metadata?.resourceVersion } },
          "application/merge-patch+json",
        );
      };

      const workers = runWorkers(queue, 1, toleratingStaleCache(sync), context.logger);
      await aborted(signal);
      await queue.shutDownWithDrain();
      await workers;
    },
  };
}
