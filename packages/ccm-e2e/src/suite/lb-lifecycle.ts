import { fail } from "../framework/assert.js";
import { expectCloudLoadBalancer, portsMatch } from "../framework/cloud-truth.js";
import { ingressPoint, setServiceType, TestJig } from "../framework/jig.js";
import { testNotReachableHTTP, testNotReachableUDP, testReachableHTTP, testReachableUDP } from "../framework/reachability.js";
import type { SuiteTest } from "../framework/registry.js";
import { checkServiceReachability } from "../framework/service-reachability.js";
import { LOAD_BALANCERS } from "./lb-names.js";
import { waitForServiceDeletedWithFinalizer, waitForServiceUpdatedWithFinalizer } from "../framework/finalizer.js";

/**
 * Ports `[sig-network] LoadBalancers [Feature:LoadBalancer] [TCP] should be able to change the
 * type and ports of the service [Slow]` (test/e2e/network/loadbalancer.go), and its UDP entry,
 * which upstream keeps commented out. One deliberately monolithic LB lifecycle:
 * ClusterIP → NodePort → LoadBalancer (NodePort kept) → new NodePort (ingress kept) → port+1
 * (NodePort and ingress kept) → 0 backends (not reachable) → 1 backend → ClusterIP (NodePort
 * cleared, ingress gone, the old ingress closed).
 */
function changeTypeAndPorts(protocol: "TCP" | "UDP"): SuiteTest {
  return {
    name: `${LOAD_BALANCERS} [${protocol}] should be able to change the type and ports of the service [Slow]`,
    upstream: "test/e2e/network/loadbalancer.go",
    requires: { capabilities: protocol === "UDP" ? ["loadBalancer", "udp", "serviceTraffic"] : ["loadBalancer", "serviceTraffic"] },
    async run(ctx) {
      const reachable = protocol === "TCP" ? testReachableHTTP : testReachableUDP;
      const notReachable = protocol === "TCP" ? testNotReachableHTTP : testNotReachableUDP;
      const lag = ctx.timeouts.lbLag;
      const jig = new TestJig(ctx, `mutability-test-${protocol.toLowerCase()}`);

      ctx.step(`[${protocol}] creating service ${jig.name} with type=ClusterIP in namespace ${ctx.namespace}`);
      let svc = protocol === "TCP" ? await jig.createTCPService() : await jig.createUDPService();
      let svcPort = svc.spec.ports![0]!.port;
      ctx.step(`[${protocol}] creating a deployment to be part of the service ${jig.name}`);
      await jig.run();
      await checkServiceReachability(ctx, svc);

      ctx.step(`[${protocol}] changing the service to type=NodePort`);
      svc = await jig.updateService((s) => void (s.spec.type = "NodePort"));
      let nodePort = svc.spec.ports![0]!.nodePort!;
      await checkServiceReachability(ctx, svc);

      ctx.step(`[${protocol}] changing the service to type=LoadBalancer`);
      await jig.updateService((s) => void (s.spec.type = "LoadBalancer"));
      ctx.step(`[${protocol}] waiting for the service to have a load balancer`);
      svc = await jig.waitForLoadBalancer(ctx.timeouts.lbCreate);
      if (svc.spec.ports![0]!.nodePort !== nodePort)
        fail(`[${protocol}] Spec.Ports[0].NodePort changed (${nodePort} -> ${svc.spec.ports![0]!.nodePort}) when not expected`);
      const ingressIP = ingressPoint(svc);
      ctx.log(`[${protocol}] load balancer: ${ingressIP}`);
      await checkServiceReachability(ctx, svc);
      ctx.step(`[${protocol}] hitting the service's LoadBalancer`);
      await reachable(ctx.external, ingressIP, svcPort, lag, ctx.signal);
      await expectCloudLoadBalancer(ctx, svc, "forwards the service's port", portsMatch(svc));

      ctx.step(`[${protocol}] changing the service's NodePort`);
      svc = await jig.changeServiceNodePort(nodePort);
      const nodePortOld = nodePort;
      nodePort = svc.spec.ports![0]!.nodePort!;
      if (nodePort === nodePortOld) fail(`[${protocol}] Spec.Ports[0].NodePort (${nodePort}) did not change`);
      if (ingressPoint(svc) !== ingressIP)
        fail(`[${protocol}] Status.LoadBalancer.Ingress changed (${ingressIP} -> ${ingressPoint(svc)}) when not expected`);
      ctx.step(`[${protocol}] hitting the service's LoadBalancer`);
      await expectCloudLoadBalancer(ctx, svc, "forwards to the new NodePort", portsMatch(svc));
      await reachable(ctx.external, ingressIP, svcPort, lag, ctx.signal);

      ctx.step(`[${protocol}] changing the service's port`);
      svc = await jig.updateService((s) => void s.spec.ports![0]!.port++);
      const svcPortOld = svcPort;
      svcPort = svc.spec.ports![0]!.port;
      if (svcPort === svcPortOld) fail(`[${protocol}] Spec.Ports[0].Port (${svcPort}) did not change`);
      if (svc.spec.ports![0]!.nodePort !== nodePort) fail(`[${protocol}] Spec.Ports[0].NodePort (${svc.spec.ports![0]!.nodePort}) changed`);
      if (ingressPoint(svc) !== ingressIP)
        fail(`[${protocol}] Status.LoadBalancer.Ingress changed (${ingressIP} -> ${ingressPoint(svc)}) when not expected`);
      ctx.step(`[${protocol}] hitting the service's LoadBalancer`);
      await expectCloudLoadBalancer(ctx, svc, "listens on the new port", portsMatch(svc));
      await reachable(ctx.external, ingressIP, svcPort, lag, ctx.signal);

      ctx.step("Scaling the pods to 0");
      await jig.scale(0);
      ctx.step(`[${protocol}] hitting the service's LoadBalancer with no backends, no answer expected`);
      await notReachable(ctx.external, ingressIP, svcPort, lag, ctx.signal);

      ctx.step("Scaling the pods to 1");
      await jig.scale(1);
      ctx.step(`[${protocol}] hitting the service's LoadBalancer`);
      await reachable(ctx.external, ingressIP, svcPort, lag, ctx.signal);

      ctx.step(`[${protocol}] changing service back to type=ClusterIP`);
      svc = await jig.updateService((s) => setServiceType(s, "ClusterIP"));
      if ((svc.spec.ports![0]!.nodePort ?? 0) !== 0) fail(`[${protocol}] Spec.Ports[0].NodePort was not cleared`);
      await jig.waitForLoadBalancerDestroy(ctx.timeouts.lbCreate);
      ctx.step(`[${protocol}] checking the LoadBalancer is closed`);
      await notReachable(ctx.external, ingressIP, svcPort, lag, ctx.signal);
    },
  };
}

/**
 * Ports `[sig-network] LoadBalancers [Feature:LoadBalancer] should handle load balancer cleanup
 * finalizer for service [Slow]` (test/e2e/network/loadbalancer.go): LoadBalancer → finalizer
 * added; ClusterIP → removed; LoadBalancer → added; deleting the Service completes.
 */
const cleanupFinalizer: SuiteTest = {
  name: `${LOAD_BALANCERS} should handle load balancer cleanup finalizer for service [Slow]`,
  upstream: "test/e2e/network/loadbalancer.go",
  requires: { capabilities: ["loadBalancer"] },
  async run(ctx) {
    const jig = new TestJig(ctx, "lb-finalizer");
    ctx.step("Create load balancer service");
    const svc = await jig.createTCPService((s) => void (s.spec.type = "LoadBalancer"));
    ctx.step("Wait for load balancer to serve traffic");
    await jig.waitForLoadBalancer(ctx.timeouts.lbCreate);
    ctx.step("Check if finalizer presents on service with type=LoadBalancer");
    await waitForServiceUpdatedWithFinalizer(ctx, svc.metadata.name, true);
    ctx.step("Check if finalizer is removed on service after changed to type=ClusterIP");
    await jig.changeServiceType("ClusterIP", ctx.timeouts.lbCreate);
    await waitForServiceUpdatedWithFinalizer(ctx, svc.metadata.name, false);
    ctx.step("Check if finalizer is added back to service after changed to type=LoadBalancer");
    await jig.changeServiceType("LoadBalancer", ctx.timeouts.lbCreate);
    await waitForServiceUpdatedWithFinalizer(ctx, svc.metadata.name, true);
    ctx.step("Check that service can be deleted with finalizer");
    const ref = await jig.getService();
    await waitForServiceDeletedWithFinalizer(ctx, svc.metadata.name, ctx.signal);
    await jig.expectNoCloudLoadBalancer(ref, ctx.timeouts.lbCleanup);
  },
};

/**
 * Ports `[sig-network] LoadBalancers [Feature:LoadBalancer] should be able to create LoadBalancer
 * Service without NodePort and change it [Slow]` (test/e2e/network/loadbalancer.go):
 * `allocateLoadBalancerNodePorts=false` → NodePort 0 and reachable; set true → NodePort
 * allocated, ingress unchanged, reachable.
 */
const withoutNodePort: SuiteTest = {
  name: `${LOAD_BALANCERS} should be able to create LoadBalancer Service without NodePort and change it [Slow]`,
  upstream: "test/e2e/network/loadbalancer.go",
  requires: { capabilities: ["loadBalancer", "allocateLoadBalancerNodePortsFalse", "serviceTraffic"] },
  async run(ctx) {
    const lag = ctx.timeouts.lbLag;
    const jig = new TestJig(ctx, "reallocate-nodeport-test");
    ctx.step(`creating a TCP service ${jig.name} with type=ClusterIP in namespace ${ctx.namespace}`);
    let svc = await jig.createTCPService();
    const svcPort = svc.spec.ports![0]!.port;
    ctx.step(`creating a pod to be part of the TCP service ${jig.name}`);
    await jig.run();

    ctx.step("changing the TCP service to type=LoadBalancer");
    await jig.updateService((s) => {
      s.spec.type = "LoadBalancer";
      s.spec.allocateLoadBalancerNodePorts = false;
    });
    ctx.step("waiting for the TCP service to have a load balancer");
    svc = await jig.waitForLoadBalancer(ctx.timeouts.lbCreate);
    if ((svc.spec.ports![0]!.nodePort ?? 0) !== 0)
      fail(`TCP Spec.Ports[0].NodePort allocated ${svc.spec.ports![0]!.nodePort} when not expected`);
    const ingressIP = ingressPoint(svc);
    ctx.step("hitting the TCP service's LoadBalancer");
    await testReachableHTTP(ctx.external, ingressIP, svcPort, lag, ctx.signal);

    ctx.step("adding a TCP service's NodePort");
    svc = await jig.updateService((s) => void (s.spec.allocateLoadBalancerNodePorts = true));
    const nodePort = svc.spec.ports![0]!.nodePort ?? 0;
    if (nodePort === 0) fail(`TCP Spec.Ports[0].NodePort (${nodePort}) not allocated`);
    if (ingressPoint(svc) !== ingressIP)
      fail(`TCP Status.LoadBalancer.Ingress changed (${ingressIP} -> ${ingressPoint(svc)}) when not expected`);
    ctx.step("hitting the TCP service's LoadBalancer");
    await testReachableHTTP(ctx.external, ingressIP, svcPort, lag, ctx.signal);
  },
};

export const lifecycleTests: SuiteTest[] = [changeTypeAndPorts("TCP"), changeTypeAndPorts("UDP"), cleanupFinalizer, withoutNodePort];
