/**
 * Defects the mini CCM (or the fake cloud under it) can be built with, one at a time, to show the
 * suite catches each:
 *
 * - `keep-finalizer`: never removes `service.kubernetes.io/load-balancer-cleanup`.
 * - `leak-load-balancers`: forgets to delete the cloud load balancer (status and finalizer still go).
 * - `ignore-port-changes`: keeps a load balancer's first listeners when the service's ports change.
 * - `ignore-protocol`: listens on TCP whatever the port's protocol.
 * - `delete-on-lookup-error`: deletes a Node when the instance lookup fails (instead of skipping it).
 * - `drop-session-affinity`: balances every connection afresh, ignoring `sessionAffinity: ClientIP`.
 * - `etp-local-all-nodes`: sends `externalTrafficPolicy: Local` traffic to nodes without endpoints.
 * - `ignore-source-ranges`: programs no firewall: `loadBalancerSourceRanges` admits every client.
 * - `restart-loses-pods`: a restarted machine boots from a fresh disk: the pods bound to its node are gone.
 * - `upgrade-drops-lb-backends`: the service controller loses the nodes an upgrade replaced: a node
 *   whose kubelet version changed is no longer a load balancer backend.
 */
export const FAULTS = [
  "keep-finalizer",
  "leak-load-balancers",
  "ignore-port-changes",
  "ignore-protocol",
  "delete-on-lookup-error",
  "drop-session-affinity",
  "etp-local-all-nodes",
  "ignore-source-ranges",
  "restart-loses-pods",
  "upgrade-drops-lb-backends",
] as const;

export type Fault = (typeof FAULTS)[number];

/** The fault named by `FAKE_CLOUD_FAULT` (or the given text); unknown names are an error listing the known ones. */
export function parseFault(text: string | undefined): Fault | undefined {
  if (text === undefined || text === "") return undefined;
  if ((FAULTS as readonly string[]).includes(text)) return text as Fault;
  throw new Error(`unknown fault ${JSON.stringify(text)}; known faults: ${FAULTS.join(", ")}`);
}
