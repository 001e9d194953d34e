import { NetworkRegistry, type AddressRecord, type Allocation, type NetworkClaim } from "@kubekit/network-registry";

export interface PlanOptions {
  clusters: number;
  nodesPerCluster: number;
  /** IPv4 space the platform owns and delegates to clusters. */
  ipv4Supernet: string;
  /** IPv6 ULA space the platform owns and delegates to clusters. */
  ipv6Supernet: string;
  podPrefixLength: number;
  servicePrefixLength: number;
  nodePrefixLength: number;
  podPrefixLength6: number;
  servicePrefixLength6: number;
  nodePrefixLength6: number;
}

export const DEFAULT_PLAN: PlanOptions = {
  clusters: 3,
  nodesPerCluster: 4,
  ipv4Supernet: "10.0.0.0/8",
  ipv6Supernet: "fd00:10::/32",
  podPrefixLength: 16,
  servicePrefixLength: 20,
  nodePrefixLength: 24,
  podPrefixLength6: 48,
  servicePrefixLength6: 112,
  nodePrefixLength6: 64,
};

export interface ClusterPlan {
  name: string;
  pods: string[];
  services: string[];
  nodes: { name: string; podCIDRs: string[] }[];
}

export interface Plan {
  clusters: ClusterPlan[];
  /** The declared claims as the registry holds them (the platform's supernets), with status. */
  claims: NetworkClaim[];
  /** Every block handed out (cluster ranges and node pod CIDRs), one record each. */
  allocations: Allocation[];
  utilization: { pool: string; percentUsed: number; largestFree: string | undefined }[];
}

const pods = { group: "", resource: "pods" };
const services = { group: "", resource: "services" };

/**
 * Plan dual-stack address space for N clusters that must not overlap (they are connected):
 * the platform claims the supernets and delegates them; each cluster's kube-controller-manager
 * takes a pod range, its kube-apiserver a service range, and every node a pod CIDR from its
 * cluster's pod range. The registry guarantees the result has no undeclared overlap.
 */
export function planClusters(options: PlanOptions = DEFAULT_PLAN, clock: () => Date = () => new Date()): Plan {
  const registry = new NetworkRegistry({ clock });
  const platform = registry.claim({
    metadata: { name: "platform" },
    spec: {
      addressSpace: [
        { reference: pods, prefix: options.ipv4Supernet, description: "IPv4 space for all clusters", delegateTo: ["*"] },
        { reference: pods, prefix: options.ipv6Supernet, description: "IPv6 ULA space for all clusters", delegateTo: ["*"] },
      ],
    },
  });
  const refused = platform.status?.addressSpace.find((r) => r.status !== "allocated");
  if (refused !== undefined) throw new Error(`the platform cannot claim ${refused.prefix}: ${refused.conflict?.message ?? "refused"}`);

  const take = (claim: string, reference: AddressRecord["reference"], from: string, prefixLength: number, description: string): string =>
    registry.allocate({ claim, reference, from, prefixLength, strategy: "first-fit", description }).prefix;

  const clusters: ClusterPlan[] = [];
  for (let i = 1; i <= options.clusters; i++) {
    const name = `cluster-${i}`;
    const kcm = `${name}.kube-controller-manager`;
    const apiserver = `${name}.kube-apiserver`;
    const pods4 = take(kcm, pods, options.ipv4Supernet, options.podPrefixLength, `${name} pod network`);
    const pods6 = take(kcm, pods, options.ipv6Supernet, options.podPrefixLength6, `${name} pod network`);
    const services4 = take(apiserver, services, options.ipv4Supernet, options.servicePrefixLength, `${name} service network`);
    const services6 = take(apiserver, services, options.ipv6Supernet, options.servicePrefixLength6, `${name} service network`);
    const nodes = Array.from({ length: options.nodesPerCluster }, (_, n) => {
      const node = `${name}.node-${n + 1}`;
      return {
        name: `node-${n + 1}`,
        podCIDRs: [
          take(kcm, { group: "", resource: "nodes", name: node }, pods4, options.nodePrefixLength, `${node} pod CIDR`),
          take(kcm, { group: "", resource: "nodes", name: node }, pods6, options.nodePrefixLength6, `${node} pod CIDR`),
        ],
      };
    });
    clusters.push({ name, pods: [pods4, pods6], services: [services4, services6], nodes });
  }
  const utilization = [options.ipv4Supernet, options.ipv6Supernet].map((pool) => {
    const usage = registry.utilization(pool);
    return { pool, percentUsed: usage.percentUsed, largestFree: usage.largestFree };
  });
  return { clusters, claims: registry.list(), allocations: registry.allocations(), utilization };
}

/** The plan as an aligned text table. */
export function formatPlan(plan: Plan): string {
  const lines: string[] = [];
  for (const cluster of plan.clusters) {
    lines.push(`${cluster.name}`);
    lines.push(`  pods      ${cluster.pods.join("  ")}`);
    lines.push(`  services  ${cluster.services.join("  ")}`);
    for (const node of cluster.nodes) lines.push(`  ${node.name.padEnd(8)}  ${node.podCIDRs.join("  ")}`);
  }
  lines.push("");
  for (const u of plan.utilization)
    lines.push(`${u.pool}: ${Number(u.percentUsed.toPrecision(3))}% used, largest free block ${u.largestFree ?? "none"}`);
  return `${lines.join("\n")}\n`;
}
