import { fail } from "../framework/assert.js";
import type { TestContext } from "../framework/context.js";
import { AGNHOST_IMAGE } from "../framework/jig.js";
import { checkReady, nodeRef } from "../framework/nodes.js";
import { poll } from "../framework/poll.js";
import type { SuiteTest } from "../framework/registry.js";
import { NODES, PODS, type Node, type Pod } from "../framework/resources.js";

/** Upstream's `NodeReadyInitialTimeout`. */
const NODE_READY_INITIAL_MS = 20_000;

function runningReadyOrSucceeded(pod: Pod): boolean {
  if (pod.status?.phase === "Succeeded") return true;
  return pod.status?.phase === "Running" && (pod.status.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false);
}

/** `e2epod.FilterNonRestartablePods`: mirror pods that do not restart always are not recreated after a restart. */
function restartable(pod: Pod): boolean {
  const annotations = (pod.metadata as { annotations?: Record<string, string> }).annotations ?? {};
  const mirror = Object.hasOwn(annotations, "kubernetes.io/config.mirror");
  return !(mirror && (pod.spec as { restartPolicy?: string } | undefined)?.restartPolicy !== "Always");
}

/**
 * The pods whose survival the test checks: upstream's kube-system pods, plus one pod pinned to each
 * node in the test's namespace, standing in for the per-node system pods a small cluster may not
 * run (a restart that loses the pods of a node then still fails).
 */
async function watchedPods(ctx: TestContext): Promise<Pod[]> {
  const [system, own] = await Promise.all([ctx.client.list<Pod>(PODS, "kube-system"), ctx.client.list<Pod>(PODS, ctx.namespace)]);
  return [...system.items, ...own.items].filter(restartable);
}

async function createPinnedPods(ctx: TestContext, nodes: Node[]): Promise<void> {
  await Promise.all(
    nodes.map((node, index) =>
      ctx.client.create(PODS, ctx.namespace, {
        apiVersion: "v1",
        kind: "Pod",
        metadata: { name: `restart-${index}`, labels: { app: "restart" } },
        spec: {
          nodeName: node.metadata.name,
          restartPolicy: "Always",
          containers: [{ name: "agnhost", image: AGNHOST_IMAGE, args: ["netexec", "--http-port=8080"] }],
        },
      }),
    ),
  );
}

async function podsRunningReady(ctx: TestContext, count: number, timeoutMs: number, when: string): Promise<void> {
  try {
    await poll(`${count} pods running and ready ${when}`, { timeoutMs, signal: ctx.signal }, async (note) => {
      const pods = await watchedPods(ctx);
      const notReady = pods
        .filter((pod) => !runningReadyOrSucceeded(pod))
        .map((pod) => `${String(pod.metadata.namespace)}/${pod.metadata.name}`);
      note(`${pods.length} pods, not running and ready: ${notReady.join(", ") || "none"}`);
      return pods.length === count && notReady.length === 0 ? true : undefined;
    });
  } catch (error) {
    fail(`At least one pod wasn't running and ready ${when}. ${(error as Error).message}`);
  }
}

function bootIDOf(node: Node | undefined): string | undefined {
  const id = (node?.status as { nodeInfo?: { bootID?: string } } | undefined)?.nodeInfo?.bootID;
  return id === "" ? undefined : id;
}

/** `common.RestartNodes`: resets every instance at once and waits for each node's boot ID to change. */
async function restartNodes(ctx: TestContext, nodes: Node[]): Promise<void> {
  await Promise.all(
    nodes.map(async (node) => {
      const name = node.metadata.name;
      const bootID = bootIDOf(node);
      ctx.step(`restarting node ${name}`);
      await ctx.driver.rebootInstance!(nodeRef(node), "hard");
      if (bootID === undefined) return;
      try {
        await poll(`node ${name} boot ID to change`, { timeoutMs: ctx.timeouts.nodeReadyAgain, signal: ctx.signal }, async () => {
          const current = await ctx.client.get<Node>(NODES, undefined, name).catch(() => undefined);
          const now = bootIDOf(current);
          return now !== undefined && now !== bootID ? true : undefined;
        });
      } catch (error) {
        fail(`error waiting for node ${name} boot ID to change: ${(error as Error).message}`);
      }
    }),
  );
}

/**
 * Ports `[sig-cloud-provider-gcp] Restart [Disruptive] [KubeUp] should restart all nodes and
 * ensure all nodes and pods recover` (test/e2e/cloud/gcp/restart.go): every node Ready and the
 * watched pods running and ready; every instance reset through the driver (upstream's `gcloud
 * compute instances reset`); the same number of nodes Ready again, and the same number of pods
 * running and ready again.
 */
const restartAllNodes: SuiteTest = {
  name: "[sig-cloud-provider-gcp] Restart [Disruptive] [KubeUp] should restart all nodes and ensure all nodes and pods recover",
  upstream: "test/e2e/cloud/gcp/restart.go",
  requires: { capabilities: ["reboot"], hooks: ["rebootInstance"] },
  async run(ctx) {
    const numNodes = (await ctx.client.list<Node>(NODES)).items.length;
    ctx.step("ensuring all nodes are ready");
    const originalNodes = await checkReady(ctx, numNodes, Math.max(NODE_READY_INITIAL_MS, ctx.timeouts.nodeReadyAgain / 15));
    ctx.log(`Got the following nodes before restart: ${originalNodes.map((n) => n.metadata.name).join(", ")}`);
    ctx.step("ensuring all pods are running and ready");
    await createPinnedPods(ctx, originalNodes);
    const originalPods = await watchedPods(ctx);
    await podsRunningReady(ctx, originalPods.length, ctx.timeouts.podStart, "at test start");

    ctx.step("restarting all of the nodes");
    await restartNodes(ctx, originalNodes);
    ctx.step("ensuring all nodes are ready after the restart");
    const nodesAfter = await checkReady(ctx, numNodes, ctx.timeouts.nodeReadyAgain);
    ctx.log(`Got the following nodes after restart: ${nodesAfter.map((n) => n.metadata.name).join(", ")}`);
    ctx.step("ensuring the same number of nodes exist after the restart");
    if (originalNodes.length !== nodesAfter.length)
      fail(`Had ${originalNodes.length} nodes before nodes were restarted, but now only have ${nodesAfter.length}`);
    ctx.step("ensuring the same number of pods are running and ready after restart");
    await podsRunningReady(ctx, originalPods.length, ctx.timeouts.podStart, "after the restart");
  },
};

export const restartTests: SuiteTest[] = [restartAllNodes];
