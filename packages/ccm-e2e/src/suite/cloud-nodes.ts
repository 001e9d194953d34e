import { isNotFound } from "@kubekit/client";
import { expectEqual, fail, skip } from "../framework/assert.js";
import { isNodeReady, nodeRef, readySchedulableNodes } from "../framework/nodes.js";
import { poll } from "../framework/poll.js";
import type { SuiteTest } from "../framework/registry.js";
import { NODES, type Node } from "../framework/resources.js";

/**
 * Ports `[sig-cloud-provider] [Feature:CloudProvider] [Disruptive] Nodes should be deleted on API
 * server if it doesn't exist in the cloud provider` (test/e2e/cloud/nodes.go): delete a random
 * ready node's instance through the driver; the ready node count drops by one within 5 minutes
 * (`CheckReady`), the node list is one shorter and the Node is NotFound.
 */
const nodeDeletion: SuiteTest = {
  name: "[sig-cloud-provider] [Feature:CloudProvider] [Disruptive] Nodes should be deleted on API server if it doesn't exist in the cloud provider",
  upstream: "test/e2e/cloud/nodes.go",
  requires: { capabilities: ["nodeDeletion"], hooks: ["deleteInstance"] },
  async run(ctx) {
    const ready = await readySchedulableNodes(ctx.client);
    if (ready.length === 0) skip("no ready schedulable node to delete");
    const nodeToDelete = ready[Math.floor(Math.random() * ready.length)]!;
    const all = (await ctx.client.list<Node>(NODES)).items;
    const origNodes = all.filter(isNodeReady).length;
    ctx.log(`Original number of ready nodes: ${origNodes}`);

    ctx.step(`deleting the instance of node ${nodeToDelete.metadata.name}`);
    try {
      await ctx.driver.deleteInstance!(nodeRef(nodeToDelete));
    } catch (error) {
      fail(`failed to delete node ${JSON.stringify(nodeToDelete.metadata.name)}, err: ${(error as Error).message}`);
    }
    if (ctx.driver.instanceExists) {
      const exists = await ctx.driver.instanceExists(nodeRef(nodeToDelete));
      if (exists) fail(`the driver deleted the instance of ${nodeToDelete.metadata.name} but the cloud still reports it`);
    }

    let newNodes: Node[] = [];
    try {
      newNodes = await poll(
        `${origNodes - 1} ready nodes (CheckReady)`,
        { timeoutMs: ctx.timeouts.nodeDeleted, signal: ctx.signal },
        async (note) => {
          const nodes = (await ctx.client.list<Node>(NODES)).items;
          const readyNow = nodes.filter(isNodeReady).length;
          note(`${readyNow} ready of ${nodes.length}`);
          return readyNow === origNodes - 1 && !nodes.some((n) => n.metadata.name === nodeToDelete.metadata.name) ? nodes : undefined;
        },
      );
    } catch (error) {
      fail(`CheckReady: ${(error as Error).message}`);
    }
    expectEqual(newNodes.length, all.length - 1, "the number of nodes after the deletion");

    try {
      await ctx.client.get(NODES, undefined, nodeToDelete.metadata.name);
      fail(`node ${JSON.stringify(nodeToDelete.metadata.name)} still exists when it should be deleted`);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
  },
};

export const cloudNodeTests: SuiteTest[] = [nodeDeletion];
