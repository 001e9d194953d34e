import { BlockList, isIPv6 } from "node:net";
import { fail } from "../framework/assert.js";
import type { TestContext } from "../framework/context.js";
import { ingressPoint, TestJig } from "../framework/jig.js";
import { readySchedulableNodes } from "../framework/nodes.js";
import { poll } from "../framework/poll.js";
import { testReachableHTTP } from "../framework/reachability.js";
import type { SuiteTest } from "../framework/registry.js";
import type { Service } from "../framework/resources.js";
import { LOAD_BALANCERS } from "./lb-names.js";

/** Private address space, where an internal load balancer's address lies unless the driver says otherwise. */
const PRIVATE_RANGES = ["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7"];

function internalRanges(cidrs: readonly string[]): BlockList {
  const list = new BlockList();
  for (const cidr of cidrs) {
    const [address, prefix] = cidr.split("/") as [string, string];
    list.addSubnet(address, Number(prefix), isIPv6(address) ? "ipv6" : "ipv4");
  }
  return list;
}

function ingressOf(service: Service): string | undefined {
  const ingress = service.status?.loadBalancer?.ingress?.[0];
  return ingress === undefined ? undefined : ingressPoint(service);
}

/**
 * Ports `[sig-network] LoadBalancers [Feature:LoadBalancer] should be able to create an internal
 * type load balancer [Slow]` (test/e2e/network/loadbalancer.go). Upstream's per-cloud
 * `enableAndDisableInternalLB` is the driver's `internalLoadBalancer.annotations`, and its
 * `isInternalEndpoint` the driver's `ingressCIDRs`; the host-network exec pod that curls the
 * internal address is the in-cluster vantage point on a node. The internal LB answers from inside;
 * with the annotations removed the ingress moves out of the internal ranges and answers from outside.
 */
const internalLoadBalancer: SuiteTest = {
  name: `${LOAD_BALANCERS} should be able to create an internal type load balancer [Slow]`,
  upstream: "test/e2e/network/loadbalancer.go",
  requires: { capabilities: ["loadBalancer", "internalLoadBalancer", "serviceTraffic"], hooks: ["internalLoadBalancer"] },
  async run(ctx: TestContext) {
    const request = ctx.driver.internalLoadBalancer!;
    const internal = internalRanges(request.ingressCIDRs ?? PRIVATE_RANGES);
    const isInternalEndpoint = (address: string) => internal.check(address, isIPv6(address) ? "ipv6" : "ipv4");
    const createTimeout = ctx.timeouts.lbCreate;
    const serviceName = "lb-internal";
    const jig = new TestJig(ctx, serviceName);

    ctx.step(`creating pod to be part of service ${serviceName}`);
    await jig.run();
    ctx.step("creating a service with type LoadBalancer and cloud specific Internal-LB annotation enabled");
    await jig.createTCPService((svc) => {
      svc.spec.type = "LoadBalancer";
      svc.metadata.annotations = { ...(svc.metadata.annotations ?? {}), ...request.annotations };
    });
    ctx.defer(() => jig.changeServiceType("ClusterIP", createTimeout));
    let svc = await jig.waitForLoadBalancer(createTimeout);
    const port = svc.spec.ports![0]!.port;
    const internalIP = ingressOf(svc)!;
    if (!isInternalEndpoint(internalIP))
      fail(`Expected the load balancer address ${internalIP} to be internal (in ${(request.ingressCIDRs ?? PRIVATE_RANGES).join(", ")})`);

    ctx.step("hitting the internal load balancer from pod");
    const from = (await readySchedulableNodes(ctx.client))[0];
    if (from === undefined) fail("no ready schedulable node to send from");
    ctx.log(`Waiting up to ${createTimeout} ms for service "${serviceName}"'s internal LB to respond to requests`);
    try {
      await poll(
        `http://${internalIP}:${port}/echo?msg=hello from node ${from.metadata.name}`,
        { timeoutMs: createTimeout, signal: ctx.signal },
        async (note) => {
          const response = await ctx.inCluster.httpGet(internalIP, port, "/echo?msg=hello", {
            timeoutMs: 5000,
            fromNode: from.metadata.name,
          });
          if (response.body.includes("hello")) return true;
          note(`answered ${JSON.stringify(response.body.slice(0, 200))}`);
          return undefined;
        },
      );
    } catch (error) {
      fail(`ginkgo.Failed to hit ILB IP, err: ${(error as Error).message}`);
    }

    ctx.step("switching to external type LoadBalancer");
    await jig.updateService((s) => {
      const annotations = { ...((s.metadata.annotations as Record<string, string> | undefined) ?? {}) };
      for (const key of Object.keys(request.annotations)) delete annotations[key];
      s.metadata.annotations = annotations;
    });
    ctx.log(`Waiting up to ${createTimeout} ms for service "${serviceName}" to have an external LoadBalancer`);
    try {
      svc = await poll(
        `service ${serviceName} to have an external LoadBalancer`,
        { timeoutMs: createTimeout, signal: ctx.signal },
        async (note) => {
          const current = await jig.getService();
          const address = ingressOf(current);
          note(`ingress ${address ?? "none"}`);
          return address !== undefined && !isInternalEndpoint(address) ? current : undefined;
        },
      );
    } catch {
      fail("Loadbalancer IP not changed to external.");
    }
    ctx.step("hitting the external load balancer");
    await testReachableHTTP(ctx.external, ingressOf(svc)!, port, ctx.timeouts.lbLag, ctx.signal);
  },
};

export const internalLoadBalancerTests: SuiteTest[] = [internalLoadBalancer];
