import { parsePrefix } from "../../parse.js";
import type { AddressRecord, NetworkClaim } from "../../types.js";
import type { ObservedSpace } from "./index.js";

/*
 * The well-known claims as the components would write them, from the ranges observed: the API
 * server claims the service ranges (ServiceCIDRs, or --service-cluster-ip-range), the controller
 * manager the pod ranges of its --cluster-cidr, carving out each service range inside one (the
 * node IPAM controller's filterOutServiceRange).
 */

const services = { group: "", resource: "services" };
const pods = { group: "", resource: "pods" };
const IMPORTED = "imported by kana import from the cluster's configuration";

/** `kube-apiserver` and `kube-controller-manager` claims for the observed ranges (each only when it has a range). */
export function wellKnownClaimsFromObserved(space: ObservedSpace): NetworkClaim[] {
  const unique = (prefixes: string[]) => [...new Set(prefixes)];
  const serviceRanges = unique(
    space.ranges.filter((r) => r.use === "services" && (r.source.kind === "ServiceCIDR" || r.source.kind === "Flag")).map((r) => r.prefix),
  );
  const podRanges = unique(space.ranges.filter((r) => r.use === "pods" && r.source.kind === "Flag").map((r) => r.prefix));
  const claims: NetworkClaim[] = [];
  if (serviceRanges.length > 0) {
    claims.push({
      metadata: { name: "kube-apiserver" },
      spec: { addressSpace: serviceRanges.map((prefix) => ({ reference: services, prefix, description: IMPORTED })) },
    });
  }
  if (podRanges.length > 0) {
    const carveOuts = serviceRanges.filter((s) => podRanges.some((p) => parsePrefix(p).contains(parsePrefix(s))));
    const addressSpace: AddressRecord[] = [
      ...podRanges.map((prefix) => ({ reference: pods, prefix, description: IMPORTED })),
      ...carveOuts.map((prefix) => ({
        reference: services,
        prefix,
        status: "unavailable" as const,
        description: "the service range, not used for pods",
      })),
    ];
    claims.push({ metadata: { name: "kube-controller-manager" }, spec: { addressSpace } });
  }
  return claims;
}
