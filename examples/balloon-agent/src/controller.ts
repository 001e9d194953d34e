import {
  type BalloonOwner,
  isBalloonError,
  formatResourceList,
  isOwnedBalloonPod,
  NODE_EFFECTIVE_ANNOTATION,
  NODE_TARGET_ANNOTATION,
  nodeBalloonStatus,
  type NodeBalloonStatus,
  parseResourceList,
  planNodeResize,
  resizeNode,
  type ResizeResult,
  type ResourceList,
  type ShortfallPolicy,
} from "@kubekit/balloon";
import { PATCH_MERGE, type KubeClient, type KubeObject, type Node, type Pod, type ResourceRef } from "@kubekit/client";
import { runWorkers, WorkQueue, type Controller, type ControllerContext, type Requeue } from "@kubekit/generic-controlplane/controllers";
import type { AgentMetrics } from "./metrics.js";
import { FailedResizes, resizeInputs } from "./retry-memo.js";

const NODES: ResourceRef = { group: "", version: "v1", resource: "nodes", namespaced: false };
const PODS: ResourceRef = { group: "", version: "v1", resource: "pods", namespaced: true };
const BY_NODE = "node";

/** An informer's object as the wire type of what it caches (informers keep the JSON as served). */
function typed<T extends KubeObject>(object: KubeObject): T {
  return object as T;
}

function whenAborted(signal: AbortSignal): Promise<void> {
  return signal.aborted ? Promise.resolve() : new Promise((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));
}

export interface BalloonAgentOptions {
  /** The client `resizeNode` patches and reads with (the informers' own, or another on the same identity). */
  readonly client: KubeClient;
  readonly metrics: AgentMetrics;
  /** Whose balloons to resize: the DaemonSet's name and namespace (default `kube-system/node-balloon`). */
  readonly owner?: BalloonOwner;
  /** What to do when a node's target does not fit beside its pods (default `refuse`). */
  readonly onShortfall?: ShortfallPolicy;
  /** How long one resize may wait for the kubelet (default 60 s). */
  readonly resizeTimeoutMs?: number;
  /**
   * When to look again at a node whose resize was deferred or timed out (default 30 s); also the
   * first backoff after a refused or infeasible one, doubling while nothing changes.
   */
  readonly retryAfterMs?: number;
  /** The longest backoff after repeated refused or infeasible resizes of unchanged inputs (default 10 min). */
  readonly maxRetryAfterMs?: number;
  /** Parallel reconciles (default 2): resizes of different nodes wait on different kubelets. */
  readonly workers?: number;
  readonly pollIntervalMs?: number;
}

/**
 * What to do after a resize ended: nothing when applied; for refused and infeasible, wait for the
 * node or its pods to change, backing off exponentially (a put-back patch changes the balloon and
 * would otherwise start the same resize at once); deferred and timed-out resizes are left to the
 * kubelet and looked at again after `retryAfterMs`.
 */
function requeueFor(result: ResizeResult, retryAfterMs: number, failures: FailedResizes, inputs: string): Requeue | undefined {
  switch (result.outcome) {
    case "applied":
      failures.forget(result.node);
      return undefined;
    case "refused":
    case "infeasible":
      return { requeueAfterMs: failures.failed(result.node, inputs) };
    default:
      failures.forget(result.node);
      return { requeueAfterMs: retryAfterMs };
  }
}

/**
 * Keeps every node at the effective size its `balloon.kubekit.dev/target` annotation asks for,
 * by resizing the node's balloon pod with `resizeNode`. Watches nodes (the annotation) and pods (a
 * balloon recreated at its template size by the DaemonSet is resized back; a pod that leaves may
 * make room for a refused upsize). A node already at its target, or with a resize in flight at
 * the planned size, is not patched again, so a restarted agent picks up where it stopped.
 */
export function balloonAgentController(options: BalloonAgentOptions): Controller {
  return {
    name: "balloon",
    async run(context: ControllerContext, signal: AbortSignal) {
      const retryAfterMs = options.retryAfterMs ?? 30_000;
      const queue = new WorkQueue({ name: "balloon", ...(context.registry !== undefined ? { registry: context.registry } : {}) });
      const nodes = context.informers.informerFor(NODES);
      const pods = context.informers.informerFor(PODS);
      pods.cache.addIndexer(BY_NODE, (pod) => {
        const nodeName = typed<Pod>(pod).spec?.nodeName;
        return nodeName ? [nodeName] : [];
      });
      const isBalloon = (pod: Pod) => isOwnedBalloonPod(pod, options.owner);
      const enqueueNode = (node: KubeObject) => queue.add(node.metadata?.name ?? "");
      const enqueuePodNode = (pod: Pod) => {
        if (pod.spec?.nodeName) queue.add(pod.spec.nodeName);
      };
      nodes.addEventHandler({ add: enqueueNode, update: (_old, node) => enqueueNode(node), delete: enqueueNode });
      pods.addEventHandler({
        add: (pod) => {
          if (isBalloon(typed<Pod>(pod))) enqueuePodNode(typed<Pod>(pod));
        },
        update: (old, pod) => {
          const before = typed<Pod>(old);
          const after = typed<Pod>(pod);
          // A balloon's resize conditions or allocation moved, a pod got bound, or a pod finished (room freed).
          if (isBalloon(after) || before.spec?.nodeName !== after.spec?.nodeName || before.status?.phase !== after.status?.phase)
            enqueuePodNode(after);
        },
        delete: (pod) => enqueuePodNode(typed<Pod>(pod)),
      });
      nodes.start();
      pods.start();
      await Promise.race([Promise.all([nodes.waitForSync(), pods.waitForSync()]), whenAborted(signal)]);
      const recorder = context.events("balloon-agent");
      // The annotation last reported invalid per node, so each bad value is reported once, not on every heartbeat.
      const reportedInvalid = new Map<string, string>();
      const failures = new FailedResizes(retryAfterMs, Math.max(retryAfterMs, options.maxRetryAfterMs ?? 600_000));

      /**
       * Writes the effective size on the Node (`balloon.kubekit.dev/effective`) when it changed, for
       * autoscalers and dashboards that read Nodes. Best effort: without the right to patch nodes the
       * metric and `balloon status` still publish it.
       */
      const publishEffective = async (node: Node, status: NodeBalloonStatus): Promise<void> => {
        const effective = formatResourceList(status.effective);
        if (node.metadata?.annotations?.[NODE_EFFECTIVE_ANNOTATION] === effective) return;
        try {
          await options.client.patch(
            NODES,
            undefined,
            status.node,
            { metadata: { annotations: { [NODE_EFFECTIVE_ANNOTATION]: effective } } },
            PATCH_MERGE,
          );
        } catch (error) {
          context.logger({
            level: "warn",
            msg: "cannot publish the effective size on the node",
            node: status.node,
            error: error instanceof Error ? error.message : String(error),
          });
        }
      };

      const reconcile = async (nodeName: string): Promise<void | Requeue> => {
        const cached = nodes.cache.get(nodeName);
        if (cached === undefined) {
          options.metrics.forget(nodeName);
          failures.forget(nodeName);
          return;
        }
        const node = typed<Node>(cached);
        const onNode = pods.cache.byIndex(BY_NODE, nodeName).map((pod) => typed<Pod>(pod));
        const annotation = node.metadata?.annotations?.[NODE_TARGET_ANNOTATION];
        let target: ResourceList | undefined;
        try {
          const status = nodeBalloonStatus(node, onNode, options.owner);
          // The node's size is published whatever its target says; a bad target is reported below.
          let badTarget: Error | undefined;
          try {
            target = annotation === undefined ? undefined : parseResourceList(annotation, NODE_TARGET_ANNOTATION);
          } catch (error) {
            badTarget = error instanceof Error ? error : new Error(String(error));
          }
          options.metrics.observe(status, target);
          await publishEffective(node, status);
          if (badTarget !== undefined) throw badTarget;
          if (target === undefined) return;
          // From the caches: nothing to do when the balloon already has (or is being given) the planned size.
          const plan = planNodeResize({
            node,
            pods: onNode,
            target,
            ...(options.owner ? { owner: options.owner } : {}),
            ...(options.onShortfall ? { onShortfall: options.onShortfall } : {}),
          });
          if (plan.decision === "unchanged" && !plan.inFlight) return;
        } catch (error) {
          if (!isBalloonError(error)) throw error;
          // No balloon on the node yet (or none usable): its creation enqueues the node again.
          if (error.code === "invalid-input") return;
          // The annotation asks for something no resize can give: say so on the Node, and wait for it to change.
          if (reportedInvalid.get(nodeName) === annotation) return;
          reportedInvalid.set(nodeName, annotation ?? "");
          const involved = { apiVersion: "v1", kind: "Node", name: nodeName, ...(node.metadata?.uid ? { uid: node.metadata.uid } : {}) };
          await recorder.event(
            involved,
            "Warning",
            "InvalidBalloonTarget",
            `${NODE_TARGET_ANNOTATION}=${annotation ?? ""}: ${error.message}`,
          );
          return;
        }
        // The same inputs as a resize that was just refused or found infeasible give the same answer.
        const inputs = resizeInputs(node, onNode, options.owner);
        const wait = failures.waitFor(nodeName, inputs);
        if (wait > 0) return { requeueAfterMs: wait };
        const result = await resizeNode(options.client, nodeName, target, {
          timeoutMs: options.resizeTimeoutMs ?? 60_000,
          component: "balloon-agent",
          signal,
          ...(options.owner ? { owner: options.owner } : {}),
          ...(options.onShortfall ? { onShortfall: options.onShortfall } : {}),
          ...(options.pollIntervalMs !== undefined ? { pollIntervalMs: options.pollIntervalMs } : {}),
        });
        options.metrics.resizes.inc({ outcome: result.outcome });
        context.logger({
          msg: "balloon resize",
          node: nodeName,
          outcome: result.outcome,
          patched: result.patched,
          detail: result.outcome === "refused" ? result.reason : result.outcome === "applied" ? undefined : result.message,
        });
        return requeueFor(result, retryAfterMs, failures, inputs);
      };

      const workers = runWorkers(queue, options.workers ?? 2, reconcile, context.logger);
      await whenAborted(signal);
      await queue.shutDownWithDrain();
      await workers;
    },
  };
}
