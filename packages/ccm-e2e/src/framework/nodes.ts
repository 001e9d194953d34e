import type { KubeClient } from "@kubekit/client";
import type { NodeRef } from "../driver/types.js";
import { fail } from "./assert.js";
import type { TestContext } from "./context.js";
import { poll } from "./poll.js";
import { NODES, type Node } from "./resources.js";

export function isNodeReady(node: Node): boolean {
  return node.status?.conditions?.some((condition) => condition.type === "Ready" && condition.status === "True") ?? false;
}

/** `e2enode.GetReadySchedulableNodes`: Ready, not cordoned, not excluded from load balancers' workloads. */
export async function readySchedulableNodes(client: KubeClient): Promise<Node[]> {
  const list = await client.list<Node>(NODES);
  return list.items.filter((node) => isNodeReady(node) && node.spec?.unschedulable !== true);
}

/** The address tests reach a node on: an ExternalIP when there is one, else an InternalIP (`e2enode.PickIP`). */
export function nodeAddress(node: Node): string | undefined {
  const addresses = node.status?.addresses ?? [];
  return (addresses.find((a) => a.type === "ExternalIP") ?? addresses.find((a) => a.type === "InternalIP"))?.address;
}

export function nodeRef(node: Node): NodeRef {
  return { name: node.metadata.name, providerID: node.spec?.providerID ?? "", addresses: node.status?.addresses ?? [] };
}

/** `e2enode.CheckReady`: all `count` nodes registered and Ready. */
export async function checkReady(ctx: TestContext, count: number, timeoutMs: number): Promise<Node[]> {
  try {
    return await poll(`${count} nodes to be registered and Ready`, { timeoutMs, signal: ctx.signal }, async (note) => {
      const nodes = (await ctx.client.list<Node>(NODES)).items;
      const ready = nodes.filter(isNodeReady);
      note(`${nodes.length} registered, ${ready.length} Ready`);
      return nodes.length === count && ready.length === count ? nodes : undefined;
    });
  } catch (error) {
    fail((error as Error).message);
  }
}
