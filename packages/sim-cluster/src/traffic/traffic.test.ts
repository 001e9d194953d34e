import { createSocket } from "node:dgram";
import { once } from "node:events";
import { connect } from "node:net";
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

async function runPod(
  c: KubeClient,
  name: string,
  labels: Record<string, string>,
  nodeName: string,
  containers: unknown[] = [{ name: "c", image: "agnhost", args: ["netexec"] }],
): Promise<Running> {
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
    await expect(startSimCluster({ traffic: true, podCIDR: "10.244.0.0/16" })).rejects.toThrow(
      'podCIDR "10.244.0.0/16" must lie in 127.0.0.0/8',
    );
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
    expect(JSON.parse(healthy.body)).toEqual({
      service: { namespace: "default", name: "hc" },
      localEndpoints: 1,
      serviceProxyHealthy: true,
    });
    const unhealthy = await httpGet(without, port, "/healthz");
    expect(unhealthy.status).toBe(503);
    expect(JSON.parse(unhealthy.body)).toMatchObject({ localEndpoints: 0 });
    await client.delete(PODS, "default", "only");
    await eventually("the endpoint node to report unhealthy once its pod is gone", async () =>
      (await httpGet(withEndpoint, port, "/healthz")).status === 503 ? true : undefined,
    );
  });

  it("answers a TCP client that shuts down its sending side right after the request", async () => {
    const { client } = await start(1);
    await runPod(client, "raw", { app: "raw" }, "sim-node-1");
    const service = await client.create<KubeObject & { spec: { clusterIP: string } }>(SERVICES, "default", {
      metadata: { name: "raw" },
      spec: { selector: { app: "raw" }, ports: [{ port: 80, targetPort: 8080 }] },
    });
    await eventually("the ClusterIP", () => httpGet(service.spec.clusterIP, 80, "/hostname"));
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect({ host: service.spec.clusterIP, port: 80, allowHalfOpen: true }, () =>
        socket.end("GET /hostname HTTP/1.0\r\n\r\n"),
      );
      let data = "";
      socket.setEncoding("utf8").on("data", (chunk: string) => (data += chunk));
      socket.on("end", () => resolve(data));
      socket.on("error", reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.[01] 200 OK\r\n/);
    expect(answer.endsWith("\r\n\r\nraw")).toBe(true);
  });

  it("a hostNetwork pod has its node's address, and netexec's /dial leaves from the pod's address and resolves service names as cluster DNS does", async () => {
    const { client } = await start(2);
    const dialer = await runPod(client, "dialer", { app: "dialer" }, "sim-node-1", [
      { name: "c", image: "agnhost", args: ["netexec", "--http-port=8080", "--udp-port=8081"] },
    ]);
    await client.create(PODS, "default", {
      metadata: { name: "on-host" },
      spec: {
        nodeName: "sim-node-2",
        hostNetwork: true,
        containers: [{ name: "c", image: "agnhost", args: ["netexec", "--http-port=8080", "--udp-port=8081"] }],
      },
    });
    const onHost = await eventually("on-host running", async () => {
      const pod = await client.get<Running>(PODS, "default", "on-host");
      return pod.status.phase === "Running" ? pod : undefined;
    });
    const node2 = await nodeAddress(client, "sim-node-2");
    expect(onHost.status.podIP).toBe(node2);
    const target = await runPod(client, "target", { app: "target" }, "sim-node-1");
    await client.create(SERVICES, "default", {
      metadata: { name: "target" },
      spec: { selector: { app: "target" }, ports: [{ port: 80, targetPort: 8080 }] },
    });
    await client.create(SERVICES, "default", {
      metadata: { name: "alias" },
      spec: { type: "ExternalName", externalName: "target.default.svc.cluster.local" },
    });
    const dial = async (via: Running, host: string, port: number, request: string): Promise<{ responses?: string[]; errors?: string[] }> =>
      JSON.parse(
        (
          await httpGet(
            via.status.podIP,
            8080,
            `/dial?request=${encodeURIComponent(request)}&protocol=http&host=${host}&port=${port}&tries=1`,
          )
        ).body,
      ) as { responses?: string[]; errors?: string[] };
    expect((await dial(onHost, target.status.podIP, 8080, "clientip")).responses?.[0]).toMatch(
      new RegExp(`^${node2.replaceAll(".", "\\.")}:\\d+$`),
    );
    expect((await dial(dialer, target.status.podIP, 8080, "clientip")).responses?.[0]).toMatch(
      new RegExp(`^${dialer.status.podIP.replaceAll(".", "\\.")}:\\d+$`),
    );
    expect(
      await eventually(
        "the service name",
        async () => (await dial(dialer, "target.default.svc.cluster.local", 80, "hostname")).responses?.[0],
      ),
    ).toBe("target");
    expect(
      await eventually(
        "the ExternalName alias",
        async () => (await dial(dialer, "alias.default.svc.cluster.local", 80, "hostname")).responses?.[0],
      ),
    ).toBe("target");
    expect((await dial(dialer, "missing.default.svc.cluster.local", 80, "hostname")).errors?.[0]).toContain("no such host");
  });

  it("close() releases every address it bound", async () => {
    const { cluster, client } = await start(1);
    const pod = await runPod(client, "p", { app: "c" }, "sim-node-1");
    const service = await client.create<KubeObject & { spec: { clusterIP: string; ports: Array<{ nodePort: number }> } }>(
      SERVICES,
      "default",
      {
        metadata: { name: "c" },
        spec: { type: "NodePort", selector: { app: "c" }, ports: [{ port: 80, targetPort: 8080 }] },
      },
    );
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
