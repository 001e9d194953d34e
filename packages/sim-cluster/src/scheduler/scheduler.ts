import type { KubeObject } from "@kubekit/generic-controlplane";
import { isApiError, runWorkers, splitKey, WorkQueue, type Controller, type ControllerContext } from "@kubekit/generic-controlplane/controllers";
import { aborted, isPodActive, keyOf, nowRFC3339 } from "../controllers/util.js";
import type { Node } from "../resources/nodes.js";
import type { Pod } from "../resources/pods.js";
import { NODES, PODS } from "../refs.js";
import { allocatableOf, fitErrorMessage, podRequests, unfitReasons } from "./fit.js";

export const DEFAULT_SCHEDULER_NAME = "default-scheduler";

function wantsScheduling(pod: Pod): boolean {
  return !pod.spec?.nodeName && (pod.spec?.schedulerName ?? DEFAULT_SCHEDULER_NAME) === DEFAULT_SCHEDULER_NAME && isPodActive(pod);
}

/**
 * A scheduler for pods with `schedulerName: default-scheduler`: filters nodes on readiness,
 * cordoning, `nodeSelector`, the pod count and resource requests against allocatable, scores the
 * rest by least requested share (spreading pods), and binds through `pods/binding`. A pod that
 * fits nowhere gets `PodScheduled=False` with reason `Unschedulable` and the scheduler's message,
 * and is retried when nodes or pods change. Not yet: node affinity, taints and tolerations,
 * priority order and preemption, topology spread.
 */
export function scheduler(options: { workers?: number } = {}): Controller {
  return {
    name: "scheduler",
    async run(context: ControllerContext, signal: AbortSignal) {
      const { client } = context;
      const queue = new WorkQueue({ name: "scheduler", ...(context.registry !== undefined ? { registry: context.registry } : {}) });
      const pods = context.informers.informerFor(PODS);
      const nodes = context.informers.informerFor(NODES);
      // Bindings sent whose pods the cache does not show bound yet (the scheduler cache's assumed pods).
      const assumed = new Map<string, { node: string; pod: Pod }>();
      const unschedulable = new Set<string>();
      const retryUnschedulable = () => {
        for (const key of unschedulable) queue.add(key);
      };
      const onPod = (pod: KubeObject) => {
        const key = keyOf(pod);
        if (wantsScheduling(pod)) queue.add(key);
        else {
          assumed.delete(key);
          unschedulable.delete(key);
        }
      };
      pods.addEventHandler({
        add: onPod,
        update: (_old, pod) => onPod(pod),
        delete: (pod) => {
          assumed.delete(keyOf(pod));
          unschedulable.delete(keyOf(pod));
          retryUnschedulable();
        },
      });
      nodes.addEventHandler({ add: retryUnschedulable, update: retryUnschedulable });
      pods.start();
      nodes.start();
      await Promise.race([Promise.all([pods.waitForSync(), nodes.waitForSync()]), aborted(signal)]);

      const usage = () => {
        const used = new Map<string, Map<string, bigint>>();
        const counts = new Map<string, number>();
        const add = (node: string, pod: Pod) => {
          const forNode = used.get(node) ?? new Map<string, bigint>();
          for (const [name, milli] of podRequests(pod)) forNode.set(name, (forNode.get(name) ?? 0n) + milli);
          used.set(node, forNode);
          counts.set(node, (counts.get(node) ?? 0) + 1);
        };
        for (const pod of pods.cache.list() as Pod[]) if (pod.spec?.nodeName && isPodActive(pod)) add(pod.spec.nodeName, pod);
        for (const [key, { node, pod }] of assumed) if (!(pods.cache.get(key) as Pod | undefined)?.spec?.nodeName) add(node, pod);
        return { used, counts };
      };

      const workers = runWorkers(
        queue,
        options.workers ?? 1,
        async (key) => {
          const pod = pods.cache.get(key) as Pod | undefined;
          if (pod === undefined || !wantsScheduling(pod) || assumed.has(key)) return;
          const { used, counts } = usage();
          const all = nodes.cache.list() as Node[];
          const reasons: string[][] = [];
          let best: { node: Node; score: number } | undefined;
          for (const node of all) {
            const name = node.metadata?.name ?? "";
            const why = unfitReasons(pod, node, used.get(name) ?? new Map<string, bigint>(), counts.get(name) ?? 0);
            if (why.length > 0) {
              reasons.push(why);
              continue;
            }
            // NodeResourcesFit LeastAllocated over cpu and memory, the pod count breaking ties.
            const allocatable = allocatableOf(node);
            const requested = new Map(used.get(name) ?? []);
            for (const [r, milli] of podRequests(pod)) requested.set(r, (requested.get(r) ?? 0n) + milli);
            let share = 0;
            for (const r of ["cpu", "memory"]) {
              const cap = allocatable.get(r) ?? 0n;
              share += cap > 0n ? Number(((requested.get(r) ?? 0n) * 10_000n) / cap) / 10_000 : 0;
            }
            const score = share * 1000 + (counts.get(name) ?? 0);
            if (best === undefined || score < best.score || (score === best.score && name < (best.node.metadata?.name ?? ""))) best = { node, score };
          }
          const { namespace, name } = splitKey(key);
          if (best === undefined) {
            unschedulable.add(key);
            const message = fitErrorMessage(all.length, reasons);
            const current = pod.status?.conditions?.find((c) => c.type === "PodScheduled");
            if (current?.status === "False" && current.message === message) return;
            const others = (pod.status?.conditions ?? []).filter((c) => c.type !== "PodScheduled");
            await client.patch(
              PODS,
              namespace,
              name,
              { status: { conditions: [...others, { type: "PodScheduled", status: "False", reason: "Unschedulable", message, lastProbeTime: null, lastTransitionTime: nowRFC3339() }] } },
              "application/merge-patch+json",
              "status",
            );
            return;
          }
          unschedulable.delete(key);
          const nodeName = best.node.metadata?.name ?? "";
          assumed.set(key, { node: nodeName, pod });
          try {
            await client.request("POST", `/api/v1/namespaces/${namespace ?? ""}/pods/${name}/binding`, {
              body: { apiVersion: "v1", kind: "Binding", metadata: { name, namespace }, target: { apiVersion: "v1", kind: "Node", name: nodeName } },
            });
          } catch (error) {
            assumed.delete(key);
            // Bound meanwhile, or gone: nothing to do.
            if (isApiError(error) && (error.code === 409 || error.code === 404)) return;
            throw error;
          }
        },
        context.logger,
      );
      await aborted(signal);
      await queue.shutDownWithDrain();
      await workers;
    },
  };
}
