import type { KubeObject } from "@kubekit/generic-controlplane";
import { isApiError, splitKey, type Controller, type ControllerContext } from "@kubekit/generic-controlplane/controllers";
import { sameJson } from "../controllers/pod-template-hash.js";
import { aborted, isPodActive, keyOf, nowRFC3339, podReference } from "../controllers/util.js";
import type { Pod } from "../resources/pods.js";
import { NODES, PERSISTENT_VOLUME_CLAIMS, PODS, STORAGE_CLASSES } from "../refs.js";
import { fitErrorMessage } from "./fit.js";
import { addToUsage, emptyUsage, podFilter, removeFromUsage, scoreNodes, type NodeUsage } from "./framework.js";
import { NodeList, type NodeSlot } from "./node-list.js";
import { SchedulingQueue } from "./queue.js";
import { volumeBindingReason } from "./volume-binding.js";

export const DEFAULT_SCHEDULER_NAME = "default-scheduler";

function wantsScheduling(pod: Pod): boolean {
  return !pod.spec?.nodeName && (pod.spec?.schedulerName ?? DEFAULT_SCHEDULER_NAME) === DEFAULT_SCHEDULER_NAME && isPodActive(pod);
}

/**
 * A scheduler for pods with `schedulerName: default-scheduler`, after kube-scheduler's default
 * profile: pending pods are attempted highest priority first, then oldest (PrioritySort); nodes
 * are filtered by NodeUnschedulable, TaintToleration (NoSchedule and NoExecute taints, with the
 * not-ready and unreachable taints a node's Ready condition implies), NodeAffinity (nodeSelector
 * and required node affinity) and NodeResourcesFit (the pod count and requests against
 * allocatable); the rest are scored by TaintToleration (PreferNoSchedule), preferred node
 * affinity, LeastAllocated and BalancedAllocation, and the pod is bound through `pods/binding`.
 * A pod that fits nowhere gets `PodScheduled=False` with reason `Unschedulable` and upstream's
 * message, and is attempted again when nodes or pods change. There is no preemption: a pending
 * pod of high priority waits for room rather than evicting pods of lower priority.
 */
/**
 * Whether a bound pod takes room on its node: until it has finished, even while terminating (a
 * deleted pod's containers run until its kubelet stops them), as upstream's NodeInfo counts it.
 */
function occupiesNode(pod: Pod): boolean {
  return pod.status?.phase !== "Succeeded" && pod.status?.phase !== "Failed";
}

/** upstream's minFeasibleNodesToFind and minFeasibleNodesPercentageToFind. */
const MIN_FEASIBLE_NODES_TO_FIND = 100;
const MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5;

/**
 * How many feasible nodes are enough to stop filtering at (upstream's numFeasibleNodesToFind with
 * the default `percentageOfNodesToScore`, adaptive: 50% less 1% per 125 nodes, at least 5% and
 * 100 nodes): every node below 100, 420 of 1,000.
 */
export function numFeasibleNodesToFind(numAllNodes: number): number {
  if (numAllNodes < MIN_FEASIBLE_NODES_TO_FIND) return numAllNodes;
  const percentage = Math.max(MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND, 50 - Math.trunc(numAllNodes / 125));
  return Math.max(MIN_FEASIBLE_NODES_TO_FIND, Math.trunc((numAllNodes * percentage) / 100));
}

/** The backoff queue: 1 s doubling to 10 s, as upstream's podInitialBackoff/podMaxBackoff. */
function backoffMs(failures: number): number {
  return Math.min(10_000, 1000 * 2 ** Math.min(failures - 1, 4));
}

/** Bindings sent and not answered yet at most (upstream binds each pod in its own goroutine). */
const MAX_BINDINGS_IN_FLIGHT = 64;

export function scheduler(): Controller {
  return {
    name: "scheduler",
    async run(context: ControllerContext, signal: AbortSignal) {
      const { client } = context;
      const events = context.events(DEFAULT_SCHEDULER_NAME);
      const pods = context.informers.informerFor(PODS);
      const nodes = context.informers.informerFor(NODES);
      const queue = new SchedulingQueue((key) => {
        const pod = pods.cache.get(key) as Pod | undefined;
        return { priority: pod?.spec?.priority ?? 0, created: Date.parse(pod?.metadata?.creationTimestamp ?? "") || 0 };
      });
      // Bindings sent whose pods the cache does not show bound yet (the scheduler cache's assumed pods).
      const assumed = new Map<string, { node: string; pod: Pod }>();
      // Pods that fit nowhere at their last attempt (unschedulablePods), moved back on cluster events.
      const unschedulable = new Set<string>();
      const retryUnschedulable = () => {
        for (const key of unschedulable) queue.add(key);
        unschedulable.clear();
      };
      // What placed and assumed pods take of each node (the scheduler cache's NodeInfo), kept by
      // pod events: an attempt reads it instead of adding up every pod.
      const usageByNode = new Map<string, NodeUsage>();
      const usageFor = (node: string): NodeUsage => {
        let usage = usageByNode.get(node);
        if (usage === undefined) usageByNode.set(node, (usage = emptyUsage()));
        return usage;
      };
      const counted = new Map<string, { node: string; pod: Pod }>();
      const recount = (key: string) => {
        const pod = pods.cache.get(key) as Pod | undefined;
        let wanted: { node: string; pod: Pod } | undefined;
        if (pod?.spec?.nodeName) {
          if (occupiesNode(pod)) wanted = { node: pod.spec.nodeName, pod };
        } else wanted = assumed.get(key);
        const had = counted.get(key);
        if (had?.node === wanted?.node && had?.pod === wanted?.pod) return;
        if (had !== undefined) removeFromUsage(usageByNode.get(had.node)!, had.pod);
        if (wanted === undefined) {
          counted.delete(key);
          return;
        }
        addToUsage(usageFor(wanted.node), wanted.pod);
        counted.set(key, wanted);
      };
      const onPod = (pod: KubeObject) => {
        const key = keyOf(pod);
        if (wantsScheduling(pod)) {
          if (!unschedulable.has(key)) queue.add(key);
        } else {
          assumed.delete(key);
          unschedulable.delete(key);
          queue.forget(key);
          // A pod that stops counting against its node (finished) makes room.
          if ((pod as Pod).spec?.nodeName && !occupiesNode(pod)) retryUnschedulable();
        }
        recount(key);
      };
      pods.addEventHandler({
        add: onPod,
        update: (old, pod) => {
          // A pending pod changed by its owner (tolerations added, labels changed) gets another
          // attempt at once (upstream's isPodUpdated); its own status updates do not.
          const key = keyOf(pod);
          if (
            unschedulable.has(key) &&
            !sameJson({ spec: old.spec, labels: old.metadata?.labels }, { spec: (pod as Pod).spec, labels: pod.metadata?.labels })
          )
            unschedulable.delete(key);
          onPod(pod);
        },
        delete: (pod) => {
          assumed.delete(keyOf(pod));
          recount(keyOf(pod));
          unschedulable.delete(keyOf(pod));
          queue.forget(keyOf(pod));
          retryUnschedulable();
        },
      });
      const nodeList = new NodeList(usageFor);
      nodes.addEventHandler({
        add: (node) => {
          nodeList.set(node);
          retryUnschedulable();
        },
        update: (_old, node) => {
          nodeList.set(node);
          retryUnschedulable();
        },
        delete: (node) => {
          nodeList.delete(node.metadata?.name ?? "");
          retryUnschedulable();
        },
      });
      // A claim bound or made, or a class added, may let a pod waiting on its claims go.
      const claims = context.informers.informerFor(PERSISTENT_VOLUME_CLAIMS);
      const classes = context.informers.informerFor(STORAGE_CLASSES);
      claims.addEventHandler({ add: retryUnschedulable, update: retryUnschedulable });
      classes.addEventHandler({ add: retryUnschedulable, update: retryUnschedulable });
      const informers = [pods, nodes, claims, classes];
      for (const informer of informers) informer.start();
      await Promise.race([Promise.all(informers.map((i) => i.waitForSync())), aborted(signal)]);

      let nextStartNodeIndex = 0;
      const attempt = async (key: string): Promise<void> => {
        const pod = pods.cache.get(key) as Pod | undefined;
        if (pod === undefined || !wantsScheduling(pod) || assumed.has(key)) return;
        const nodeCount = nodeList.length;
        const reasons: Array<readonly string[]> = [];
        const feasible: NodeSlot[] = [];
        const volumeReason = volumeBindingReason(
          pod,
          (namespace, name) => claims.cache.get(`${namespace}/${name}`),
          (name) => classes.cache.get(name),
        );
        // As upstream, filtering stops once enough nodes fit, and the next attempt starts where this
        // one stopped, so every node gets its turn.
        const enough = numFeasibleNodesToFind(nodeCount);
        const filter = podFilter(pod);
        let examined = 0;
        for (; examined < nodeCount && feasible.length < enough; examined++) {
          // Kept for nodes without pods too: a node's verdict and resource scores are kept with its usage.
          const slot = nodeList.slotAt((nextStartNodeIndex + examined) % nodeCount);
          const why = volumeReason !== undefined ? [volumeReason] : filter(slot.node, slot.usage);
          if (why.length > 0) reasons.push(why);
          else feasible.push(slot);
        }
        if (nodeCount > 0) nextStartNodeIndex = (nextStartNodeIndex + examined) % nodeCount;
        const { namespace, name } = splitKey(key);
        if (feasible.length === 0) {
          unschedulable.add(key);
          // A PreFilter rejection names its reason once, not per node.
          const message =
            volumeReason !== undefined ? `0/${nodeCount} nodes are available: ${volumeReason}.` : fitErrorMessage(nodeCount, reasons);
          // Every failed attempt is reported, as the scheduler's failure handler records it; tests wait for this event.
          void events.event(podReference(pod), "Warning", "FailedScheduling", message);
          const current = pod.status?.conditions?.find((c) => c.type === "PodScheduled");
          if (current?.status === "False" && current.message === message) return;
          const others = (pod.status?.conditions ?? []).filter((c) => c.type !== "PodScheduled");
          await client.patch(
            PODS,
            namespace,
            name,
            {
              status: {
                conditions: [
                  ...others,
                  {
                    type: "PodScheduled",
                    status: "False",
                    reason: "Unschedulable",
                    message,
                    lastProbeTime: null,
                    lastTransitionTime: nowRFC3339(),
                  },
                ],
              },
            },
            "application/merge-patch+json",
            "status",
          );
          return;
        }
        // The highest score wins; ties go to the node with fewer pods, then by name.
        const scores = scoreNodes(pod, feasible);
        let best = 0;
        for (let i = 1; i < feasible.length; i++) {
          const a = feasible[i]!;
          const b = feasible[best]!;
          if (scores[i]! !== scores[best]!) {
            if (scores[i]! > scores[best]!) best = i;
          } else if (a.usage.podCount !== b.usage.podCount) {
            if (a.usage.podCount < b.usage.podCount) best = i;
          } else if (a.name < b.name) best = i;
        }
        const nodeName = feasible[best]!.name;
        assumed.set(key, { node: nodeName, pod });
        recount(key);
        // The binding cycle runs beside the next scheduling cycles, which count this pod as assumed.
        const binding = bind(key, pod, nodeName);
        bindings.add(binding);
        void binding.finally(() => bindings.delete(binding));
      };

      const bindings = new Set<Promise<void>>();
      const bindFailures = new Map<string, number>();
      const bind = async (key: string, pod: Pod, nodeName: string): Promise<void> => {
        const { namespace, name } = splitKey(key);
        try {
          await client.request("POST", `/api/v1/namespaces/${namespace ?? ""}/pods/${name}/binding`, {
            body: {
              apiVersion: "v1",
              kind: "Binding",
              metadata: { name, namespace },
              target: { apiVersion: "v1", kind: "Node", name: nodeName },
            },
          });
        } catch (error) {
          assumed.delete(key);
          recount(key);
          // Bound meanwhile, or gone: nothing to do.
          if (isApiError(error) && (error.code === 409 || error.code === 404)) return;
          if (signal.aborted) return;
          const failures = (bindFailures.get(key) ?? 0) + 1;
          bindFailures.set(key, failures);
          context.logger?.({
            level: "warn",
            msg: "binding failed, retrying",
            key,
            error: error instanceof Error ? error.message : String(error),
          });
          queue.addAfter(key, backoffMs(failures));
          return;
        }
        bindFailures.delete(key);
        void events.event(podReference(pod), "Normal", "Scheduled", `Successfully assigned ${namespace ?? ""}/${name} to ${nodeName}`);
      };

      // One attempt at a time, as kube-scheduler's scheduling cycle: each sees the last one's assumed pod.
      const loop = async () => {
        let failures = 0;
        for (;;) {
          while (bindings.size >= MAX_BINDINGS_IN_FLIGHT) await Promise.race(bindings);
          const key = await queue.pop();
          if (key === undefined) return;
          try {
            await attempt(key);
            failures = 0;
          } catch (error) {
            failures++;
            context.logger?.({
              level: "warn",
              msg: "scheduling attempt failed, retrying",
              key,
              error: error instanceof Error ? error.message : String(error),
            });
            queue.addAfter(key, backoffMs(failures));
          } finally {
            queue.done(key);
          }
        }
      };
      const running = loop();
      await aborted(signal);
      queue.shutDown();
      await running;
      await Promise.allSettled([...bindings]);
    },
  };
}
