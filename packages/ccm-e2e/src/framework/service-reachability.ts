import type { TestContext } from "./context.js";
import { nodeAddress, readySchedulableNodes } from "./nodes.js";
import { testReachableHTTP, testReachableUDP } from "./reachability.js";
import type { Service } from "./resources.js";

/**
 * `CheckServiceReachability` / `TestAllEndpointsReachable`: from inside the cluster, the ClusterIP
 * on every service port and, for NodePort and LoadBalancer services, every port's NodePort on a
 * ready node. Each within `KubeProxyLagTimeout`.
 */
export async function checkServiceReachability(ctx: TestContext, service: Service): Promise<void> {
  const client = ctx.inCluster;
  const timeout = ctx.timeouts.kubeProxyLag;
  const type = service.spec.type ?? "ClusterIP";
  const nodeIP = type === "NodePort" || type === "LoadBalancer" ? await pickNodeIP(ctx) : undefined;
  for (const port of service.spec.ports ?? []) {
    const reach = port.protocol === "UDP" ? testReachableUDP : testReachableHTTP;
    ctx.step(
      `checking ${service.metadata.name} on ${service.spec.clusterIP}:${port.port}/${port.protocol ?? "TCP"} from inside the cluster`,
    );
    await reach(client, service.spec.clusterIP!, port.port, timeout, ctx.signal);
    if (nodeIP !== undefined && (port.nodePort ?? 0) !== 0) {
      ctx.step(
        `checking ${service.metadata.name} on NodePort ${nodeIP}:${port.nodePort}/${port.protocol ?? "TCP"} from inside the cluster`,
      );
      await reach(client, nodeIP, port.nodePort!, timeout, ctx.signal);
    }
  }
}

/** `e2enode.PickIP`: the address of a ready schedulable node. */
export async function pickNodeIP(ctx: TestContext): Promise<string> {
  for (const node of await readySchedulableNodes(ctx.client)) {
    const address = nodeAddress(node);
    if (address !== undefined) return address;
  }
  throw new Error("no ready schedulable node has an address");
}
