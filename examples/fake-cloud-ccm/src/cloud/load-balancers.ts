import { randomInt } from "node:crypto";
import { BlockList, isIPv6 } from "node:net";
import type { CloudLoadBalancer, Protocol } from "@kubekit/ccm-e2e";
import { AddressPool } from "./address-pool.js";
import { tcpListener, udpListener, type Listener, type Target } from "./listener.js";

/** What the service controller asks the cloud for (`EnsureLoadBalancer`'s service and nodes). */
export interface LoadBalancerSpec {
  /** `cloudprovider.DefaultLoadBalancerName`. */
  name: string;
  ports: { port: number; protocol: Protocol; nodePort?: number }[];
  sessionAffinity: "None" | "ClientIP";
  /** Per listener (`<port>/<protocol>`), the targets: NodePorts of the backend nodes, or pods. */
  targets: Map<string, Target[]>;
  /** The backend nodes, as the cloud reports them. */
  backendNodes: string[];
  /** `spec.loadBalancerSourceRanges`: clients outside every CIDR are refused; empty or absent admits all. */
  sourceRanges?: string[];
  /**
   * An internal load balancer: its address comes from the private pool and it admits only the
   * cluster's network, these CIDRs (the nodes' addresses and pod ranges).
   */
  internal?: { clusterNetwork: string[] };
}

interface LoadBalancer {
  spec: LoadBalancerSpec;
  /** The source ranges as a matcher, or undefined when every client is admitted. */
  admitted: BlockList | undefined;
  /** For an internal load balancer, the cluster's network; undefined for an external one. */
  clusterNetwork: BlockList | undefined;
  ingressIP: string;
  listeners: Map<string, Listener>;
  /** ClientIP affinity: client address → backend name, per listener. */
  affinity: Map<string, string>;
  roundRobin: number;
}

export const listenerKey = (port: number, protocol: string) => `${port}/${protocol}`;

/**
 * The fake cloud's load balancers: one VIP each, with a real TCP or UDP listener per port on it,
 * forwarding to the targets the CCM last programmed. `ensure` creates or updates (keeping the
 * VIP, unless the load balancer turns internal or external: then it moves to the other pool, as
 * a cloud recreates its frontend), `delete` closes everything.
 */
export class FakeLoadBalancers {
  readonly #pool = new AddressPool();
  /** The private addresses of internal load balancers, a /16 of their own. */
  readonly #internalPool = new AddressPool(internalSecondOctet(this.#pool.secondOctet));
  readonly #lbs = new Map<string, LoadBalancer>();

  /** Where internal load balancers' addresses lie (what the driver declares as their `ingressCIDRs`). */
  get internalCIDR(): string {
    return `${this.#internalPool.prefix}.0.0/16`;
  }

  /** Creates or updates; resolves with the ingress IP. */
  async ensure(spec: LoadBalancerSpec): Promise<string> {
    let lb = this.#lbs.get(spec.name);
    if (lb !== undefined && (lb.spec.internal === undefined) !== (spec.internal === undefined)) {
      await this.delete(spec.name);
      lb = undefined;
    }
    if (lb === undefined) {
      const ingressIP = spec.internal === undefined ? this.#pool.allocate() : this.#internalPool.allocate();
      lb = { spec, admitted: undefined, clusterNetwork: undefined, ingressIP, listeners: new Map(), affinity: new Map(), roundRobin: 0 };
      this.#lbs.set(spec.name, lb);
    }
    if (spec.sessionAffinity !== lb.spec.sessionAffinity) lb.affinity.clear();
    lb.spec = spec;
    lb.admitted = sourceRangeMatcher(spec.sourceRanges);
    lb.clusterNetwork = spec.internal === undefined ? undefined : (sourceRangeMatcher(spec.internal.clusterNetwork) ?? new BlockList());
    const wanted = new Set(spec.ports.map((p) => listenerKey(p.port, p.protocol)));
    for (const [key, listener] of lb.listeners) {
      if (!wanted.has(key)) {
        lb.listeners.delete(key);
        await listener.close();
      }
    }
    for (const port of spec.ports) {
      const key = listenerKey(port.port, port.protocol);
      if (lb.listeners.has(key)) continue;
      const current = lb;
      const pick = (client: string) => this.#pick(current, key, client);
      lb.listeners.set(
        key,
        port.protocol === "UDP" ? await udpListener(lb.ingressIP, port.port, pick) : await tcpListener(lb.ingressIP, port.port, pick),
      );
    }
    return lb.ingressIP;
  }

  #pick(lb: LoadBalancer, key: string, client: string): Target | undefined {
    // A refused source gets what a cloud firewall gives it: no connection.
    const family = isIPv6(client) ? "ipv6" : "ipv4";
    if (lb.admitted !== undefined && !lb.admitted.check(client, family)) return undefined;
    // An internal load balancer is not routed from outside the cluster's network.
    if (lb.clusterNetwork !== undefined && !lb.clusterNetwork.check(client, family)) return undefined;
    const targets = lb.spec.targets.get(key) ?? [];
    if (targets.length === 0) return undefined;
    if (lb.spec.sessionAffinity === "ClientIP") {
      const held = targets.find((t) => t.name === lb.affinity.get(`${key} ${client}`));
      if (held !== undefined) return held;
    }
    const target = targets[lb.roundRobin++ % targets.length]!;
    if (lb.spec.sessionAffinity === "ClientIP") lb.affinity.set(`${key} ${client}`, target.name);
    return target;
  }

  async delete(name: string): Promise<void> {
    const lb = this.#lbs.get(name);
    if (lb === undefined) return;
    this.#lbs.delete(name);
    await Promise.all([...lb.listeners.values()].map((l) => l.close()));
  }

  /** The cloud's view (`GetLoadBalancer`). */
  get(name: string): CloudLoadBalancer | undefined {
    const lb = this.#lbs.get(name);
    if (lb === undefined) return undefined;
    return {
      ingress: [{ ip: lb.ingressIP }],
      ports: lb.spec.ports.map((p) => ({ ...p })),
      backendNodes: [...lb.spec.backendNodes],
      sessionAffinity: lb.spec.sessionAffinity,
    };
  }

  /** What the CCM last programmed (the fault that ignores port changes keeps it). */
  spec(name: string): LoadBalancerSpec | undefined {
    return this.#lbs.get(name)?.spec;
  }

  names(): string[] {
    return [...this.#lbs.keys()];
  }

  async close(): Promise<void> {
    await Promise.all(this.names().map((name) => this.delete(name)));
  }
}

/**
 * A random /16 for internal addresses other than `taken`; one that is 3 modulo 4, which the sim
 * cluster's own ranges (pods, services, nodes at 4n, 4n+1, 4n+2) never use.
 */
function internalSecondOctet(taken: number): number {
  for (;;) {
    const octet = 4 * randomInt(40, 63) + 3;
    if (octet !== taken) return octet;
  }
}

/** The CIDRs a load balancer admits; an invalid one is the CCM's error, as the cloud API's would be. */
function sourceRangeMatcher(ranges: readonly string[] | undefined): BlockList | undefined {
  if (ranges === undefined || ranges.length === 0) return undefined;
  const list = new BlockList();
  for (const range of ranges) {
    const [address, prefix] = range.trim().split("/");
    if (address === undefined || prefix === undefined) throw new Error(`invalid source range ${JSON.stringify(range)}`);
    list.addSubnet(address, Number(prefix), isIPv6(address) ? "ipv6" : "ipv4");
  }
  return list;
}
