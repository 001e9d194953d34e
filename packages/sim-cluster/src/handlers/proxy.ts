import { request, type IncomingHttpHeaders } from "node:http";
import { ControlPlaneError, badRequest, type KubeObject } from "@kubekit/generic-controlplane";
import type { ResourceStore } from "@kubekit/generic-controlplane/registry";
import type { RequestContext, ResourceRequestInfo } from "@kubekit/generic-controlplane/server";
import type { Pod } from "../resources/pods.js";
import type { Service } from "../resources/services.js";
import { isLoopback } from "../traffic/loopback.js";

/**
 * `pods/<[scheme:]name[:port]>/proxy/<path>` and `services/<[scheme:]name[:port]>/proxy/<path>`,
 * upstream's ProxyREST for pods and services: the request (method, path after `proxy`, query,
 * body) goes to the pod's IP, or to one ready endpoint of the service, and the answer comes back
 * as it is. kube-apiserver refuses to proxy to loopback addresses; the sim cluster's pods live on
 * loopback in traffic mode, so those are exactly the addresses it proxies to, and nothing else:
 * outside traffic mode (pod IPs with no network behind them) the dial fails as on a cluster
 * whose pod network is down. Upgrades (websockets, SPDY) are not proxied.
 */

export interface ProxyStores {
  pods: ResourceStore;
  services: ResourceStore;
  endpoints: ResourceStore;
}

interface Target {
  scheme: string;
  ip: string;
  port: string;
}

/** Go's `net.SplitSchemeNamePort`: `name`, `name:port` or `scheme:name:port` (scheme http or https). */
function splitSchemeNamePort(id: string): { scheme: string; name: string; port: string } | undefined {
  const parts = id.split(":");
  if (parts.length === 1) return { scheme: "", name: parts[0]!, port: "" };
  if (parts.length === 2) return { scheme: "", name: parts[0]!, port: parts[1]! };
  if (parts.length === 3 && (parts[0] === "" || parts[0] === "http" || parts[0] === "https"))
    return { scheme: parts[0], name: parts[1]!, port: parts[2]! };
  return undefined;
}

function invalidRequest(resource: string, id: string): ControlPlaneError {
  return badRequest(`invalid ${resource} request ${JSON.stringify(id)}`);
}

/** upstream pod strategy's ResourceLocation: the pod's IP and the port named, or its first container port. */
async function podTarget(pods: ResourceStore, namespace: string | undefined, id: string): Promise<Target> {
  const parts = splitSchemeNamePort(id);
  if (parts === undefined || parts.name === "") throw invalidRequest("pod", id);
  const pod = (await pods.get(namespace, parts.name)) as Pod;
  let port = parts.port;
  if (port === "") port = String(pod.spec?.containers?.flatMap((c) => c.ports ?? [])[0]?.containerPort ?? "");
  const ip = pod.status?.podIP ?? "";
  if (ip === "") throw badRequest(`pod ${parts.name} does not have a host assigned`);
  return { scheme: parts.scheme === "" ? "http" : parts.scheme, ip, port };
}

interface EndpointsObject extends KubeObject {
  subsets?: Array<{ addresses?: Array<{ ip: string }>; ports?: Array<{ name?: string; port: number }> }>;
}

/** upstream service REST's ResourceLocation: the service port by name or number, then a random ready endpoint address with it. */
async function serviceTarget(stores: ProxyStores, namespace: string | undefined, id: string): Promise<Target> {
  const parts = splitSchemeNamePort(id);
  if (parts === undefined || parts.name === "") throw invalidRequest("service", id);
  const service = (await stores.services.get(namespace, parts.name)) as Service;
  let portName = parts.port;
  if (/^\d+$/.test(portName)) {
    const number = Number(portName);
    const servicePort = (service.spec?.ports ?? []).find((p) => p.port === number);
    if (servicePort === undefined)
      throw new ControlPlaneError("ServiceUnavailable", `no service port ${number} found for service "${parts.name}"`);
    portName = servicePort.name ?? "";
  }
  let endpoints: EndpointsObject;
  try {
    endpoints = await stores.endpoints.get(namespace, parts.name);
  } catch {
    endpoints = { subsets: [] };
  }
  const subsets = endpoints.subsets ?? [];
  if (subsets.length === 0) throw new ControlPlaneError("ServiceUnavailable", `no endpoints available for service "${parts.name}"`);
  const start = Math.floor(Math.random() * subsets.length);
  for (let i = 0; i < subsets.length; i++) {
    const subset = subsets[(start + i) % subsets.length]!;
    const addresses = subset.addresses ?? [];
    const port = (subset.ports ?? []).find((p) => (p.name ?? "") === portName);
    if (addresses.length === 0 || port === undefined) continue;
    const address = addresses[Math.floor(Math.random() * addresses.length)]!;
    return { scheme: parts.scheme === "" ? "http" : parts.scheme, ip: address.ip, port: String(port.port) };
  }
  throw new ControlPlaneError("ServiceUnavailable", `no endpoints available for service "${id}"`);
}

/** Request headers that belong to the hop to the API server, or carry the caller's credentials, and are not forwarded. */
const NOT_FORWARDED = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
  "te",
  "trailer",
  "host",
  "authorization",
]);

function forwardedHeaders(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  const out: IncomingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!NOT_FORWARDED.has(name) && !name.startsWith("impersonate-")) out[name] = value;
  }
  return out;
}

/** The path after `/proxy` (with a trailing slash kept), `/` when there is none. */
function forwardedPath(ctx: RequestContext): string {
  const at = ctx.path.indexOf("/proxy");
  const rest = at === -1 ? "" : ctx.path.slice(at + "/proxy".length);
  const search = ctx.query.size > 0 ? `?${ctx.query.toString()}` : "";
  return `${rest === "" ? "/" : rest}${search}`;
}

export async function serveProxy(ctx: RequestContext, info: ResourceRequestInfo, stores: ProxyStores): Promise<void> {
  const target =
    info.resource === "pods"
      ? await podTarget(stores.pods, info.namespace, info.name)
      : await serviceTarget(stores, info.namespace, info.name);
  if (target.scheme !== "http") throw badRequest(`the sim cluster proxies plain http only, not ${target.scheme}`);
  const port = target.port === "" ? "80" : target.port;
  const address = `${target.ip}:${port}`;
  if (!isLoopback(target.ip)) {
    throw new ControlPlaneError(
      "ServiceUnavailable",
      `error trying to reach service: dial tcp ${address}: connect: network is unreachable`,
    );
  }
  if (ctx.req.headers.upgrade !== undefined) throw badRequest("the sim cluster does not proxy connection upgrades");
  await new Promise<void>((resolve, reject) => {
    const outgoing = request(
      { host: target.ip, port: Number(port), method: ctx.method, path: forwardedPath(ctx), headers: forwardedHeaders(ctx.req.headers) },
      (answer) => {
        const headers = { ...answer.headers };
        delete headers.connection;
        delete headers["keep-alive"];
        ctx.res.writeHead(answer.statusCode ?? 502, headers);
        answer.pipe(ctx.res);
        answer.once("end", resolve);
        answer.once("error", reject);
      },
    );
    outgoing.once("error", (error: NodeJS.ErrnoException) => {
      if (ctx.res.headersSent) {
        ctx.res.destroy(error);
        resolve();
        return;
      }
      const reason = error.code === "ECONNREFUSED" ? "connect: connection refused" : error.message;
      reject(
        new ControlPlaneError("ServiceUnavailable", `error trying to reach service: dial tcp ${address}: ${reason}`, { cause: error }),
      );
    });
    ctx.req.pipe(outgoing);
  });
}
