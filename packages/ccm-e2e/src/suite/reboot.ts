import type { NetworkDirection, RebootMode } from "../driver/types.js";
import { fail } from "../framework/assert.js";
import type { TestContext } from "../framework/context.js";
import { isNodeReady, nodeRef, readySchedulableNodes } from "../framework/nodes.js";
import { poll } from "../framework/poll.js";
import type { SuiteTest } from "../framework/registry.js";
import { NODES, PODS, type Node, type Pod } from "../framework/resources.js";

const REBOOT = "[sig-cloud-provider-gcp] Reboot [Disruptive] [Feature:Reboot]";
/** Upstream's `NodeReadyInitialTimeout`. */
const NODE_READY_INITIAL_MS = 20_000;
/** How long the network tests cut the node off (upstream: 120 s). */
const NETWORK_DISRUPTION_SECONDS = 120;

type Disruption = { kind: "reboot"; mode: RebootMode } | { kind: "network"; direction: NetworkDirection };

function podReadyOrSucceeded(pod: Pod): boolean {
  if (pod.status?.phase === "Succeeded") return true;
  return pod.status?.phase === "Running" && (pod.status.conditions?.some((c) => c.type === "Ready" && c.status === "True") ?? false);
}

/** kube-system pods on the node without liveness probes, as `rebootNode` checks them. */
async function systemPodsOn(ctx: TestContext, nodeName: string): Promise<Pod[]> {
  const pods = (await ctx.client.list<Pod>(PODS, "kube-system", { fieldSelector: `spec.nodeName=${nodeName}` })).items;
  return pods.filter(
    (pod) => !((pod.spec?.containers as { livenessProbe?: unknown }[] | undefined) ?? []).some((c) => c.livenessProbe !== undefined),
  );
}

async function nodeCondition(ctx: TestContext, name: string, ready: boolean, timeoutMs: number, what: string): Promise<void> {
  try {
    await poll(`node ${name} to be ${ready ? "Ready" : "NotReady"}`, { timeoutMs, signal: ctx.signal }, async () => {
      const node = await ctx.client.get<Node>(NODES, undefined, name);
      return isNodeReady(node) === ready ? true : undefined;
    });
  } catch (error) {
    fail(`Node ${name} failed reboot test: ${what}: ${(error as Error).message}`);
  }
}

async function podsRunningReady(ctx: TestContext, nodeName: string, names: string[], timeoutMs: number): Promise<void> {
  if (names.length === 0) return;
  try {
    await poll(`pods ${names.join(", ")} on ${nodeName} to be running and ready`, { timeoutMs, signal: ctx.signal }, async (note) => {
      const pods = await systemPodsOn(ctx, nodeName);
      const bad = names.filter((name) => !pods.some((pod) => pod.metadata.name === name && podReadyOrSucceeded(pod)));
      note(`not yet: ${bad.join(", ")}`);
      return bad.length === 0 ? true : undefined;
    });
  } catch (error) {
    fail(`Node ${nodeName} failed reboot test: pods not running and ready: ${(error as Error).message}`);
  }
}

/**
 * Beyond upstream: a rebooted machine keeps its Node. One deleted meanwhile (a CCM that takes a
 * failed instance lookup for a gone instance) and registered again by the kubelet has lost what
 * was set on it, and its pods go to the pod garbage collector; upstream sees that through the
 * node's kube-system pods, which a cluster may not run.
 */
async function sameNodeObject(ctx: TestContext, before: Node): Promise<void> {
  const after = await ctx.client.get<Node>(NODES, undefined, before.metadata.name);
  if (after.metadata.uid !== before.metadata.uid) {
    fail(
      `Node ${before.metadata.name} failed reboot test: the Node was deleted and registered again (uid ${String(before.metadata.uid)} -> ${String(after.metadata.uid)})`,
    );
  }
}

/**
 * `rebootNode`, per node and in parallel: Ready at first; the kube-system pods without liveness
 * probes running and ready; the disruption; NotReady within 2 minutes; Ready again within 5; the
 * same Node object (see `sameNodeObject`) and the same pods running and ready again within 5.
 */
async function testReboot(ctx: TestContext, disruption: Disruption): Promise<void> {
  const nodes = await readySchedulableNodes(ctx.client);
  // `GetReadySchedulableNodesOrDie`: a cluster with no node left to reboot fails the test.
  if (nodes.length === 0) fail("there are currently no ready, schedulable nodes in the cluster");
  const failures: string[] = [];
  await Promise.all(
    nodes.map(async (node) => {
      const name = node.metadata.name;
      try {
        await nodeCondition(ctx, name, true, Math.max(NODE_READY_INITIAL_MS, ctx.timeouts.nodeReadyAgain / 15), "not ready at first");
        const podNames = (await systemPodsOn(ctx, name)).map((pod) => pod.metadata.name);
        await podsRunningReady(ctx, name, podNames, ctx.timeouts.podStart);
        ctx.step(
          `${disruption.kind === "reboot" ? `rebooting (${disruption.mode})` : `cutting the network (${disruption.direction})`} node ${name}`,
        );
        if (disruption.kind === "reboot") await ctx.driver.rebootInstance!(nodeRef(node), disruption.mode);
        else
          await ctx.driver.disruptNetwork!(
            nodeRef(node),
            disruption.direction,
            Math.max(1, Math.round(NETWORK_DISRUPTION_SECONDS * (ctx.driver.timeoutScale ?? 1))),
          );
        await nodeCondition(ctx, name, false, ctx.timeouts.nodeNotReady, "did not go NotReady");
        await nodeCondition(ctx, name, true, ctx.timeouts.nodeReadyAgain, "did not become Ready again");
        await sameNodeObject(ctx, node);
        await podsRunningReady(ctx, name, podNames, ctx.timeouts.podStart);
      } catch (error) {
        failures.push((error as Error).message);
      }
    }),
  );
  if (failures.length > 0) fail(`Test failed; at least one node failed to reboot in the time given.\n${failures.join("\n")}`);
}

function reboot(text: string, mode: RebootMode): SuiteTest {
  return {
    name: `${REBOOT} ${text}`,
    upstream: "test/e2e/cloud/gcp/reboot.go",
    requires: { capabilities: ["reboot"], hooks: ["rebootInstance"] },
    run: (ctx) => testReboot(ctx, { kind: "reboot", mode }),
  };
}

function network(text: string, direction: NetworkDirection): SuiteTest {
  return {
    name: `${REBOOT} ${text}`,
    upstream: "test/e2e/cloud/gcp/reboot.go",
    requires: { hooks: ["disruptNetwork"] },
    run: (ctx) => testReboot(ctx, { kind: "network", direction }),
  };
}

/** Ports the six `Reboot` tests of test/e2e/cloud/gcp/reboot.go, with the driver doing what upstream does over SSH. */
export const rebootTests: SuiteTest[] = [
  reboot("each node by ordering clean reboot and ensure they function upon restart", "clean"),
  reboot("each node by ordering unclean reboot and ensure they function upon restart", "hard"),
  reboot("each node by triggering kernel panic and ensure they function upon restart", "kernel-panic"),
  network("each node by switching off the network interface and ensure they function upon switch on", "all"),
  network("each node by dropping all inbound packets for a while and ensure they function afterwards", "inbound"),
  network("each node by dropping all outbound packets for a while and ensure they function afterwards", "outbound"),
];
