import type { TrafficClient } from "../driver/types.js";
import { fail, skip } from "../framework/assert.js";
import type { TestContext } from "../framework/context.js";
import { expectCloudLoadBalancer } from "../framework/cloud-truth.js";
import { ingressPoint, TestJig } from "../framework/jig.js";
import { nodeAddress, readySchedulableNodes } from "../framework/nodes.js";
import { poll } from "../framework/poll.js";
import { checkAffinity, testReachableHTTP } from "../framework/reachability.js";
import type { SuiteTest } from "../framework/registry.js";
import type { Node } from "../framework/resources.js";
import { ETP_LOCAL } from "./lb-names.js";

/** Upstream's `MaxNodesForEndpointsTests`. */
const MAX_NODES_FOR_ENDPOINTS_TESTS = 3;
/** Consecutive health check answers that settle a node's state (upstream's threshold). */
const HEALTH_CHECK_THRESHOLD = 2;

/**
 * `testHTTPHealthCheckNodePort`: `/healthz` on a node's health-check NodePort answers 200 where
 * the node has local endpoints and 503 (or nothing) where it has none; `threshold` answers in a
 * row must agree with `expectSuccess`.
 */
async function testHealthCheckNodePort(
  ctx: TestContext,
  client: TrafficClient,
  host: string,
  port: number,
  timeoutMs: number,
  expectSuccess: boolean,
): Promise<void> {
  let streak = 0;
  try {
    await poll(
      `http://${host}:${port}/healthz to ${expectSuccess ? "succeed" : "fail"} ${HEALTH_CHECK_THRESHOLD} times in a row`,
      { timeoutMs, signal: ctx.signal, intervalMs: 200 },
      async (note) => {
        let success = false;
        try {
          success = (await client.httpGet(host, port, "/healthz", { timeoutMs: 2000 })).status === 200;
        } catch (error) {
          note((error as Error).message);
        }
        streak = success === expectSuccess ? streak + 1 : 0;
        return streak >= HEALTH_CHECK_THRESHOLD ? true : undefined;
      },
    );
  } catch (error) {
    fail(`health check on ${host}:${port} ${expectSuccess ? "did not succeed" : "did not fail"}: ${(error as Error).message}`);
  }
}

/**
 * Where health checks are sent from: they need the answer's status (200 or 503), which the dialer
 * pods' `/dial` does not report (upstream execs curl in its test container), so the driver's own
 * in-cluster vantage point when it gives one, else the outside one.
 */
function healthCheckClient(ctx: TestContext): TrafficClient {
  return ctx.driver.inCluster ?? ctx.external;
}

/**
 * `CreateOnlyLocalLoadBalancerService`: a LoadBalancer with `externalTrafficPolicy: Local`,
 * waiting for its ingress; with `createPod`, one backend first.
 */
async function createOnlyLocalLoadBalancer(ctx: TestContext, jig: TestJig, createPod: boolean) {
  if (createPod) await jig.run();
  return jig.createLoadBalancerService(ctx.timeouts.lbCreate, (s) => void (s.spec.externalTrafficPolicy = "Local"));
}

/**
 * Ports `[sig-network] LoadBalancers ExternalTrafficPolicy: Local [Feature:LoadBalancer] [Slow]
 * should work for type=LoadBalancer` (test/e2e/network/loadbalancer.go): a health-check NodePort
 * is allocated; the client IP the backend sees through the VIP is not from the nodes' /16 (the
 * source is preserved); after switching to ClusterIP the health-check port stops answering.
 */
const workForLoadBalancer: SuiteTest = {
  name: `${ETP_LOCAL} should work for type=LoadBalancer`,
  upstream: "test/e2e/network/loadbalancer.go",
  requires: { capabilities: ["loadBalancer", "externalTrafficPolicyLocal", "serviceTraffic"] },
  async run(ctx) {
    const jig = new TestJig(ctx, "external-local-lb");
    const svc = await createOnlyLocalLoadBalancer(ctx, jig, true);
    const healthCheckNodePort = svc.spec.healthCheckNodePort ?? 0;
    if (healthCheckNodePort === 0) fail("Service HealthCheck NodePort was not allocated");
    ctx.defer(async () => {
      await jig.changeServiceType("ClusterIP", ctx.timeouts.lbCreate);
      // Make sure we didn't leak the health check node port.
      const client = healthCheckClient(ctx);
      for (const node of await endpointNodes(ctx, jig)) {
        const address = nodeAddress(node);
        if (address !== undefined)
          await testHealthCheckNodePort(ctx, client, address, healthCheckNodePort, ctx.timeouts.kubeProxyLag, false);
      }
    });
    const ingress = svc.status?.loadBalancer?.ingress?.[0];
    if (!ingress?.ip || ingress.ipMode === "Proxy" || ctx.driver.capabilities.ipMode === "Proxy") skip("LoadBalancer uses 'Proxy' IPMode");
    const port = svc.spec.ports![0]!.port;
    ctx.step("reading clientIP using the TCP service's service port via its external VIP");
    const clientIPPort = await poll(
      `/clientip through ${ingress.ip}:${port}`,
      { timeoutMs: ctx.timeouts.kubeProxyLag, signal: ctx.signal },
      async () => {
        const response = await ctx.external.httpGet(ingress.ip!, port, "/clientip", { timeoutMs: 5000 });
        return response.status === 200 ? response.body.trim() : undefined;
      },
    );
    ctx.log(`ClientIP detected by target pod using VIP:SvcPort is ${clientIPPort}`);
    ctx.step("checking if Source IP is preserved");
    const host = clientIPPort.replace(/:\d+$/, "").replace(/^\[|\]$/g, "");
    const nodes = await readySchedulableNodes(ctx.client);
    const internal = nodes.map((n) => n.status?.addresses?.find((a) => a.type === "InternalIP")?.address).find((a) => a !== undefined);
    if (internal === undefined) fail("no ready schedulable node has an InternalIP");
    if (sameSlash16(internal, host)) fail("Source IP was NOT preserved");
  },
};

function sameSlash16(a: string, b: string): boolean {
  if (a.includes(":") || b.includes(":")) return a.split(":").slice(0, 4).join(":") === b.split(":").slice(0, 4).join(":");
  return a.split(".").slice(0, 2).join(".") === b.split(".").slice(0, 2).join(".");
}

async function endpointNodes(ctx: TestContext, jig: TestJig): Promise<Node[]> {
  const names = new Set((await jig.pods()).map((pod) => pod.spec?.nodeName));
  return (await readySchedulableNodes(ctx.client)).filter((node) => names.has(node.metadata.name));
}

/**
 * Ports `... ExternalTrafficPolicy: Local ... should only target nodes with endpoints`: for up to
 * three nodes in turn, the single backend on that node; the LB answers, and the health-check
 * NodePort succeeds on that node only. Where the driver can say, the cloud's backends are the
 * endpoint node only.
 */
const onlyTargetNodesWithEndpoints: SuiteTest = {
  name: `${ETP_LOCAL} should only target nodes with endpoints`,
  upstream: "test/e2e/network/loadbalancer.go",
  requires: { capabilities: ["loadBalancer", "externalTrafficPolicyLocal", "healthCheckNodePort", "serviceTraffic"] },
  async run(ctx) {
    const nodes = (await readySchedulableNodes(ctx.client)).slice(0, MAX_NODES_FOR_ENDPOINTS_TESTS);
    const jig = new TestJig(ctx, "external-local-nodes");
    await jig.createTCPService((s) => {
      s.spec.type = "LoadBalancer";
      s.spec.sessionAffinity = "None";
      s.spec.externalTrafficPolicy = "Local";
      s.spec.ports![0]!.targetPort = s.spec.ports![0]!.port;
      s.spec.ports![0]!.port = 8081;
    });
    const svc = await jig.waitForLoadBalancer(ctx.timeouts.lbCreate);
    const healthCheckNodePort = svc.spec.healthCheckNodePort ?? 0;
    if (healthCheckNodePort === 0) fail("Service HealthCheck NodePort was not allocated");
    const ingressIP = ingressPoint(svc);
    const port = svc.spec.ports![0]!.port;
    const client = healthCheckClient(ctx);
    for (const endpointNode of nodes) {
      const nodeName = endpointNode.metadata.name;
      ctx.step(`creating a pod to be part of the service ${jig.name} on node ${nodeName}`);
      await jig.run((d) => {
        (d.spec.template as { spec: Record<string, unknown> }).spec.nodeName = nodeName;
      });
      ctx.step(`waiting for service endpoint on node ${nodeName}`);
      await poll(`the endpoint of ${jig.name} on ${nodeName}`, { timeoutMs: ctx.timeouts.kubeProxyLag, signal: ctx.signal }, async () =>
        (await jig.endpointNodeNames()).has(nodeName) ? true : undefined,
      );
      await expectCloudLoadBalancer(ctx, svc, `sends traffic only to ${nodeName}`, (lb) =>
        lb.backendNodes.length === 1 && lb.backendNodes[0] === nodeName
          ? undefined
          : `backend nodes are ${JSON.stringify(lb.backendNodes)}`,
      );
      for (const node of nodes) {
        await testReachableHTTP(ctx.external, ingressIP, port, ctx.timeouts.kubeProxyLag, ctx.signal);
        const address = nodeAddress(node);
        if (address === undefined) fail(`node ${node.metadata.name} has no address`);
        const expectSuccess = node.metadata.name === nodeName;
        ctx.log(
          `Health checking ${node.metadata.name}, http://${address}:${healthCheckNodePort}/healthz, expectedSuccess ${expectSuccess}`,
        );
        await testHealthCheckNodePort(ctx, client, address, healthCheckNodePort, ctx.timeouts.kubeProxyEndpointLag, expectSuccess);
      }
      await jig.deleteBackends();
    }
  },
};

/**
 * Ports `... ExternalTrafficPolicy: Local ... should target all nodes with endpoints`: two
 * backends on different nodes; connections through the LB reach both (checkAffinity with
 * shouldHold=false). Skipped on a single-node cluster.
 */
const targetAllNodesWithEndpoints: SuiteTest = {
  name: `${ETP_LOCAL} should target all nodes with endpoints`,
  upstream: "test/e2e/network/loadbalancer.go",
  requires: { capabilities: ["loadBalancer", "externalTrafficPolicyLocal", "serviceTraffic"] },
  async run(ctx) {
    const nodes = await readySchedulableNodes(ctx.client);
    if (nodes.length < 2) skip("Test requires multiple schedulable nodes");
    const jig = new TestJig(ctx, "external-local-update");
    ctx.step("creating the service");
    const svc = await createOnlyLocalLoadBalancer(ctx, jig, false);
    const ingress = ingressPoint(svc);
    const port = svc.spec.ports![0]!.port;
    ctx.step("creating endpoints on multiple nodes");
    await jig.run((d) => {
      d.spec.replicas = 2;
      (d.spec.template as { spec: Record<string, unknown> }).spec.affinity = {
        podAntiAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { labelSelector: { matchLabels: jig.labels }, topologyKey: "kubernetes.io/hostname" },
          ],
        },
      };
    });
    const endpointNodes = await jig.endpointNodeNames();
    if (endpointNodes.size < 2) fail(`the two backends run on ${[...endpointNodes].join(", ")}: required anti-affinity was not honoured`);
    ctx.step("ensuring that the LoadBalancer targets all endpoints");
    try {
      await checkAffinity(ctx.external, ingress, port, false, ctx.timeouts.lbPropagation, ctx.signal);
    } catch {
      fail("Load balancer connections only reached one of the two endpoints");
    }
  },
};

/**
 * Ports `... ExternalTrafficPolicy: Local ... should work from pods`: a client inside the cluster
 * reaching the ETP Local load balancer is seen by the backend with its own address. Upstream's
 * pause pod becomes the driver's in-cluster vantage point on a node (`fromNode`, a host-network
 * client), so the address expected is that node's InternalIP.
 */
const workFromPods: SuiteTest = {
  name: `${ETP_LOCAL} should work from pods`,
  upstream: "test/e2e/network/loadbalancer.go",
  requires: { capabilities: ["loadBalancer", "externalTrafficPolicyLocal", "serviceTraffic"] },
  async run(ctx) {
    const jig = new TestJig(ctx, "external-local-pods");
    const svc = await createOnlyLocalLoadBalancer(ctx, jig, true);
    const ingressIP = ingressPoint(svc);
    const port = svc.spec.ports![0]!.port;
    const client = (await readySchedulableNodes(ctx.client))[0];
    if (client === undefined) fail("no ready schedulable node to send from");
    const expected = client.status?.addresses?.find((a) => a.type === "InternalIP")?.address;
    if (expected === undefined) fail(`node ${client.metadata.name} has no InternalIP`);
    ctx.log(`Waiting up to ${ctx.timeouts.lbPropagation} ms for ${ingressIP}:${port}/clientip from node ${client.metadata.name}`);
    let srcIP = "";
    try {
      await poll(
        `${ingressIP}:${port}/clientip to report ${expected}`,
        { timeoutMs: ctx.timeouts.lbPropagation, signal: ctx.signal },
        async (note) => {
          try {
            const response = await ctx.inCluster.httpGet(ingressIP, port, "/clientip", {
              timeoutMs: 30_000,
              fromNode: client.metadata.name,
            });
            srcIP = response.body
              .trim()
              .replace(/:\d+$/, "")
              .replace(/^\[|\]$/g, "");
          } catch (error) {
            note(`got err: ${(error as Error).message}, retry until timeout`);
            return undefined;
          }
          return srcIP === expected ? true : undefined;
        },
      );
    } catch {
      fail(`Source IP not preserved from ${client.metadata.name}, expected '${expected}' got '${srcIP}'`);
    }
  },
};

export const etpLocalTests: SuiteTest[] = [workForLoadBalancer, onlyTargetNodesWithEndpoints, targetAllNodesWithEndpoints, workFromPods];
