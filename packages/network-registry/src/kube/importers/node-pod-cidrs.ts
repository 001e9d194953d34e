import type { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { readObservedPrefix, type ImportResult, type ObservedRange } from "./observed.js";
import { listAll, servedResource } from "./served.js";

interface Node {
  metadata: { name: string; uid?: string };
  spec?: { podCIDR?: unknown; podCIDRs?: unknown };
}

/**
 * Every node's `spec.podCIDRs` (or the older single `spec.podCIDR`): the pod ranges the node IPAM
 * controller handed out. Each is owned by its node (`nodes/<name>`); nodes without pod CIDRs add
 * nothing.
 */
export async function importNodePodCIDRs(client: KubeClient, options: { pageSize?: number } = {}): Promise<ImportResult> {
  const ref = await servedResource(client, "", "nodes");
  if (ref === undefined)
    return { ranges: [], problems: [], skipped: "nodes are not served by this API server; node pod CIDRs were not read" };
  const nodes = await listAll<Node>(client, ref, options.pageSize);
  const ranges: ObservedRange[] = [];
  const problems: string[] = [];
  for (const node of nodes) {
    const name = node.metadata.name;
    const podCIDRs = node.spec?.podCIDRs;
    const cidrs: unknown[] =
      Array.isArray(podCIDRs) && podCIDRs.length > 0
        ? podCIDRs
        : node.spec?.podCIDR !== undefined && node.spec.podCIDR !== ""
          ? [node.spec.podCIDR]
          : [];
    const field = Array.isArray(podCIDRs) && podCIDRs.length > 0 ? "spec.podCIDRs" : "spec.podCIDR";
    cidrs.forEach((cidr, i) => {
      const read = readObservedPrefix(cidr, `Node ${name} ${field}${field === "spec.podCIDRs" ? `[${i}]` : ""}`);
      if ("problem" in read) {
        problems.push(read.problem);
        return;
      }
      ranges.push({
        prefix: read.prefix,
        use: "pods",
        reference: { group: "", resource: "nodes", name, ...(node.metadata.uid !== undefined ? { uid: node.metadata.uid } : {}) },
        source: { kind: "Node", name },
        description: `pods of node ${name}`,
        warnings: read.warnings,
      });
    });
  }
  return { ranges, problems };
}
