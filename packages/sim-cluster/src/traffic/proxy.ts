import { parseIPv4 } from "../allocators/cluster-ip.js";
import type { EndpointSlice } from "../resources/endpoint-slices.js";
import type { Service } from "../resources/services.js";
import { AffinityTable, DEFAULT_AFFINITY_SECONDS } from "./affinity.js";
import { startTcpForwarder, startUdpForwarder, type Forwarder, type Target } from "./forwarders.js";
import { startHealthCheckServer, type HealthReport } from "./health-check.js";
import { isLoopback } from "./loopback.js";
import { clusterEndpoints, endpointsOfPort, localEndpoints, type ProxyEndpoint } from "./service-endpoints.js";

type Log = (record: { msg: string; level?: "info" | "warn" | "error" } & Record<string, unknown>) => void;

export interface ProxyNode {
  address: string;
  podCIDR: string;
}

/** One address a service is reachable on, and how traffic arriving there is spread. */
interface Route {
  ip: string;
  port: number;
  protocol: "TCP" | "UDP";
  /** `namespace/name:port/protocol`, the key of affinity. */
  servicePort: string;
  /** The node whose NodePort this is; undefined for a ClusterIP. */
  node: string | undefined;
  /** externalTrafficPolicy (NodePorts) or internalTrafficPolicy (ClusterIPs) is Local. */
  local: boolean;
  endpoints: ProxyEndpoint[];
  affinitySeconds: number | undefined;
}

function routeKey(route: Pick<Route, "ip" | "port" | "protocol">): string {
  return `${route.protocol}/${route.ip}:${route.port}`;
}

function inCIDR(ip: string, cidr: string): boolean {
  const [base, bits] = cidr.split("/");
  const value = parseIPv4(ip);
  const network = parseIPv4(base ?? "");
  if (value === undefined || network === undefined) return false;
  const mask = Number(bits) === 0 ? 0 : (0xffffffff << (32 - Number(bits))) >>> 0;
  return (value & mask) >>> 0 === (network & mask) >>> 0;
}

/** Whether kube-proxy would answer on this route at all: some endpoint may take its traffic. */
function usable(route: Route): boolean {
  if (route.node !== undefined && route.local) return localEndpoints(route.endpoints, route.node).length > 0;
  return clusterEndpoints(route.endpoints).length > 0;
}

/**
 * A kube-proxy stand-in for the whole cluster, userspace-proxy style: it binds every ClusterIP:port
 * and every node address:nodePort (TCP and UDP) of services that have endpoints, and forwards
 * each connection or UDP flow to an endpoint from the services' EndpointSlices, as kube-proxy's
 * rules would:
 *
 * - ready endpoints, or when none is ready the serving terminating ones;
 * - `externalTrafficPolicy: Local` on a NodePort: only the receiving node's endpoints, reached
 *   from the client's own address (source IP preserved); Cluster: any endpoint, reached from the
 *   receiving node's address (as kube-proxy masquerades);
 * - `internalTrafficPolicy: Local` on a ClusterIP: the client node's endpoints (a client whose
 *   address is a node's or in a node's pod range; others are treated as Cluster);
 * - `sessionAffinity: ClientIP` with `timeoutSeconds`.
 *
 * An address with no endpoint to send to is not bound, so clients are refused as kube-proxy's
 * REJECT rule does (for a Local policy without local endpoints kube-proxy drops instead).
 */
export class ServiceProxy {
  readonly #nodes = new Map<string, ProxyNode>();
  readonly #forwarders = new Map<string, Forwarder>();
  readonly #affinity = new AffinityTable();
  readonly #services: () => readonly Service[];
  readonly #slicesOf: (namespace: string, name: string) => readonly EndpointSlice[];
  readonly #log: Log | undefined;
  #routes = new Map<string, Route>();
  /** Health check NodePorts (`TCP/<node address>:<port>`) and what each reports. */
  #healthChecks = new Map<string, HealthReport>();
  readonly #healthServers = new Map<string, { close(): Promise<void> }>();
  #dirty = false;
  #running: Promise<void> = Promise.resolve();
  #closed = false;

  constructor(services: () => readonly Service[], slicesOf: (namespace: string, name: string) => readonly EndpointSlice[], log?: Log) {
    this.#services = services;
    this.#slicesOf = slicesOf;
    this.#log = log;
  }

  addNode(name: string, node: ProxyNode): Promise<void> {
    this.#nodes.set(name, node);
    return this.sync();
  }

  removeNode(name: string): Promise<void> {
    this.#nodes.delete(name);
    return this.sync();
  }

  /** Brings the bound addresses in line with services, slices and nodes; resolves once they are. */
  sync(): Promise<void> {
    if (this.#dirty) return this.#running;
    this.#dirty = true;
    this.#running = this.#running.then(async () => {
      this.#dirty = false;
      await this.#reconcile();
    });
    return this.#running;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#running;
    const servers = [...this.#forwarders.values(), ...this.#healthServers.values()];
    this.#forwarders.clear();
    this.#healthServers.clear();
    await Promise.all(servers.map((s) => s.close()));
  }

  /** Every LoadBalancer service with `externalTrafficPolicy: Local` and a `healthCheckNodePort`, on every node. */
  #computeHealthChecks(): Map<string, HealthReport> {
    const checks = new Map<string, HealthReport>();
    for (const service of this.#services()) {
      const port = service.spec?.healthCheckNodePort;
      if (!port || service.spec?.type !== "LoadBalancer" || service.spec.externalTrafficPolicy !== "Local") continue;
      const namespace = service.metadata?.namespace ?? "";
      const name = service.metadata?.name ?? "";
      const first = service.spec.ports?.[0];
      const endpoints = first !== undefined ? endpointsOfPort(this.#slicesOf(namespace, name), first) : [];
      for (const [node, { address }] of this.#nodes) {
        if (isLoopback(address))
          checks.set(`TCP/${address}:${port}`, {
            namespace,
            name,
            localEndpoints: endpoints.filter((e) => e.nodeName === node && e.ready).length,
          });
      }
    }
    return checks;
  }

  #computeRoutes(): Map<string, Route> {
    const routes = new Map<string, Route>();
    const add = (route: Route) => {
      if (isLoopback(route.ip) && usable(route)) routes.set(routeKey(route), route);
    };
    for (const service of this.#services()) {
      const spec = service.spec ?? {};
      const type = spec.type ?? "ClusterIP";
      if (type === "ExternalName" || !spec.clusterIP || spec.clusterIP === "None") continue;
      const namespace = service.metadata?.namespace ?? "";
      const name = service.metadata?.name ?? "";
      const slices = this.#slicesOf(namespace, name);
      const affinity =
        spec.sessionAffinity === "ClientIP"
          ? ((spec["sessionAffinityConfig"] as { clientIP?: { timeoutSeconds?: number } } | undefined)?.clientIP?.timeoutSeconds ??
            DEFAULT_AFFINITY_SECONDS)
          : undefined;
      for (const port of spec.ports ?? []) {
        const protocol = port.protocol ?? "TCP";
        if ((protocol !== "TCP" && protocol !== "UDP") || typeof port.port !== "number") continue;
        const common = {
          protocol,
          servicePort: `${namespace}/${name}:${port.name ?? ""}/${protocol}`,
          endpoints: endpointsOfPort(slices, port),
          affinitySeconds: affinity,
        } as const;
        add({ ...common, ip: spec.clusterIP, port: port.port, node: undefined, local: spec.internalTrafficPolicy === "Local" });
        if ((type === "NodePort" || type === "LoadBalancer") && port.nodePort) {
          for (const [node, { address }] of this.#nodes)
            add({ ...common, ip: address, port: port.nodePort, node, local: spec.externalTrafficPolicy === "Local" });
        }
      }
    }
    return routes;
  }

  #clientNode(ip: string): string | undefined {
    for (const [name, node] of this.#nodes) if (node.address === ip || inCIDR(ip, node.podCIDR)) return name;
    return undefined;
  }

  /** The endpoint and source address for a new connection on `key` from `clientIP`. */
  #choose(key: string, clientIP: string): Target | undefined {
    const route = this.#routes.get(key);
    if (route === undefined) return undefined;
    let candidates: ProxyEndpoint[];
    if (route.node !== undefined)
      candidates = route.local ? localEndpoints(route.endpoints, route.node) : clusterEndpoints(route.endpoints);
    else {
      const from = route.local ? this.#clientNode(clientIP) : undefined;
      candidates = from !== undefined ? localEndpoints(route.endpoints, from) : clusterEndpoints(route.endpoints);
    }
    const endpoint =
      route.affinitySeconds !== undefined
        ? this.#affinity.choose(route.servicePort, clientIP, route.affinitySeconds, candidates)
        : candidates[Math.floor(Math.random() * candidates.length)];
    if (endpoint === undefined) return undefined;
    // NodePort traffic under Cluster policy is masqueraded to the node's address; otherwise the client's address is kept.
    const masquerade = route.node !== undefined && !route.local;
    const localAddress = masquerade ? this.#nodes.get(route.node!)!.address : clientIP;
    return { endpoint, localAddress: isLoopback(localAddress) ? localAddress : "127.0.0.1" };
  }

  async #reconcile(): Promise<void> {
    if (this.#closed) return;
    const routes = this.#computeRoutes();
    this.#routes = routes;
    this.#healthChecks = this.#computeHealthChecks();
    await this.#reconcileHealthServers();
    this.#affinity.retain(new Set([...routes.values()].filter((r) => r.affinitySeconds !== undefined).map((r) => r.servicePort)));
    const stale = [...this.#forwarders.entries()].filter(([key]) => !routes.has(key));
    for (const [key] of stale) this.#forwarders.delete(key);
    await Promise.all(stale.map(([, forwarder]) => forwarder.close()));
    for (const [key, forwarder] of this.#forwarders) {
      const route = routes.get(key)!;
      const live = new Set(route.endpoints.filter((e) => e.ready || (e.serving && e.terminating)).map((e) => `${e.ip}:${e.port}`));
      forwarder.prune((e) => live.has(`${e.ip}:${e.port}`));
    }
    await Promise.all(
      [...routes.entries()]
        .filter(([key]) => !this.#forwarders.has(key))
        .map(async ([key, route]) => {
          const choose = (clientIP: string) => this.#choose(key, clientIP);
          try {
            const forwarder =
              route.protocol === "TCP"
                ? await startTcpForwarder(route.ip, route.port, choose)
                : await startUdpForwarder(route.ip, route.port, choose);
            if (this.#closed) await forwarder.close();
            else this.#forwarders.set(key, forwarder);
          } catch (error) {
            this.#log?.({
              level: "warn",
              msg: "service address could not be bound",
              address: key,
              service: route.servicePort,
              error: String(error),
            });
          }
        }),
    );
  }

  async #reconcileHealthServers(): Promise<void> {
    const stale = [...this.#healthServers.entries()].filter(([key]) => !this.#healthChecks.has(key));
    for (const [key] of stale) this.#healthServers.delete(key);
    await Promise.all(stale.map(([, server]) => server.close()));
    await Promise.all(
      [...this.#healthChecks.keys()]
        .filter((key) => !this.#healthServers.has(key))
        .map(async (key) => {
          const [, ip, port] = /^TCP\/(.+):(\d+)$/.exec(key)!;
          try {
            const server = await startHealthCheckServer(ip!, Number(port), () => this.#healthChecks.get(key));
            if (this.#closed) await server.close();
            else this.#healthServers.set(key, server);
          } catch (error) {
            this.#log?.({ level: "warn", msg: "health check port could not be bound", address: key, error: String(error) });
          }
        }),
    );
  }
}
