import { createSocket } from "node:dgram";
import { once } from "node:events";
import type { KubeObject } from "@kubekit/generic-controlplane";
import { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { afterEach, describe, expect, it } from "vitest";
import { eventually } from "../../test/kubectl.js";
import { httpFailure, httpGet } from "../../test/traffic-client.js";
import { startSimCluster, type SimCluster } from "../cluster.js";
import { NODES, PODS, SERVICES } from "../refs.js";

let cluster: SimCluster | undefined;
let client: KubeClient | undefined;
afterEach(async () => {
  client?.close();
  client = undefined;
  await cluster?.close();
  cluster = undefined;
});

async function start(nodes: number): Promise<{ cluster: SimCluster; client: KubeClient }> {
  cluster = await startSimCluster({ nodes, traffic: true });
  client = new KubeClient({ server: cluster.url });
  return { cluster, client };
}

type Running = KubeObject & { status: { podIP: string; phase?: string } };

async function runPod(c: KubeClient, name: string, labels: Record<string, string>, nodeName: string, containers: unknown[] = [{ name: "c", image: "agnhost", args: ["netexec"] }]): Promise<Running> {
  await c.create(PODS, "default", { metadata: { name, labels }, spec: { nodeName, containers } });
  return eventually(`${name} running`, async () => {
    const pod = await c.get<Running>(PODS, "default", name);
    return pod.status.phase === "Running" ? pod : undefined;
  });
}

async function nodeAddress(c: KubeClient, name: string): Promise<string> {
  const node = await c.get<KubeObject & { status: { addresses: Array<{ type: string; address: string }> } }>(NODES, undefined, name);
  return node.status.addresses.find((a) => a.type === "InternalIP")!.address;
}

describe("traffic mode", () => {
  it("refuses address ranges outside 127.0.0.0/8", async () => {
    await expect(startSimCluster({ traffic: true, podCIDR: "10.244.0.0/16" })).rejects.toThrow('podCIDR "10.244.0.0/16" must lie in 127.0.0.0/8');
  });

  it("internalTrafficPolicy Local sends a node's clients to that node's endpoints only", async () => {
    const { client } = await start(2);
    await runPod(client, "on-1", { app: "itp" }, "sim-node-1");
    await runPod(client, "on-2", { app: "itp" }, "sim-node-2");
    const service = await client.create<KubeObject & { spec: { clusterIP: string } }>(SERVICES, "default", {
      metadata: { name: "itp" },
      spec: { selector: { app: "itp" }, internalTrafficPolicy: "Local", ports: [{ port: 80, targetPort: 8080 }] },
    });
    const ip = service.spec.clusterIP;
    const node1 = await nodeAddress(client, "sim-node-1");
    const node2 = await nodeAddress(client, "sim-node-2");
    await eventually("both endpoints", async () => {
      const hosts = new Set<string>();
      for (let i = 0; i < 20; i++) hosts.add((await httpGet(ip, 80, "/hostname")).body);
      return hosts.size === 2 ? true : undefined;
    });
    for (let i = 0; i < 10; i++) {
      expect((await httpGet(ip, 80, "/hostname", node1)).body).toBe("on-1");
      expect((await httpGet(ip, 80, "/hostname", node2)).body).toBe("on-2");
    }
    // No local endpoint for a client on node 2 once its pod is gone: its connections are cut off.
    await client.delete(PODS, "default", "on-2");
    await eventually("node 2's client to be cut off", async () => {
      try {
        await httpGet(ip, 80, "/hostname", node2);
        return undefined;
      } catch (error) {
        return (error as NodeJS.ErrnoException).code === "ECONNRESET" ? true : undefined;
      }
    });
    expect((await httpGet(ip, 80, "/hostname", node1)).body).toBe("on-1");
  });

  it("moves a UDP flow to the new pod when its server pod is replaced, as kube-proxy clears conntrack entries", async () => {
    const { client } = await start(1);
    await runPod(client, "first", { app: "udp" }, "sim-node-1");
    const service = await client.create<KubeObject & { spec: { clusterIP: string } }>(SERVICES, "default", {
      metadata: { name: "udp" },
      spec: { selector: { app: "udp" }, ports: [{ port: 53, protocol: "UDP", targetPort: 8081 }] },
    });
    const socket = createSocket("udp4");
    try {
      const replies: string[] = [];
      socket.on("message", (m) => replies.push(m.toString()));
      socket.bind(0, "127.0.0.1");
      await once(socket, "listening");
      const ask = () => socket.send("hostname", 53, service.spec.clusterIP);
      await eventually("an answer from the first pod", () => {
        ask();
        return Promise.resolve(replies.includes("first") ? true : undefined);
      });
      await runPod(client, "second", { app: "udp" }, "sim-node-1");
      await client.delete(PODS, "default", "first");
      await eventually("the same client socket to reach the second pod", () => {
        ask();
        return Promise.resolve(replies.at(-1) === "second" ? true : undefined);
      });
    } finally {
      socket.close();
    }
  });

  it("answers on a LoadBalancer's healthCheckNodePort as kube-proxy: 200 on nodes with a ready endpoint, 503 elsewhere", async () => {
    const { client } = await start(2);
    await runPod(client, "only", { app: "hc" }, "sim-node-2");
    const service = await client.create<KubeObject & { spec: { healthCheckNodePort: number } }>(SERVICES, "default", {
      metadata: { name: "hc" },
      spec: { type: "LoadBalancer", externalTrafficPolicy: "Local", selector: { app: "hc" }, ports: [{ port: 80, targetPort: 8080 }] },
    });
    const port = service.spec.healthCheckNodePort;
    const withEndpoint = await nodeAddress(client, "sim-node-2");
    const without = await nodeAddress(client, "sim-node-1");
    const healthy = await eventually("the endpoint node to report healthy", async () => {
      const answer = await httpGet(withEndpoint, port, "/healthz");
      return answer.status === 200 ? answer : undefined;
    });
    expect(JSON.parse(healthy.body)).toEqual({ service: { namespace: "default", name: "hc" }, localEndpoints: 1, serviceProxyHealthy: true });
    const unhealthy = await httpGet(without, port, "/healthz");
    expect(unhealthy.status).toBe(503);
    expect(JSON.parse(unhealthy.body)).toMatchObject({ localEndpoints: 0 });
    await client.delete(PODS, "default", "only");
    await eventually("the endpoint node to report unhealthy once its pod is gone", async () => ((await httpGet(withEndpoint, port, "/healthz")).status === 503 ? true : undefined));
  });

  it("close() releases every address it bound", async () => {
    const { cluster, client } = await start(1);
    const pod = await runPod(client, "p", { app: "c" }, "sim-node-1");
    const service = await client.create<KubeObject & { spec: { clusterIP: string; ports: Array<{ nodePort: number }> } }>(SERVICES, "default", {
      metadata: { name: "c" },
      spec: { type: "NodePort", selector: { app: "c" }, ports: [{ port: 80, targetPort: 8080 }] },
    });
    const node = await nodeAddress(client, "sim-node-1");
    await eventually("the NodePort", () => httpGet(node, service.spec.ports[0]!.nodePort, "/hostname"));
    expect((await httpGet(service.spec.clusterIP, 80, "/hostname")).body).toBe("p");
    expect((await httpGet(pod.status.podIP, 8080, "/hostname")).body).toBe("p");
    client.close();
    await cluster.close();
    expect(await httpFailure(node, service.spec.ports[0]!.nodePort, "/")).toBe("ECONNREFUSED");
    expect(await httpFailure(service.spec.clusterIP, 80, "/")).toBe("ECONNREFUSED");
    expect(await httpFailure(pod.status.podIP, 8080, "/")).toBe("ECONNREFUSED");
  });
});
