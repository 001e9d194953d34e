import { isApiError, isConflict, PATCH_STRATEGIC, type CoreEvent, type KubeClient, type Node, type Pod } from "@kubekit/client";
import { randomBytes } from "node:crypto";
import { isBalloonError } from "./errors.js";
import { BALLOON_CONTAINER } from "./names.js";
import { planNodeResize, type NodeResizePlan } from "./node-plan.js";
import type { BalloonOwner } from "./ownership.js";
import { resourceList, resourceListStrings, type ResourceList } from "./resource-list.js";
import { resizeProgress } from "./resize-progress.js";
import { EVENTS, NODES, PODS } from "./resources.js";
import type { ShortfallPolicy } from "./sizing.js";

export interface ResizeNodeOptions {
  readonly floor?: ResourceList;
  readonly granularity?: ResourceList;
  /** What to do when growing the balloon does not fit now (default `refuse`). */
  readonly onShortfall?: ShortfallPolicy;
  /** Whose balloons to resize (default the `node-balloon` DaemonSet in `kube-system`); other pods are never patched. */
  readonly owner?: BalloonOwner;
  /** How long to wait for the kubelet to apply the resize (default 60 s). */
  readonly timeoutMs?: number;
  /** How often to read the balloon pod while waiting (default 500 ms). */
  readonly pollIntervalMs?: number;
  /** How many times to re-read and re-plan after a 409 Conflict (default 5). */
  readonly conflictRetries?: number;
  /** Emit Events on the Node (default true). */
  readonly events?: boolean;
  /** `source.component` / `reportingComponent` of the Events (default `balloon-resizer`). */
  readonly component?: string;
  readonly signal?: AbortSignal;
}

interface ResultBase {
  readonly node: string;
  /** The plan acted on; absent when the node could not be planned at all. */
  readonly plan?: NodeResizePlan;
  /** Whether this call patched the balloon (a resize already in flight at the planned size is not patched again). */
  readonly patched: boolean;
}

/**
 * How a node resize ended:
 * - `applied`: the kubelet allocated and actuated the planned size (or it already had it);
 * - `deferred`: submitted with `onShortfall: "defer"` and the kubelet holds it `Deferred` until pods leave;
 * - `infeasible`: the kubelet can never apply it (e.g. swap, static managers); the spec was put back;
 * - `refused`: nothing fits without displacing a pod, the kubelet deferred an upsize the plan expected
 *   to fit (the spec was put back), the API server rejected the patch, or the node has no balloon;
 * - `timeout`: still not applied when the deadline passed (left in place).
 */
export type ResizeResult =
  | (ResultBase & { readonly outcome: "applied"; readonly allocated: ResourceList })
  | (ResultBase & { readonly outcome: "deferred" | "infeasible" | "timeout"; readonly message: string })
  | (ResultBase & { readonly outcome: "refused"; readonly reason: string });

/** The server's answer with its HTTP code (`ApiError`'s message is the `Status` message), or the error's own text. */
function apiMessage(error: unknown): string {
  if (isApiError(error)) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

/** Patches the balloon's resources through the `pods/resize` subresource. */
function patchResize(client: KubeClient, ref: { name: string; namespace: string }, patch: object): Promise<Pod> {
  return client.patch<Pod>(PODS, ref.namespace, ref.name, patch, PATCH_STRATEGIC, "resize");
}

function wait(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * The strategic merge patch for the `pods/resize` subresource: the balloon container's new
 * requests (a memory limit that equals the old request moves with it, as `memoryLimit` manifests
 * have), with the read resourceVersion as a precondition so a concurrent change answers 409.
 */
export function balloonResizePatch(pod: Pod, balloon: ResourceList): object {
  const container = pod.spec?.containers.find((c) => c.name === BALLOON_CONTAINER);
  const requests = resourceList(container?.resources?.requests ?? {}, "balloon requests");
  const limits = resourceList(container?.resources?.limits ?? {}, "balloon limits");
  const newLimits: Record<string, string> = {};
  for (const [name, limit] of Object.entries(limits)) {
    const before = requests[name];
    const after = balloon[name];
    if (after && before && limit.equals(before)) newLimits[name] = after.toString();
  }
  return {
    metadata: { resourceVersion: pod.metadata?.resourceVersion },
    spec: {
      containers: [
        {
          name: BALLOON_CONTAINER,
          resources: { requests: resourceListStrings(balloon), ...(Object.keys(newLimits).length > 0 ? { limits: newLimits } : {}) },
        },
      ],
    },
  };
}

class NodeEvents {
  constructor(
    private readonly client: KubeClient,
    private readonly node: Node | undefined,
    private readonly enabled: boolean,
    private readonly component: string,
  ) {}

  /** Best effort, as client-go's recorder: a failed Event never fails the resize. */
  async emit(type: "Normal" | "Warning", reason: string, message: string): Promise<void> {
    const name = this.node?.metadata?.name;
    if (!this.enabled || !name) return;
    const now = new Date();
    const event: CoreEvent = {
      apiVersion: "v1",
      kind: "Event",
      // Events about cluster-scoped objects live in "default", as client-go records them.
      metadata: { name: `${name}.${now.getTime().toString(16)}${randomBytes(3).toString("hex")}`, namespace: "default" },
      involvedObject: { apiVersion: "v1", kind: "Node", name, ...(this.node?.metadata?.uid ? { uid: this.node.metadata.uid } : {}) },
      reason,
      message: message.length > 1024 ? `${message.slice(0, 1021)}...` : message,
      type,
      source: { component: this.component },
      reportingComponent: this.component,
      reportingInstance: "",
      firstTimestamp: now.toISOString(),
      lastTimestamp: now.toISOString(),
      count: 1,
    };
    try {
      await this.client.create(EVENTS, "default", event);
    } catch {
      // Events are advisory; RBAC without events/create only loses them.
    }
  }
}

async function readState(client: KubeClient, nodeName: string): Promise<{ node: Node; pods: Pod[] }> {
  const node = await client.get<Node>(NODES, undefined, nodeName);
  const pods = await client.list<Pod>(PODS, undefined, { fieldSelector: `spec.nodeName=${nodeName}` });
  return { node, pods: pods.items };
}

/**
 * Resizes a node through its balloon pod (KEP-5620): reads the Node and every pod bound to it,
 * plans with `planNodeResize` (so the kubelet's view decides), patches the balloon through
 * `pods/resize` with the read resourceVersion as a precondition (re-reading and re-planning on
 * 409 Conflict), then waits on `PodResizePending`, `PodResizeInProgress` and `allocatedResources`.
 * It never preempts: an upsize that does not fit is refused (or, with `onShortfall: "defer"`,
 * left Deferred), and a resize the kubelet unexpectedly defers or finds infeasible is put back.
 * A resize already in flight at the planned size is waited on, not submitted again. Emits Events on the Node.
 */
export async function resizeNode(
  client: KubeClient,
  nodeName: string,
  target: ResourceList,
  options: ResizeNodeOptions = {},
): Promise<ResizeResult> {
  const timeoutMs = options.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  const retries = options.conflictRetries ?? 5;
  const component = options.component ?? "balloon-resizer";
  for (let attempt = 0; ; attempt++) {
    const { node, pods } = await readState(client, nodeName);
    const events = new NodeEvents(client, node, options.events ?? true, component);
    let plan: NodeResizePlan;
    try {
      plan = planNodeResize({
        node,
        pods,
        target,
        ...(options.floor ? { floor: options.floor } : {}),
        ...(options.granularity ? { granularity: options.granularity } : {}),
        ...(options.onShortfall ? { onShortfall: options.onShortfall } : {}),
        ...(options.owner ? { owner: options.owner } : {}),
      });
    } catch (error) {
      // The node's state rules a resize out (no balloon, a BestEffort one): nothing to patch.
      // Bad arguments (invalid-argument) are the caller's and are thrown.
      if (!isBalloonError(error) || error.code !== "invalid-input") throw error;
      await events.emit("Warning", "BalloonResizeRefused", error.message);
      return { outcome: "refused", node: nodeName, patched: false, reason: error.message };
    }
    if (plan.decision === "refused") {
      await events.emit("Warning", "BalloonResizeRefused", plan.message);
      return { outcome: "refused", node: nodeName, plan, patched: false, reason: plan.message };
    }
    const balloonPod = pods.find(
      (pod) => pod.metadata?.name === plan.balloonRef.name && pod.metadata.namespace === plan.balloonRef.namespace,
    );
    if (!balloonPod) throw new Error(`balloon pod ${plan.balloonRef.name} vanished from the list it was planned from`);

    let submitted = balloonPod;
    let patched = false;
    // Submit only what the spec does not already ask for: a resize in flight at the planned size
    // (an agent restarted mid-resize, a Deferred upsize) is waited on, never submitted twice.
    if (plan.resources.some((r) => !r.desired.equals(r.planned))) {
      try {
        submitted = await patchResize(client, plan.balloonRef, balloonResizePatch(balloonPod, plan.balloon));
        patched = true;
      } catch (error) {
        if (isConflict(error) && attempt < retries) continue;
        const reason = `the API server rejected the resize of ${plan.balloonRef.namespace}/${plan.balloonRef.name}: ${apiMessage(error)}`;
        await events.emit("Warning", "BalloonResizeRefused", reason);
        return { outcome: "refused", node: nodeName, plan, patched: false, reason };
      }
    }
    return await awaitResize(client, submitted, plan, { patched, deadline, events, options, previous: balloonPod });
  }
}

async function awaitResize(
  client: KubeClient,
  submitted: Pod,
  plan: NodeResizePlan,
  context: { patched: boolean; deadline: number; events: NodeEvents; options: ResizeNodeOptions; previous: Pod },
): Promise<ResizeResult> {
  const { patched, deadline, events, options } = context;
  const node = plan.node;
  const planned = Object.fromEntries(plan.resources.map((r) => [r.resource, r.planned]));
  const generation = submitted.metadata?.generation;
  const ref = { name: plan.balloonRef.name, namespace: plan.balloonRef.namespace };
  let pod = submitted;
  for (;;) {
    const progress = resizeProgress(pod, planned, generation);
    if (progress.state === "applied") {
      await events.emit("Normal", "BalloonResized", plan.message);
      return { outcome: "applied", node, plan, patched, allocated: progress.allocated };
    }
    if (progress.state === "deferred" && plan.decision === "defer") {
      await events.emit("Normal", "BalloonResizeDeferred", `${plan.message}; kubelet: ${progress.message}`);
      return { outcome: "deferred", node, plan, patched, message: progress.message };
    }
    if (progress.state === "deferred" || progress.state === "infeasible") {
      // Never leave a resize the caller did not ask to wait for: put the allocated size back.
      const putBack = await revert(client, pod, plan);
      const message = `the kubelet marked the resize ${progress.state === "deferred" ? "Deferred" : "Infeasible"}: ${progress.message}${putBack}`;
      await events.emit("Warning", progress.state === "deferred" ? "BalloonResizeRefused" : "BalloonResizeInfeasible", message);
      return progress.state === "deferred"
        ? { outcome: "refused", node, plan, patched, reason: message }
        : { outcome: "infeasible", node, plan, patched, message };
    }
    const left = deadline - Date.now();
    if (left <= 0) {
      const message = `not applied within ${options.timeoutMs ?? 60_000} ms: ${progress.message}`;
      await events.emit("Warning", "BalloonResizeTimeout", message);
      return { outcome: "timeout", node, plan, patched, message };
    }
    await wait(Math.min(options.pollIntervalMs ?? 500, left), options.signal);
    pod = await client.get<Pod>(PODS, ref.namespace, ref.name, options.signal);
  }
}

/** Patches the balloon's spec back to its allocated requests; says how that went. */
async function revert(client: KubeClient, pod: Pod, plan: NodeResizePlan): Promise<string> {
  const status = pod.status?.containerStatuses?.find((c) => c.name === BALLOON_CONTAINER);
  if (!status?.allocatedResources) return "; the spec was left as is (no allocation reported)";
  const allocated = resourceList(status.allocatedResources, "balloon allocatedResources");
  try {
    await patchResize(client, plan.balloonRef, balloonResizePatch(pod, allocated));
    return "; the spec was put back to the allocated size";
  } catch (error) {
    return `; putting the spec back failed: ${apiMessage(error)}`;
  }
}
