import { fail, skip } from "../framework/assert.js";
import type { TestContext } from "../framework/context.js";
import { AGNHOST_IMAGE, ingressPoint, TestJig } from "../framework/jig.js";
import { readySchedulableNodes } from "../framework/nodes.js";
import { poll } from "../framework/poll.js";
import type { SuiteTest } from "../framework/registry.js";
import { PODS, type Pod } from "../framework/resources.js";
import { LOAD_BALANCERS } from "./lb-names.js";

/** `e2epod.NewAgnhostPod(ns, name, …, "netexec", "--udp-port=80")` with the jig's labels, a hostname, pinned to a node. */
async function createServerPod(ctx: TestContext, jig: TestJig, name: string, hostname: string, nodeName: string): Promise<void> {
  await ctx.client.create(PODS, ctx.namespace, {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, labels: { ...jig.labels } },
    spec: {
      hostname,
      nodeName,
      containers: [
        {
          name: "agnhost-container",
          image: AGNHOST_IMAGE,
          args: ["netexec", "--udp-port=80"],
          ports: [{ containerPort: 80, protocol: "UDP" }],
        },
      ],
    },
  });
  await poll(`pod ${name} to be running and ready`, { timeoutMs: ctx.timeouts.podStart, signal: ctx.signal }, async () => {
    const pod = await ctx.client.get<Pod>(PODS, ctx.namespace, name);
    return pod.status?.phase === "Running" && pod.status.conditions?.some((c) => c.type === "Ready" && c.status === "True")
      ? true
      : undefined;
  });
}

async function deletePodSync(ctx: TestContext, name: string): Promise<void> {
  await ctx.client.delete(PODS, ctx.namespace, name);
  await poll(`pod ${name} to be deleted`, { timeoutMs: ctx.timeouts.podStart, signal: ctx.signal }, async () => {
    try {
      await ctx.client.get(PODS, ctx.namespace, name);
      return undefined;
    } catch {
      return true;
    }
  });
}

/**
 * Ports `[sig-network] LoadBalancers [Feature:LoadBalancer] should be able to preserve UDP traffic
 * when server pod cycles for a LoadBalancer service on different nodes` and `… on the same nodes`
 * (test/e2e/network/loadbalancer.go): one client, always from the same source port, asks the UDP
 * load balancer for `hostname` every second while a backend on one node is replaced by one on
 * another node (or the same node); the answers must come from the first backend, then from the
 * second (the stale flow to the deleted pod is not kept).
 */
function preserveUdpTraffic(where: "different nodes" | "the same nodes", sourcePort: number): SuiteTest {
  return {
    name: `${LOAD_BALANCERS} should be able to preserve UDP traffic when server pod cycles for a LoadBalancer service on ${where}`,
    upstream: "test/e2e/network/loadbalancer.go",
    requires: { capabilities: ["loadBalancer", "udp", "serviceTraffic"] },
    async run(ctx) {
      const needed = where === "different nodes" ? 2 : 1;
      const nodes = (await readySchedulableNodes(ctx.client)).slice(0, needed);
      if (nodes.length < needed) skip(`Test requires >= ${needed} Ready nodes, but there are only ${nodes.length} nodes`);
      const firstNode = nodes[0]!.metadata.name;
      const secondNode = nodes[needed - 1]!.metadata.name;
      const jig = new TestJig(ctx, "svc-udp");
      ctx.step(`creating a UDP service ${jig.name} with type=LoadBalancer in ${ctx.namespace}`);
      await jig.createUDPService((svc) => {
        svc.spec.type = "LoadBalancer";
        svc.spec.ports = [{ port: 80, name: "udp", protocol: "UDP", targetPort: 80 }];
      });
      ctx.step("waiting for the UDP service to have a load balancer");
      const svc = await jig.waitForLoadBalancer(ctx.timeouts.lbCreate);
      const ingressIP = ingressPoint(svc);
      const port = svc.spec.ports![0]!.port;
      ctx.log(`UDP load balancer: ${ingressIP}`);

      ctx.step("hitting the UDP service's LoadBalancer with same source port");
      const hostnames = new Set<string>();
      let stopped = false;
      const client = (async () => {
        while (!stopped && !ctx.signal.aborted) {
          try {
            hostnames.add((await ctx.external.udpExchange(ingressIP, port, "hostname\n", { timeoutMs: 3000, srcPort: sourcePort })).trim());
          } catch {
            // No answer this second: the next datagram tries again, from the same port.
          }
          await new Promise((resolve) => setTimeout(resolve, 1000));
        }
      })();
      const connectedTo = async (hostname: string, what: string) => {
        try {
          await poll(`an answer from ${hostname}`, { timeoutMs: ctx.timeouts.lbLag, signal: ctx.signal, intervalMs: 250 }, () =>
            Promise.resolve(hostnames.has(hostname) ? true : undefined),
          );
        } catch {
          fail(`Failed to connect to ${what}`);
        }
      };
      try {
        ctx.step(`creating a backend pod pod-backend-1 for the service ${jig.name} on node ${firstNode}`);
        await createServerPod(ctx, jig, "pod-backend-1", "hostname1", firstNode);
        ctx.step(`checking client pod connected to the backend 1 on Node ${firstNode}`);
        await connectedTo("hostname1", "backend 1");
        ctx.step(`creating a second backend pod pod-backend-2 for the service ${jig.name} on node ${secondNode}`);
        await createServerPod(ctx, jig, "pod-backend-2", "hostname2", secondNode);
        ctx.log("Cleaning up pod-backend-1 pod");
        await deletePodSync(ctx, "pod-backend-1");
        ctx.step(`checking client pod connected to the backend 2 on Node ${secondNode}`);
        await connectedTo("hostname2", "backend 2");
      } finally {
        stopped = true;
        await client;
      }
      if (hostnames.size !== 2)
        fail(`Failed to hit the 2 UDP LoadBalancer backends successfully, got ${JSON.stringify([...hostnames].sort())}`);
    },
  };
}

// Distinct source ports: the two may run at once, and each flow must stay its own.
export const udpPodCycleTests: SuiteTest[] = [preserveUdpTraffic("different nodes", 54321), preserveUdpTraffic("the same nodes", 54322)];
