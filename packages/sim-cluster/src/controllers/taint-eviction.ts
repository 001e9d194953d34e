import type { KubeObject } from "@kubekit/generic-controlplane";
import { controllerFor, isNotFound, splitKey, type Controller } from "@kubekit/generic-controlplane/controllers";
import type { Node } from "../resources/nodes.js";
import type { Pod } from "../resources/pods.js";
import { NODES, PODS } from "../refs.js";
import { evictionDelayMs } from "./taint-eviction-time.js";
import { keyOf, nowRFC3339, podReference } from "./util.js";

const MERGE_PATCH = "application/merge-patch+json";

/**
 * The taint eviction controller (kube-controller-manager's `taint-eviction-controller`, the
 * former taint manager): a pod bound to a node with a `NoExecute` taint it does not tolerate is
 * deleted; one that tolerates every such taint for a limited time (`tolerationSeconds`, e.g. the
 * 300 s DefaultTolerationSeconds gives every pod for `not-ready` and `unreachable`) is deleted
 * once the shortest of those times has passed since the controller first saw it tainted, unless
 * the taints go first. Before the delete the pod gets the `DisruptionTarget` condition (reason
 * `DeletionByTaintManager`), and a `TaintManagerEviction` event says why it went.
 */
export function taintEvictionController(options: { workers?: number } = {}): Controller {
  // A node whose NoExecute taints change has each of its pods looked at again.
  const noExecute = (node: KubeObject | undefined) =>
    JSON.stringify(
      ((node as Node | undefined)?.spec?.taints ?? []).filter((t) => t.effect === "NoExecute").map((t) => [t.key, t.value ?? ""]),
    );
  return controllerFor<TaintEvictionState>(PODS, {
    handlers: ({ queue, state: { cancel } }) => {
      const enqueue = (object: KubeObject) => queue.add(keyOf(object));
      return {
        add: enqueue,
        update: (old, pod) => {
          const [before, after] = [old as Pod, pod as Pod];
          const moved =
            before.spec?.nodeName !== after.spec?.nodeName || before.metadata?.deletionTimestamp !== after.metadata?.deletionTimestamp;
          if (moved || JSON.stringify(before.spec?.["tolerations"]) !== JSON.stringify(after.spec?.["tolerations"])) enqueue(pod);
        },
        delete: (pod) => cancel(keyOf(pod)),
      };
    },
  })
    .named("taint-eviction-controller")
    .watches(NODES, {
      handlers: ({ queue, primary: pods }) => {
        const forNode = (node: KubeObject) => {
          for (const pod of pods.cache.list() as Pod[]) if (pod.spec?.nodeName === node.metadata?.name) queue.add(keyOf(pod));
        };
        return { add: forNode, update: (old, node) => (noExecute(old) === noExecute(node) ? undefined : forNode(node)), delete: forNode };
      },
    })
    .withState(({ context, client, primary: pods, onStop }): TaintEvictionState => {
      const events = context.events("taint-eviction-controller");
      /** When each pod was first seen tolerating its node's taints for a limited time (the queue's CreatedAt). */
      const scheduled = new Map<string, { since: number; delay: number; timer: NodeJS.Timeout }>();
      const cancel = (key: string, pod?: Pod) => {
        const entry = scheduled.get(key);
        if (entry === undefined) return;
        clearTimeout(entry.timer);
        scheduled.delete(key);
        if (pod !== undefined) void events.event(podReference(pod), "Normal", "TaintManagerEviction", `Cancelling deletion of Pod ${key}`);
      };
      const evict = async (key: string): Promise<void> => {
        const { namespace, name } = splitKey(key);
        const pod = pods.cache.get(key) as Pod | undefined;
        if (pod === undefined || pod.metadata?.deletionTimestamp !== undefined) return;
        void events.event(podReference(pod), "Normal", "TaintManagerEviction", `Marking for deletion Pod ${key}`);
        try {
          // addConditionAndDeletePod: the DisruptionTarget condition says why the pod is about to go.
          const conditions = (pod.status?.conditions ?? []).filter((c) => c.type !== "DisruptionTarget");
          conditions.push({
            type: "DisruptionTarget",
            status: "True",
            lastTransitionTime: nowRFC3339(),
            reason: "DeletionByTaintManager",
            message: "Taint manager: deleting due to NoExecute taint",
          });
          await client.patch(PODS, namespace, name, { status: { conditions } }, MERGE_PATCH, "status");
          await client.delete(PODS, namespace, name, { preconditions: { uid: pod.metadata?.uid ?? "" } });
        } catch (error) {
          if (!isNotFound(error)) throw error;
        }
      };
      onStop(() => {
        for (const { timer } of scheduled.values()) clearTimeout(timer);
        scheduled.clear();
      });
      return { scheduled, cancel, evict };
    })
    .withOptions({ workers: options.workers ?? 2, queueName: "taint-eviction" })
    .complete((key, { primary: pods, informer, logger, state: { scheduled, cancel, evict } }) => {
      const pod = pods.cache.get(key) as Pod | undefined;
      const node = pod?.spec?.nodeName ? (informer(NODES).cache.get(pod.spec.nodeName) as Node | undefined) : undefined;
      if (pod === undefined || pod.metadata?.deletionTimestamp !== undefined || node === undefined) return cancel(key);
      const delay = evictionDelayMs(pod, node.spec?.taints ?? []);
      if (delay === undefined) return cancel(key, pod);
      if (delay === 0) {
        cancel(key);
        return evict(key);
      }
      const now = Date.now();
      const existing = scheduled.get(key);
      const since = existing?.since ?? now;
      // Counted from when the pod was first seen tolerating the taints for a limited time.
      if (existing?.delay === delay) return;
      if (existing !== undefined) clearTimeout(existing.timer);
      const timer = setTimeout(
        () => {
          scheduled.delete(key);
          evict(key).catch((error: unknown) =>
            logger({ level: "warn", msg: "taint eviction failed", key, error: error instanceof Error ? error.message : String(error) }),
          );
        },
        Math.max(0, since + delay - now),
      );
      scheduled.set(key, { since, delay, timer });
    });
}

interface TaintEvictionState {
  scheduled: Map<string, { since: number; delay: number; timer: NodeJS.Timeout }>;
  cancel: (key: string, pod?: Pod) => void;
  evict: (key: string) => Promise<void>;
}
