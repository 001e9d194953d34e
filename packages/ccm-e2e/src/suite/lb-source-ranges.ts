import { fail, skip } from "../framework/assert.js";
import type { TestContext } from "../framework/context.js";
import { ingressPoint, TestJig } from "../framework/jig.js";
import { readySchedulableNodes } from "../framework/nodes.js";
import { poll } from "../framework/poll.js";
import type { SuiteTest } from "../framework/registry.js";
import type { Node } from "../framework/resources.js";
import { LOAD_BALANCERS } from "./lb-names.js";

/** The address a host-network client on the node sends from. */
function internalIP(node: Node): string {
  const address = node.status?.addresses?.find((a) => a.type === "InternalIP")?.address;
  if (address === undefined) fail(`node ${node.metadata.name} has no InternalIP`);
  return address;
}

/**
 * `checkReachabilityFromPod`, from a client on `node` (upstream's exec pods, here the driver's
 * in-cluster vantage point on that node): polls until the target answers, or until it does not.
 */
async function checkReachabilityFromNode(
  ctx: TestContext,
  expectToBeReachable: boolean,
  timeoutMs: number,
  node: Node,
  target: string,
  port: number,
): Promise<void> {
  const client = ctx.inCluster;
  const from = node.metadata.name;
  try {
    await poll(
      `${target}:${port} to be ${expectToBeReachable ? "" : "NOT "}reachable from node ${from}`,
      { timeoutMs, signal: ctx.signal },
      async (note) => {
        let reachable = false;
        try {
          const response = await client.httpGet(target, port, "/echo?msg=hello", { timeoutMs: 5000, fromNode: from });
          reachable = response.status === 200;
          if (!reachable) note(`status ${response.status}`);
        } catch (error) {
          note((error as Error).message);
        }
        if (reachable && !expectToBeReachable) note("Expect target NOT to be reachable. But it is reachable.");
        return reachable === expectToBeReachable ? true : undefined;
      },
    );
  } catch (error) {
    fail(
      `${target}:${port} ${expectToBeReachable ? "is not reachable" : "is still reachable"} from node ${from} (${internalIP(node)}): ${(error as Error).message}`,
    );
  }
}

/**
 * Ports `[sig-network] LoadBalancers [Feature:LoadBalancer] should only allow access from service
 * loadbalancer source ranges [Slow]` (test/e2e/network/loadbalancer.go). Upstream's accept and
 * drop exec pods become clients on two nodes (the driver's in-cluster vantage point with
 * `fromNode`, sending from the node's InternalIP): only the client in
 * `loadBalancerSourceRanges` gets through; after the range moves to the other client, only that
 * one; with no ranges, both.
 */
const sourceRanges: SuiteTest = {
  name: `${LOAD_BALANCERS} should only allow access from service loadbalancer source ranges [Slow]`,
  upstream: "test/e2e/network/loadbalancer.go",
  requires: { capabilities: ["loadBalancer", "loadBalancerSourceRanges", "serviceTraffic"] },
  async run(ctx) {
    const nodes = await readySchedulableNodes(ctx.client);
    if (nodes.length < 2) skip(`Test requires >= 2 Ready nodes, but there are only ${nodes.length} nodes`);
    const [acceptNode, dropNode] = [nodes[0]!, nodes[1]!];
    const timeout = ctx.timeouts.lbCreate;
    const jig = new TestJig(ctx, "lb-sourcerange");

    ctx.step("creating a pod to be part of the service lb-sourcerange");
    await jig.run();
    ctx.step("creating a LoadBalancer Service with a source range of the accept client");
    await jig.createTCPService((svc) => {
      svc.spec.type = "LoadBalancer";
      svc.spec.loadBalancerSourceRanges = [`${internalIP(acceptNode)}/32`];
    });
    ctx.defer(async () => {
      ctx.step("Clean up loadbalancer service");
      await jig.changeServiceType("ClusterIP", timeout);
    });
    const svc = await jig.waitForLoadBalancer(timeout);

    ctx.step("check reachability from different sources");
    const svcIP = ingressPoint(svc);
    const port = svc.spec.ports![0]!.port;
    await checkReachabilityFromNode(ctx, true, timeout, acceptNode, svcIP, port);
    await checkReachabilityFromNode(ctx, false, timeout, dropNode, svcIP, port);

    ctx.step("Update service LoadBalancerSourceRange and check reachability");
    await jig.updateService((s) => void (s.spec.loadBalancerSourceRanges = [`${internalIP(dropNode)}/32`]));
    await checkReachabilityFromNode(ctx, false, timeout, acceptNode, svcIP, port);
    await checkReachabilityFromNode(ctx, true, timeout, dropNode, svcIP, port);

    ctx.step("Delete LoadBalancerSourceRange field and check reachability");
    await jig.updateService((s) => void delete s.spec.loadBalancerSourceRanges);
    await checkReachabilityFromNode(ctx, true, timeout, acceptNode, svcIP, port);
    await checkReachabilityFromNode(ctx, true, timeout, dropNode, svcIP, port);
  },
};

export const sourceRangeTests: SuiteTest[] = [sourceRanges];
