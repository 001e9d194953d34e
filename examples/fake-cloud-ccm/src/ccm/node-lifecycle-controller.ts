import { isNotFound, type Controller, type ControllerContext } from "@kubekit/generic-controlplane/controllers";
import type { FakeCloud } from "../cloud/fake-cloud.js";
import type { Fault } from "../faults.js";
import { isReady, NODES, type NodeObject } from "./objects.js";
import { untilAborted } from "./until-aborted.js";

/** `node.cloudprovider.kubernetes.io/shutdown`, the taint of a shut-down instance's Node. */
export const SHUTDOWN_TAINT = "node.cloudprovider.kubernetes.io/shutdown";
/** Nodes with this label are left alone (upstream's `node.kubernetes.io/exclude-from-lifecycle-management`). */
const EXCLUDE_FROM_LIFECYCLE = "node.kubernetes.io/exclude-from-lifecycle-management";

/**
 * The cloud node lifecycle controller of k8s.io/cloud-provider: every monitor period, for each
 * Node that is not Ready, ask the cloud whether its instance exists. Gone: delete the Node (event
 * `DeletingNode`). Exists but shut down: taint it `node.cloudprovider.kubernetes.io/shutdown:NoSchedule`.
 * A failed lookup is logged and nothing is deleted. Ready nodes lose the shutdown taint.
 */
export function nodeLifecycleController(cloud: FakeCloud, options: { monitorPeriodMs: number; fault?: Fault }): Controller {
  return {
    name: "cloud-node-lifecycle",
    async run(context: ControllerContext, signal: AbortSignal) {
      const nodes = context.informers.informerFor(NODES);
      nodes.start();
      await Promise.race([nodes.waitForSync(), untilAborted(signal)]);
      const events = context.events("cloud-node-lifecycle-controller");
      while (!signal.aborted) {
        for (const node of nodes.cache.list() as NodeObject[]) {
          try {
            await monitor(context, cloud, node, events, options.fault);
          } catch (error) {
            if (!isNotFound(error))
              context.logger({ level: "warn", msg: "node lifecycle check failed", node: node.metadata.name, error: String(error) });
          }
        }
        await Promise.race([new Promise((resolve) => setTimeout(resolve, options.monitorPeriodMs).unref()), untilAborted(signal)]);
      }
    },
  };
}

async function monitor(
  context: ControllerContext,
  cloud: FakeCloud,
  node: NodeObject,
  events: ReturnType<ControllerContext["events"]>,
  fault?: Fault,
): Promise<void> {
  if (node.metadata.labels?.[EXCLUDE_FROM_LIFECYCLE] !== undefined) return;
  const taints = node.spec?.taints ?? [];
  const tainted = taints.some((t) => t.key === SHUTDOWN_TAINT);
  if (isReady(node)) {
    if (tainted)
      await setTaints(
        context,
        node,
        taints.filter((t) => t.key !== SHUTDOWN_TAINT),
      );
    return;
  }
  const providerID = node.spec?.providerID ?? "";
  let exists: boolean;
  try {
    exists = cloud.instances.exists(providerID);
  } catch (error) {
    if (fault !== "delete-on-lookup-error") {
      context.logger({ level: "warn", msg: "error checking if node exists", node: node.metadata.name, error: String(error) });
      return;
    }
    exists = false;
  }
  if (!exists) {
    const involved = {
      apiVersion: "v1",
      kind: "Node",
      name: node.metadata.name,
      uid: String((node.metadata as { uid?: string }).uid ?? ""),
    };
    await events.event(
      involved,
      "Normal",
      "DeletingNode",
      `Deleting node ${node.metadata.name} because it does not exist in the cloud provider`,
    );
    await context.client.delete(NODES, undefined, node.metadata.name);
    return;
  }
  if (cloud.instances.shutdown(providerID) && !tainted) {
    await setTaints(context, node, [...taints, { key: SHUTDOWN_TAINT, effect: "NoSchedule" }]);
  }
}

async function setTaints(
  context: ControllerContext,
  node: NodeObject,
  taints: NonNullable<NonNullable<NodeObject["spec"]>["taints"]>,
): Promise<void> {
  await context.client.patch(NODES, undefined, node.metadata.name, { spec: { taints } });
}
