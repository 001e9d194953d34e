import type { KubeClient } from "@kubekit/generic-controlplane/controllers";
import { readObservedPrefix, type ImportResult, type ObservedRange } from "./observed.js";
import { listAll, servedResource } from "./served.js";

interface ServiceCIDR {
  metadata: { name: string; deletionTimestamp?: string };
  spec?: { cidrs?: unknown };
}

/** Where ServiceCIDRs are served (KEP-1880: beta in 1.31, GA in 1.33). */
export const SERVICE_CIDR_GROUP = "networking.k8s.io";

/**
 * The service ranges of every `networking.k8s.io` ServiceCIDR (`spec.cidrs`), including the
 * well-known `kubernetes` one created from `--service-cluster-ip-range`. A server that does not
 * serve ServiceCIDRs (before Kubernetes 1.31, or the feature gate off) is reported as `skipped`.
 * A ServiceCIDR being deleted still holds its addresses until its finalizer goes, so it counts.
 */
export async function importServiceCIDRs(client: KubeClient): Promise<ImportResult> {
  const ref = await servedResource(client, SERVICE_CIDR_GROUP, "servicecidrs");
  if (ref === undefined) {
    return {
      ranges: [],
      problems: [],
      skipped: `ServiceCIDRs (${SERVICE_CIDR_GROUP}) are not served by this API server; pass --service-cluster-ip-range to check the service range`,
    };
  }
  const ranges: ObservedRange[] = [];
  const problems: string[] = [];
  for (const object of await listAll<ServiceCIDR>(client, ref)) {
    const name = object.metadata.name;
    const cidrs = Array.isArray(object.spec?.cidrs) ? (object.spec.cidrs as unknown[]) : [];
    cidrs.forEach((cidr, i) => {
      const read = readObservedPrefix(cidr, `ServiceCIDR ${name} spec.cidrs[${i}]`);
      if ("problem" in read) {
        problems.push(read.problem);
        return;
      }
      ranges.push({
        prefix: read.prefix,
        use: "services",
        reference: { group: "", resource: "services" },
        source: { kind: "ServiceCIDR", name },
        description: `services (ServiceCIDR ${name}${object.metadata.deletionTimestamp !== undefined ? ", being deleted" : ""})`,
        warnings: read.warnings,
      });
    });
  }
  return { ranges, problems };
}
