import { isNotFound, type KubeClient } from "@kubekit/generic-controlplane/controllers";
import type { NetworkRegistry } from "../registry.js";
import {
  decisionOrder,
  loadRecordedDecisions,
  NETWORK_ALLOCATIONS,
  NETWORK_CLAIMS,
  type NetworkAllocationObject,
  type NetworkClaimObject,
} from "../kube/index.js";
import { listAll } from "../kube/importers/served.js";
import { CliError, EXIT_SERVER } from "./cli-error.js";

/** The claims and allocations stored in a cluster, in the arbiter's decision order. */
export interface ClusterClaims {
  claims: NetworkClaimObject[];
  allocations: NetworkAllocationObject[];
}

const NOT_INSTALLED = `the server doesn't have a resource type "networkclaims" (${NETWORK_CLAIMS.group}/${NETWORK_CLAIMS.version}); install the NetworkClaim API with "kana install --apply"`;

/** Reads every NetworkClaim and NetworkAllocation; a server without the API is told how to install it. */
export async function readClusterClaims(client: KubeClient): Promise<ClusterClaims> {
  try {
    const claims = await listAll<NetworkClaimObject>(client, NETWORK_CLAIMS);
    const allocations = await listAll<NetworkAllocationObject>(client, NETWORK_ALLOCATIONS);
    return { claims: decisionOrder(claims).ordered, allocations: decisionOrder(allocations).ordered };
  } catch (error) {
    if (isNotFound(error)) throw new CliError(NOT_INSTALLED, EXIT_SERVER);
    throw error;
  }
}

/** The registry holding what the arbiter decided (granted records and allocated blocks). */
export function decidedRegistry(state: ClusterClaims): NetworkRegistry {
  return loadRecordedDecisions(state.claims, state.allocations).registry;
}
