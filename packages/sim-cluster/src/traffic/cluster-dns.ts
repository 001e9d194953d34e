import type { Service } from "../resources/services.js";
import { isLoopback } from "./loopback.js";

/** The cluster domain of the sim cluster's names, as kubelet's default `--cluster-domain`. */
const CLUSTER_DOMAIN = "svc.cluster.local";

/** Follows ExternalName chains no further than this, as a resolver gives up on a CNAME loop. */
const MAX_CNAME_HOPS = 8;

/** A name the pods' resolver answers: an address, or undefined for "no such host". */
export type ResolveHost = (host: string) => string | undefined;

/**
 * Cluster DNS for the pods' own requests (netexec's `/dial`): an address stays as it is;
 * `<service>.<namespace>.svc.cluster.local` (or `<service>.<namespace>` and
 * `<service>.<namespace>.svc`, through the search path) is the service's ClusterIP, and an
 * ExternalName service's name is its target's, as CoreDNS's CNAME makes it. Headless services,
 * names outside the cluster and unknown services do not resolve: the sim cluster has no other
 * network.
 */
export function clusterDns(services: () => readonly Service[]): ResolveHost {
  const lookup = (host: string, hops: number): string | undefined => {
    if (isLoopback(host)) return host;
    if (hops > MAX_CNAME_HOPS) return undefined;
    const name = host.replace(/\.$/, "").toLowerCase();
    const parts = name.endsWith(`.${CLUSTER_DOMAIN}`)
      ? name.slice(0, -CLUSTER_DOMAIN.length - 1).split(".")
      : name.endsWith(".svc")
        ? name.slice(0, -4).split(".")
        : name.split(".");
    if (parts.length !== 2) return undefined;
    const [serviceName, namespace] = parts as [string, string];
    const service = services().find((s) => s.metadata?.name === serviceName && s.metadata?.namespace === namespace);
    if (service === undefined) return undefined;
    if (service.spec?.type === "ExternalName") return lookup(service.spec.externalName ?? "", hops + 1);
    const ip = service.spec?.clusterIP ?? "";
    return ip === "" || ip === "None" ? undefined : ip;
  };
  return (host) => lookup(host, 0);
}
