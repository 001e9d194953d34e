import type { KubeObject } from "../../api/types.js";
import { controllerFor } from "../builder.js";
import type { Controller } from "../runtime.js";
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
  const grace = options.deletionGracePeriodMs ?? 5_000;
  return controllerFor(NAMESPACES, {
    handlers: ({ queue }) => {
      const enqueue = (object: KubeObject) => {
        if (object.metadata?.deletionTimestamp === undefined) return;
        queue.addAfter(object.metadata.name ?? "", grace);
      };
      return { add: enqueue, update: (_old, object) => enqueue(object) };
    },
  })
    .named("namespace")
    .withState(({ client, logger }) => new NamespacedResourcesDeleter({ client, logger }))
    .withOptions({ workers: options.workers ?? 10 })
    .complete(async (name, { state: deleter, logger }) => {
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
    });
}
