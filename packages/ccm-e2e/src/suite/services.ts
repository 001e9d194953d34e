import { isApiError, isNotFound } from "@kubekit/client";
import { expectEqual, fail, skip } from "../framework/assert.js";
import type { TestContext } from "../framework/context.js";
import { TestJig } from "../framework/jig.js";
import { nodeAddress, nodeRef, readySchedulableNodes } from "../framework/nodes.js";
import { poll } from "../framework/poll.js";
import { testNotReachableHTTP, testReachableHTTP } from "../framework/reachability.js";
import type { SuiteTest } from "../framework/registry.js";
import { PODS, SERVICES as SERVICE_RESOURCE, type Node, type Pod, type Service } from "../framework/resources.js";
import { checkServiceReachability } from "../framework/service-reachability.js";
import { SERVICES } from "./lb-names.js";

const UPSTREAM = "test/e2e/network/service.go";

/**
 * Ports `[sig-network] Services should delete a collection of services [Conformance]`: three
 * ClusterIP services labelled delete, delete, keep; a DeleteCollection by label leaves only the
 * one to keep.
 */
const deleteCollection: SuiteTest = {
  name: `${SERVICES} should delete a collection of services [Conformance]`,
  upstream: UPSTREAM,
  requires: {},
  async run(ctx) {
    const labels = ["delete", "delete", "keep"];
    ctx.step("creating a collection of services");
    for (const [i, value] of labels.entries()) {
      const service: Service = {
        apiVersion: "v1",
        kind: "Service",
        metadata: { name: `e2e-svc-${"abc"[i]}-${i}`, labels: { "e2e-test-service": value } },
        spec: { type: "ClusterIP", ports: [{ name: "http", protocol: "TCP", port: 8001 + i, targetPort: 80 }] },
      };
      await ctx.client.create(SERVICE_RESOURCE, ctx.namespace, service);
    }
    const listed = await ctx.client.list<Service>(SERVICE_RESOURCE, ctx.namespace, { labelSelector: "e2e-test-service" });
    expectEqual(listed.items.length, 3, "failed to create the services: listing by label");

    ctx.step("deleting service collection");
    await ctx.client.deleteCollection(SERVICE_RESOURCE, ctx.namespace, {}, { labelSelector: "e2e-test-service=delete" });
    const remaining = await ctx.client.list<Service>(SERVICE_RESOURCE, ctx.namespace, { labelSelector: "e2e-test-service" });
    expectEqual(remaining.items.length, 1, "failed to delete the service collection");
    expectEqual(remaining.items[0]?.metadata.labels?.["e2e-test-service"], "keep", "the service left is not the one to keep");
  },
};

/**
 * Ports `[sig-network] Services should be possible to connect to a service via ExternalIP when the
 * external IP is not assigned to a node`: a ClusterIP service with `externalIPs: [203.0.113.250]`
 * answers on that IP from inside the cluster. Skipped where admission denies external IPs.
 */
const externalIPNotOnNode: SuiteTest = {
  name: `${SERVICES} should be possible to connect to a service via ExternalIP when the external IP is not assigned to a node`,
  upstream: UPSTREAM,
  requires: { capabilities: ["externalIPs", "serviceTraffic"] },
  async run(ctx) {
    const externalIP = "203.0.113.250";
    const jig = new TestJig(ctx, "externalip-test");
    let svc: Service;
    try {
      svc = await jig.createTCPService((s) => {
        s.spec.type = "ClusterIP";
        s.spec.externalIPs = [externalIP];
      });
    } catch (error) {
      if (error instanceof Error && error.message.includes("Use of external IPs is denied by admission control"))
        skip("Admission controller to deny services with external IPs is enabled");
      throw error;
    }
    await jig.run();
    await checkServiceReachability(ctx, svc);
    ctx.step(`checking ${externalIP}:${svc.spec.ports![0]!.port} from inside the cluster`);
    await testReachableHTTP(ctx.inCluster, externalIP, svc.spec.ports![0]!.port, ctx.timeouts.kubeProxyLag, ctx.signal);
  },
};

/**
 * Ports `[sig-network] Services should be able to update service type to NodePort listening on
 * same port number but different protocols`: ClusterIP → NodePort TCP:80 → TCP:80 + UDP:80; two
 * ports, each with a NodePort, both reachable.
 */
const sameNodePortDifferentProtocols: SuiteTest = {
  name: `${SERVICES} should be able to update service type to NodePort listening on same port number but different protocols`,
  upstream: UPSTREAM,
  requires: { capabilities: ["serviceTraffic"] },
  async run(ctx) {
    const jig = new TestJig(ctx, "nodeport-update-service");
    ctx.step(`creating a TCP service ${jig.name} with type=ClusterIP in namespace ${ctx.namespace}`);
    await jig.createTCPService();
    ctx.step("changing the TCP service to type=NodePort");
    let svc = await jig.updateService((s) => {
      s.spec.type = "NodePort";
      s.spec.ports = [{ name: "tcp-port", port: 80, protocol: "TCP", targetPort: 80 }];
    });
    await jig.run((d) => void (d.spec.replicas = 2));
    await checkServiceReachability(ctx, svc);
    ctx.step("Updating NodePort service to listen TCP and UDP based requests over same Port");
    svc = await jig.updateService((s) => {
      s.spec.type = "NodePort";
      s.spec.ports = [
        { name: "tcp-port", port: 80, protocol: "TCP", targetPort: 80 },
        { name: "udp-port", port: 80, protocol: "UDP", targetPort: 80 },
      ];
    });
    await checkServiceReachability(ctx, svc);
    const ports = svc.spec.ports ?? [];
    if (ports.length !== 2) fail(`new service should have two Ports, got ${ports.length}`);
    for (const port of ports) if ((port.nodePort ?? 0) === 0) fail(`new service failed to allocate NodePort for Port ${port.port}`);
  },
};

/** `ExternalName → ClusterIP|NodePort`: clear externalName, port 80 to the backends, 2 backends, reachable. */
function fromExternalName(type: "ClusterIP" | "NodePort"): SuiteTest {
  return {
    name: `${SERVICES} should be able to change the type from ExternalName to ${type} [Conformance]`,
    upstream: UPSTREAM,
    requires: { capabilities: ["serviceTraffic"] },
    async run(ctx) {
      const jig = new TestJig(ctx, type === "ClusterIP" ? "externalname-service" : "externalname-service-np");
      ctx.step(`creating a service externalname-service with the type=ExternalName in namespace ${ctx.namespace}`);
      await jig.createExternalNameService();
      ctx.step(`changing the ExternalName service to type=${type}`);
      const svc = await jig.updateService((s) => {
        s.spec.type = type;
        delete s.spec.externalName;
        s.spec.selector = { ...jig.labels };
        s.spec.ports = [{ port: 80, name: "http", protocol: "TCP", targetPort: 80 }];
      });
      await jig.run((d) => void (d.spec.replicas = 2));
      await checkServiceReachability(ctx, svc);
    },
  };
}

/**
 * `ClusterIP|NodePort → ExternalName`: the ClusterIP is dropped ("" and no clusterIPs), the name
 * resolves to the target service from inside the cluster, and a NodePort is released.
 */
function toExternalName(type: "ClusterIP" | "NodePort"): SuiteTest {
  return {
    name: `${SERVICES} should be able to change the type from ${type} to ExternalName [Conformance]`,
    upstream: UPSTREAM,
    requires: { capabilities: ["serviceTraffic"] },
    async run(ctx) {
      const target = new TestJig(ctx, "externalsvc");
      ctx.step(`creating a service ${target.name} in namespace ${ctx.namespace}`);
      await target.createTCPService();
      await target.run((d) => void (d.spec.replicas = 2));
      const jig = new TestJig(ctx, type === "ClusterIP" ? "clusterip-service" : "nodeport-service");
      ctx.step(`creating a service ${jig.name} with the type=${type} in namespace ${ctx.namespace}`);
      const before = await jig.createTCPService((s) => void (s.spec.type = type));
      const nodePort = before.spec.ports?.[0]?.nodePort;
      ctx.step(`changing the ${type} service to type=ExternalName`);
      const externalName = `${target.name}.${ctx.namespace}.svc.cluster.local`;
      const svc = await jig.updateService((s) => {
        s.spec.type = "ExternalName";
        s.spec.externalName = externalName;
        s.spec.clusterIP = "";
        delete s.spec.clusterIPs;
        delete s.spec.selector;
        if (s.spec.ports?.[0]) delete s.spec.ports[0].nodePort;
      });
      if ((svc.spec.clusterIP ?? "") !== "") fail(`Spec.ClusterIP was not cleared: ${svc.spec.clusterIP}`);
      if ((svc.spec.clusterIPs ?? []).length !== 0) fail(`Spec.ClusterIPs was not cleared: ${JSON.stringify(svc.spec.clusterIPs)}`);
      ctx.step(`checking ${jig.name} resolves to ${externalName} from inside the cluster`);
      await testReachableHTTP(ctx.inCluster, `${jig.name}.${ctx.namespace}.svc.cluster.local`, 80, ctx.timeouts.kubeProxyLag, ctx.signal);
      if (nodePort !== undefined) {
        ctx.step(`checking NodePort ${nodePort} was released`);
        await recreateWithNodePort(ctx, `released-${nodePort}`, nodePort);
      }
    },
  };
}

/** Creates a NodePort service asking for `nodePort`; fails with the API's answer if it is still taken. */
async function recreateWithNodePort(ctx: TestContext, name: string, nodePort: number): Promise<void> {
  try {
    await ctx.client.create(SERVICE_RESOURCE, ctx.namespace, {
      apiVersion: "v1",
      kind: "Service",
      metadata: { name },
      spec: { type: "NodePort", ports: [{ port: 80, protocol: "TCP", nodePort }] },
    });
  } catch (error) {
    if (isApiError(error)) fail(`failed to create a service with the released NodePort ${nodePort}: ${error.message}`);
    throw error;
  }
}

/**
 * Ports `[sig-network] Services should release NodePorts on delete`: after the service is
 * deleted its NodePort is released. Where the driver gives node access (`execOnNode`, upstream's
 * hostexec pod), upstream's check: no socket LISTENs on the port on the node (its address or a
 * wildcard) within `KubeProxyLagTimeout`; without it, nothing answers on the NodePort any more.
 * Then a new service can take the same NodePort.
 */
const releaseNodePorts: SuiteTest = {
  name: `${SERVICES} should release NodePorts on delete`,
  upstream: UPSTREAM,
  requires: { capabilities: ["serviceTraffic"] },
  async run(ctx) {
    const jig = new TestJig(ctx, "nodeport-reuse");
    ctx.step(`creating service ${jig.name} with type NodePort in namespace ${ctx.namespace}`);
    const svc = await jig.createTCPService((s) => void (s.spec.type = "NodePort"));
    const nodePort = svc.spec.ports![0]!.nodePort!;
    ctx.step(`deleting original service ${jig.name}`);
    await ctx.client.delete(SERVICE_RESOURCE, ctx.namespace, jig.name);
    const node = (await readySchedulableNodes(ctx.client)).find((n) => nodeAddress(n) !== undefined);
    if (node === undefined) fail("no ready schedulable node has an address");
    const nodeIP = nodeAddress(node)!;
    ctx.step(`checking NodePort ${nodePort} is closed on ${nodeIP}`);
    if (ctx.driver.execOnNode !== undefined) await expectNotListening(ctx, node, nodePort);
    else await testNotReachableHTTP(ctx.inCluster, nodeIP, nodePort, ctx.timeouts.kubeProxyLag, ctx.signal);
    ctx.step(`creating service ${jig.name} with same NodePort ${nodePort}`);
    await recreateWithNodePort(ctx, jig.name, nodePort);
  },
};

/** `ss`'s listening TCP sockets on `port` whose local address is one of the node's or a wildcard. */
function listenersOnNode(ssOutput: string, node: Node): string[] {
  const own = new Set(["0.0.0.0", "*", "[::]", "::", ...(node.status?.addresses ?? []).map((a) => a.address)]);
  return ssOutput
    .split("\n")
    .filter((line) => line.trim() !== "")
    .filter((line) => {
      // State Recv-Q Send-Q Local:Port Peer:Port ...
      const local = line.trim().split(/\s+/)[3] ?? "";
      const address = local
        .slice(0, local.lastIndexOf(":"))
        .replace(/%.*$/, "")
        .replace(/^\[|\]$/g, "");
      return own.has(address) || own.has(`[${address}]`);
    });
}

/** Upstream's `! ss -ant46 'sport = :<port>' | tail -n +2 | grep LISTEN` on the node (as `ss -Hltn`, listening TCP sockets of either family), polled for `KubeProxyLagTimeout`. */
async function expectNotListening(ctx: TestContext, node: Node, port: number): Promise<void> {
  let listening: string[] = [];
  try {
    await poll(
      `NodePort ${port} to stop listening on node ${node.metadata.name}`,
      { timeoutMs: ctx.timeouts.kubeProxyLag, signal: ctx.signal },
      async () => {
        listening = listenersOnNode(await ctx.driver.execOnNode!(nodeRef(node), `ss -Hltn 'sport = :${port}'`), node);
        return listening.length === 0 ? true : undefined;
      },
    );
  } catch (error) {
    const reason = listening.length > 0 ? `stdout: ${listening.join("; ")}` : (error as Error).message;
    fail(`expected node port ${port} to not be in use in ${ctx.timeouts.kubeProxyLag} ms, ${reason}`);
  }
}

/**
 * `should fallback to [local] terminating endpoints when there are no ready endpoints with
 * internalTrafficPolicy=Cluster|Local`: one backend with a long grace period, deleted so it is
 * terminating and the only endpoint; a client (on another node for Cluster, the same node for
 * Local) still reaches the service.
 */
function terminatingFallback(policy: "Cluster" | "Local"): SuiteTest {
  return {
    name: `${SERVICES} should fallback to ${policy === "Local" ? "local " : ""}terminating endpoints when there are no ready endpoints with internalTrafficPolicy=${policy}`,
    upstream: UPSTREAM,
    requires: { capabilities: ["serviceTraffic"] },
    async run(ctx) {
      const nodes = await readySchedulableNodes(ctx.client);
      if (nodes.length < 2) skip("The test requires at least two ready nodes");
      const [node0, node1] = [nodes[0]!.metadata.name, nodes[1]!.metadata.name];
      const jig = new TestJig(ctx, `svc-itp-${policy.toLowerCase()}`);
      const svc = await jig.createTCPService((s) => void (s.spec.internalTrafficPolicy = policy));
      ctx.step("creating a backend pod with a long termination grace period on node0");
      const template = jig.podTemplate() as {
        metadata: Record<string, unknown>;
        spec: Record<string, unknown> & { containers: Record<string, unknown>[] };
      };
      template.spec.nodeName = node0;
      template.spec.terminationGracePeriodSeconds = 600;
      template.spec.containers[0]!.args = ["netexec", "--http-port=80", "--udp-port=80", "--delay-shutdown=600"];
      const pod = await ctx.client.create<Pod>(PODS, ctx.namespace, {
        apiVersion: "v1",
        kind: "Pod",
        ...template,
        metadata: { ...template.metadata, name: "webserver-pod" },
      });
      ctx.defer(() =>
        ctx.client.delete(PODS, ctx.namespace, pod.metadata.name, { gracePeriodSeconds: 0 }).then(
          () => undefined,
          (error: unknown) => (isNotFound(error) ? undefined : Promise.reject(error as Error)),
        ),
      );
      await jig.waitForReadyPods(1);
      const client = ctx.inCluster;
      const fromNode = policy === "Local" ? node0 : node1;
      const reach = () =>
        poll(
          `${svc.spec.clusterIP}:80 to answer from a pod on ${fromNode}`,
          { timeoutMs: ctx.timeouts.kubeProxyLag, signal: ctx.signal },
          async () => {
            const response = await client.httpGet(svc.spec.clusterIP!, 80, "/hostname", { timeoutMs: 5000, fromNode });
            return response.status === 200 ? response.body : undefined;
          },
        );
      ctx.step(`checking the service answers from a pod on ${fromNode}`);
      await reach();
      ctx.step("deleting the backend pod: it stays terminating and is the only endpoint");
      await ctx.client.delete(PODS, ctx.namespace, pod.metadata.name);
      await poll("the backend pod to be terminating", { timeoutMs: ctx.timeouts.podStart, signal: ctx.signal }, async () => {
        const current = await ctx.client.get<Pod>(PODS, ctx.namespace, pod.metadata.name);
        return current.metadata.deletionTimestamp !== undefined ? true : undefined;
      });
      ctx.step("checking the service still answers through the terminating endpoint");
      const hostname = await reach();
      if (hostname.trim() !== pod.metadata.name)
        fail(`expected the answer from the terminating pod ${pod.metadata.name}, got ${JSON.stringify(hostname)}`);
    },
  };
}

export const servicesTests: SuiteTest[] = [
  externalIPNotOnNode,
  sameNodePortDifferentProtocols,
  fromExternalName("ClusterIP"),
  fromExternalName("NodePort"),
  toExternalName("ClusterIP"),
  toExternalName("NodePort"),
  releaseNodePorts,
  deleteCollection,
  terminatingFallback("Cluster"),
  terminatingFallback("Local"),
];
