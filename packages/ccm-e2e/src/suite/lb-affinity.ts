import { expectCloudLoadBalancer } from "../framework/cloud-truth.js";
import { ingressPoint, TestJig } from "../framework/jig.js";
import { checkAffinity } from "../framework/reachability.js";
import type { SuiteTest } from "../framework/registry.js";
import type { TestContext } from "../framework/context.js";
import { LOAD_BALANCERS } from "./lb-names.js";

/** Upstream's affinity tests run three serve-hostname backends. */
const AFFINITY_BACKENDS = 3;

/**
 * `execAffinityTestForLBServiceWithOptionalTransition`: three backends behind a LoadBalancer with
 * `sessionAffinity: ClientIP`; 15 answers in a row from one backend show affinity holds. With the
 * transition: set None and expect several backends, set ClientIP and expect it to hold again.
 * The cloud's own LB must report the affinity the Service asks for, where the driver can say.
 */
async function affinityTest(ctx: TestContext, name: string, policy: "Local" | "Cluster", transition: boolean): Promise<void> {
  const jig = new TestJig(ctx, name);
  ctx.step(`creating service ${name} in namespace ${ctx.namespace}`);
  await jig.createTCPService((s) => {
    s.spec.type = "LoadBalancer";
    s.spec.externalTrafficPolicy = policy;
    s.spec.sessionAffinity = "ClientIP";
  });
  await jig.run((d) => void (d.spec.replicas = AFFINITY_BACKENDS));
  let svc = await jig.waitForLoadBalancer(ctx.timeouts.lbCreate);
  const ingress = ingressPoint(svc);
  const port = svc.spec.ports![0]!.port;
  const affinity = (expected: "None" | "ClientIP") =>
    expectCloudLoadBalancer(ctx, svc, `session affinity ${expected}`, (lb) =>
      lb.sessionAffinity === expected ? undefined : `session affinity is ${lb.sessionAffinity}`,
    );

  await affinity("ClientIP");
  await checkAffinity(ctx.external, ingress, port, true, ctx.timeouts.affinity, ctx.signal);
  if (!transition) return;

  svc = await jig.updateService((s) => void (s.spec.sessionAffinity = "None"));
  await affinity("None");
  await checkAffinity(ctx.external, ingress, port, false, ctx.timeouts.affinity, ctx.signal);
  svc = await jig.updateService((s) => void (s.spec.sessionAffinity = "ClientIP"));
  await affinity("ClientIP");
  await checkAffinity(ctx.external, ingress, port, true, ctx.timeouts.affinity, ctx.signal);
}

function affinity(policy: "Local" | "Cluster", transition: boolean, serviceName: string): SuiteTest {
  const what = transition ? "should be able to switch session affinity" : "should have session affinity work";
  return {
    name: `${LOAD_BALANCERS} ${what} for LoadBalancer service with ${policy} traffic policy [Slow] [LinuxOnly]`,
    upstream: "test/e2e/network/loadbalancer.go",
    requires: {
      capabilities:
        policy === "Local"
          ? ["loadBalancer", "sessionAffinityClientIP", "externalTrafficPolicyLocal", "serviceTraffic"]
          : ["loadBalancer", "sessionAffinityClientIP", "serviceTraffic"],
    },
    run: (ctx) => affinityTest(ctx, serviceName, policy, transition),
  };
}

/**
 * Ports the four session affinity tests of test/e2e/network/loadbalancer.go:
 * `should have session affinity work for LoadBalancer service with Local|Cluster traffic policy`
 * and `should be able to switch session affinity for LoadBalancer service with Local|Cluster traffic policy`.
 */
export const affinityTests: SuiteTest[] = [
  affinity("Local", false, "affinity-lb-esipp"),
  affinity("Local", true, "affinity-lb-esipp-transition"),
  affinity("Cluster", false, "affinity-lb"),
  affinity("Cluster", true, "affinity-lb-transition"),
];
