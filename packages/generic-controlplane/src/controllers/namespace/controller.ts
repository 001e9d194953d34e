import type { KubeObject } from "../../api/types.js";
import { WorkQueue } from "../workqueue.js";
import { aborted, runWorkers, type Controller, type ControllerContext } from "../runtime.js";
import { NAMESPACES, NamespacedResourcesDeleter, ResourcesRemainingError } from "./deleter.js";

export interface NamespaceControllerOptions {
  /** Namespaces synced at once (default 10, kube-controller-manager's `--concurrent-namespace-syncs`). */
  workers?: number;
  /**
   * Wait after a namespace is marked deleted before emptying it (default 5 s, as upstream, so
   * HA API servers observe the deletion and last-moment creations first). A control plane with one
   * API server and one store can use 0.
   */
  deletionGracePeriodMs?: number;
}

/**
 * The namespace controller: empties namespaces being deleted and removes their `kubernetes`
 * finalizer (upstream `pkg/controller/namespace`).
 */
export function namespaceController(options: NamespaceControllerOptions = {}): Controller {
  return {
    name: "namespace",
    async run(context: ControllerContext, signal: AbortSignal) {
      const logger = context.logger;
      const queue = new WorkQueue({ name: "namespace", ...(context.registry !== undefined ? { registry: context.registry } : {}) });
      const deleter = new NamespacedResourcesDeleter({ client: context.client, logger });
      const grace = options.deletionGracePeriodMs ?? 5_000;
      const enqueue = (object: KubeObject) => {
        if (object.metadata?.deletionTimestamp === undefined) return;
        queue.addAfter(object.metadata.name ?? "", grace);
      };
      const informer = context.informers.informerFor(NAMESPACES);
      informer.addEventHandler({ add: enqueue, update: (_old, object) => enqueue(object) });
      informer.start();
      const workers = runWorkers(
        queue,
        options.workers ?? 10,
        async (name) => {
          const started = performance.now();
          try {
            await deleter.delete(name);
          } catch (error) {
            if (error instanceof ResourcesRemainingError) {
              const seconds = Math.floor(error.estimateSeconds / 2) + 1;
              logger({ msg: "content remaining, requeuing", namespace: name, afterSeconds: seconds });
              return { requeueAfterMs: seconds * 1000 };
            }
            throw error;
          } finally {
            logger({ msg: "finished syncing namespace", namespace: name, durationMs: Math.round(performance.now() - started) });
          }
        },
        logger,
      );
      await aborted(signal);
      await queue.shutDownWithDrain();
      await workers;
    },
  };
}
