import { createSocket } from "node:dgram";
import { request } from "node:http";
import type { KubeClient } from "@kubekit/generic-controlplane/controllers";
import type { ProbeOptions, ProbeResponse, TrafficClient } from "@kubekit/ccm-e2e";
import { NODES, SERVICES, internalIP, type NodeObject, type ServiceObject } from "./ccm/objects.js";

const CLUSTER_DOMAIN = ".svc.cluster.local";

/**
 * The in-cluster vantage point of a traffic-mode sim-cluster: requests leave from this host, from
 * a node's loopback address when `fromNode` asks (what a pod on that node would look like to the
 * kube-proxy stand-in), and `<service>.<namespace>.svc.cluster.local` resolves as cluster DNS
 * would: a ClusterIP service to its ClusterIP, an ExternalName service to its target, followed.
 */
export function clusterTraffic(client: KubeClient): TrafficClient {
  const resolve = async (host: string, depth = 0): Promise<string> => {
    if (!host.endsWith(CLUSTER_DOMAIN)) return host;
    if (depth > 5) throw new Error(`too many ExternalName hops resolving ${host}`);
    const [name, namespace] = host.slice(0, -CLUSTER_DOMAIN.length).split(".");
    const service = await client.get<ServiceObject>(SERVICES, namespace, name!);
    if (service.spec.type === "ExternalName") return resolve(String((service.spec as { externalName?: string }).externalName ?? ""), depth + 1);
    const ip = (service.spec as { clusterIP?: string }).clusterIP;
    if (ip === undefined || ip === "" || ip === "None") throw new Error(`${host} has no ClusterIP`);
    return ip;
  };
  const source = async (options: ProbeOptions): Promise<string | undefined> => {
    if (options.fromNode === undefined) return undefined;
    return internalIP(await client.get<NodeObject>(NODES, undefined, options.fromNode));
  };
  return {
    async httpGet(host: string, port: number, path: string, options: ProbeOptions): Promise<ProbeResponse> {
      const [address, localAddress] = await Promise.all([resolve(host), source(options)]);
      return new Promise((done, fail) => {
        const req = request({ host: address, port, path, agent: false, timeout: options.timeoutMs, headers: { connection: "close" }, ...(localAddress ? { localAddress } : {}) }, (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => (body += chunk));
          res.on("end", () => done({ status: res.statusCode ?? 0, body }));
          res.on("error", fail);
        });
        req.on("timeout", () => req.destroy(new Error(`no answer from ${address}:${port} within ${options.timeoutMs} ms`)));
        req.on("error", fail);
        req.end();
      });
    },
    async udpExchange(host: string, port: number, payload: string, options: ProbeOptions & { srcPort?: number }): Promise<string> {
      const [address, localAddress] = await Promise.all([resolve(host), source(options)]);
      return new Promise((done, fail) => {
        const socket = createSocket("udp4");
        const finish = (error?: Error, answer?: string) => {
          clearTimeout(timer);
          socket.close();
          if (error) fail(error);
          else done(answer!);
        };
        const timer = setTimeout(() => finish(new Error(`no UDP answer from ${address}:${port} within ${options.timeoutMs} ms`)), options.timeoutMs);
        socket.on("error", (error) => finish(error));
        socket.on("message", (message) => finish(undefined, message.toString("utf8")));
        socket.bind(options.srcPort ?? 0, localAddress, () => socket.send(payload, port, address));
      });
    },
  };
}
