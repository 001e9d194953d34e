import type { CloudLoadBalancer } from "../driver/types.js";
import { fail } from "./assert.js";
import type { TestContext } from "./context.js";
import { serviceRef } from "./jig.js";
import { poll } from "./poll.js";
import type { Service } from "./resources.js";

/**
 * Cross-checks the cloud's own view of a Service's load balancer, where the driver can give it:
 * polls `getLoadBalancer` until `check` finds nothing wrong (it returns the problem as text), and
 * fails with that text after the propagation timeout. Without the hook nothing is checked here;
 * the test's traffic checks still run.
 */
export async function expectCloudLoadBalancer(
  ctx: TestContext,
  service: Service,
  what: string,
  check: (lb: CloudLoadBalancer) => string | undefined,
): Promise<void> {
  const driver = ctx.driver;
  if (!driver.getLoadBalancer) return;
  const ref = serviceRef(service);
  let problem = "";
  try {
    await poll(
      `the cloud load balancer of ${ref.namespace}/${ref.name}: ${what}`,
      { timeoutMs: ctx.timeouts.lbPropagation, signal: ctx.signal },
      async (note) => {
        const lb = await driver.getLoadBalancer!(ref);
        problem = lb === undefined ? "the cloud has no load balancer for the service" : (check(lb) ?? "");
        note(problem);
        return problem === "" ? true : undefined;
      },
    );
  } catch (error) {
    if (problem !== "") fail(`cloud load balancer of ${ref.namespace}/${ref.name}: ${what}: ${problem}`);
    throw error;
  }
}

/** The check that the cloud forwards every service port with its protocol (and NodePort when allocated). */
export function portsMatch(service: Service): (lb: CloudLoadBalancer) => string | undefined {
  return (lb) => {
    for (const port of service.spec.ports ?? []) {
      const protocol = port.protocol ?? "TCP";
      const found = lb.ports.find((p) => p.port === port.port && p.protocol === protocol);
      if (!found)
        return `no listener for ${port.port}/${protocol} (listeners: ${lb.ports.map((p) => `${p.port}/${p.protocol}`).join(", ") || "none"})`;
      if ((port.nodePort ?? 0) !== 0 && found.nodePort !== undefined && found.nodePort !== port.nodePort) {
        return `listener ${port.port}/${protocol} forwards to NodePort ${found.nodePort}, the service has ${port.nodePort}`;
      }
    }
    return undefined;
  };
}
