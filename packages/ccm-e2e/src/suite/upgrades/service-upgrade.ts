import type { TestContext } from "../../framework/context.js";
import { waitForServiceDeletedWithFinalizer, waitForServiceUpdatedWithFinalizer } from "../../framework/finalizer.js";
import { ingressPoint, setServiceType, TestJig } from "../../framework/jig.js";
import { testReachableHTTP } from "../../framework/reachability.js";
import type { UpgradeTest, UpgradeType } from "../../framework/upgrade-suite.js";

/** `framework.Poll`: the pause between two continuous checks. */
const POLL_MS = 2000;

/** Resolves after `ms`, or as soon as `done` does. */
function pause(ms: number, done: Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([new Promise<void>((resolve) => (timer = setTimeout(resolve, ms))), done]).finally(() => clearTimeout(timer));
}

/**
 * `network.ServiceUpgradeTest` (test/e2e/upgrades/network/services.go): a TCP LoadBalancer service
 * over two backends kept apart by anti-affinity and covered by a PodDisruptionBudget answers through
 * its load balancer before the upgrade, continuously during it (every `framework.Poll`, each check
 * allowed `LoadBalancerLagTimeoutDefault`), and after it; then it still carries the cleanup
 * finalizer and can be deleted with it.
 */
export function serviceUpgradeTest(): UpgradeTest {
  const serviceName = "service-test";
  let jig: TestJig | undefined;
  let ingressIP = "";
  let svcPort = 0;

  const test = async (ctx: TestContext, done: Promise<void>, testDuringDisruption: boolean, testFinalizer: boolean) => {
    if (testDuringDisruption) {
      ctx.step("continuously hitting the pod through the service's LoadBalancer");
      let finished = false;
      void done.then(() => (finished = true));
      while (!finished) {
        await testReachableHTTP(ctx.external, ingressIP, svcPort, ctx.timeouts.lbLag, ctx.signal);
        await pause(POLL_MS, done);
      }
    } else {
      ctx.step("waiting for upgrade to finish without checking if service remains up");
      await done;
    }
    ctx.step("hitting the pod through the service's LoadBalancer");
    await testReachableHTTP(ctx.external, ingressIP, svcPort, ctx.timeouts.lbLag, ctx.signal);
    if (!testFinalizer) return;
    try {
      ctx.step("Check that finalizer is present on loadBalancer type service");
      await waitForServiceUpdatedWithFinalizer(ctx, serviceName, true);
    } finally {
      ctx.step("Check that service can be deleted with finalizer");
      await waitForServiceDeletedWithFinalizer(ctx, serviceName, ctx.signal);
    }
  };

  return {
    name: "service-upgrade",
    async setup(ctx) {
      jig = new TestJig(ctx, serviceName);
      ctx.step(`creating a TCP service ${serviceName} with type=LoadBalancer in namespace ${ctx.namespace}`);
      await jig.createTCPService((svc) => setServiceType(svc, "LoadBalancer"));
      const tcpService = await jig.waitForLoadBalancer(ctx.timeouts.lbCreate);
      ingressIP = ingressPoint(tcpService);
      svcPort = tcpService.spec.ports![0]!.port;

      ctx.step(`creating pod to be part of service ${serviceName}`);
      await jig.run(jig.addDeploymentAntiAffinity);
      ctx.step("creating a PodDisruptionBudget to cover the Deployment");
      await jig.createPDB(2);

      ctx.step("hitting the pod through the service's LoadBalancer");
      await testReachableHTTP(ctx.external, ingressIP, svcPort, ctx.timeouts.lbLag, ctx.signal);
    },
    test(ctx, done, upgrade: UpgradeType) {
      if (upgrade === "MasterUpgrade" || upgrade === "ClusterUpgrade") return test(ctx, done, true, true);
      return test(ctx, done, true, false);
    },
  };
}
