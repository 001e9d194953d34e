import type { KubeObject } from "@kubekit/generic-controlplane";
import {
  childPath,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  indexPath,
  type FieldError,
} from "@kubekit/generic-controlplane/registry";
import { parseIP } from "../allocators/cluster-ip.js";
import { isEmptySelector, selectorString, validateLabelSelector, type LabelSelector } from "../selector.js";
import { ageColumn } from "./columns.js";
import { defineResource } from "./define.js";
import { componentSchema } from "./openapi/component-schema.js";

interface NetworkPolicyPort {
  protocol?: string;
  port?: number | string;
  endPort?: number;
}

interface NetworkPolicyPeer {
  podSelector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  ipBlock?: { cidr?: string; except?: string[] };
}

interface NetworkPolicyRule {
  ports?: NetworkPolicyPort[];
  from?: NetworkPolicyPeer[];
  to?: NetworkPolicyPeer[];
}

export interface NetworkPolicy extends KubeObject {
  spec?: { podSelector?: LabelSelector; ingress?: NetworkPolicyRule[]; egress?: NetworkPolicyRule[]; policyTypes?: string[] };
}

const POLICY_TYPES = ["Ingress", "Egress"];
const PROTOCOLS = ["SCTP", "TCP", "UDP"];
const CIDR_MESSAGE = "must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)";

/** SetDefaults_NetworkPolicy and SetDefaults_NetworkPolicyPort: Ingress always, Egress when egress rules exist; ports are TCP. */
function prepare(policy: NetworkPolicy): void {
  const spec = (policy.spec ??= {});
  spec.podSelector ??= {};
  for (const rule of [...(spec.ingress ?? []), ...(spec.egress ?? [])]) for (const port of rule.ports ?? []) port.protocol ??= "TCP";
  if (spec.policyTypes === undefined || spec.policyTypes.length === 0)
    spec.policyTypes = (spec.egress ?? []).length > 0 ? ["Ingress", "Egress"] : ["Ingress"];
}

function parseCIDR(text: string): { family: string; value: bigint; bits: number } | undefined {
  const [address, prefix, extra] = text.split("/");
  if (address === undefined || prefix === undefined || extra !== undefined || !/^(0|[1-9][0-9]*)$/.test(prefix)) return undefined;
  const ip = parseIP(address);
  const bits = Number(prefix);
  if (ip === undefined || bits > (ip.family === "IPv4" ? 32 : 128)) return undefined;
  return { family: ip.family, value: ip.value, bits };
}

function contains(outer: { family: string; value: bigint; bits: number }, inner: { family: string; value: bigint; bits: number }): boolean {
  if (outer.family !== inner.family || inner.bits <= outer.bits) return false;
  const width = outer.family === "IPv4" ? 32 : 128;
  const shift = BigInt(width - outer.bits);
  return outer.value >> shift === inner.value >> shift;
}

function validatePort(port: NetworkPolicyPort, at: string): FieldError[] {
  const errors: FieldError[] = [];
  if (port.protocol !== undefined && !PROTOCOLS.includes(port.protocol))
    errors.push(fieldNotSupported(childPath(at, "protocol"), port.protocol, PROTOCOLS));
  if (typeof port.port === "number" && (port.port < 1 || port.port > 65535))
    errors.push(fieldInvalid(childPath(at, "port"), port.port, "must be between 1 and 65535, inclusive"));
  if (port.endPort !== undefined) {
    if (port.port === undefined) errors.push(fieldRequired(childPath(at, "port"), "when endPort is specified"));
    else if (typeof port.port === "string")
      errors.push(fieldForbidden(childPath(at, "endPort"), "may not be specified when `port` is non-numeric"));
    else if (port.endPort < port.port)
      errors.push(fieldInvalid(childPath(at, "endPort"), port.endPort, "must be greater than or equal to `port`"));
  }
  return errors;
}

function validatePeer(peer: NetworkPolicyPeer, at: string): FieldError[] {
  const errors: FieldError[] = [];
  const kinds = [peer.podSelector, peer.namespaceSelector, peer.ipBlock].filter((p) => p !== undefined).length;
  if (kinds === 0) errors.push(fieldRequired(at, "must specify a peer"));
  else if (peer.ipBlock !== undefined && kinds > 1) errors.push(fieldForbidden(at, "may not specify both ipBlock and another peer"));
  errors.push(...validateLabelSelector(peer.podSelector, childPath(at, "podSelector")));
  errors.push(...validateLabelSelector(peer.namespaceSelector, childPath(at, "namespaceSelector")));
  if (peer.ipBlock !== undefined) {
    const blockPath = childPath(at, "ipBlock");
    const cidrText = peer.ipBlock.cidr ?? "";
    const cidr = parseCIDR(cidrText);
    if (cidrText === "") errors.push(fieldRequired(childPath(blockPath, "cidr")));
    else if (cidr === undefined) errors.push(fieldInvalid(childPath(blockPath, "cidr"), cidrText, CIDR_MESSAGE));
    (peer.ipBlock.except ?? []).forEach((text, i) => {
      const exceptPath = indexPath(childPath(blockPath, "except"), i);
      const except = parseCIDR(text);
      if (except === undefined) errors.push(fieldInvalid(exceptPath, text, CIDR_MESSAGE));
      else if (cidr !== undefined && !contains(cidr, except))
        errors.push(fieldInvalid(exceptPath, text, "must be a strict subset of `cidr`"));
    });
  }
  return errors;
}

function validateRules(rules: NetworkPolicyRule[] | undefined, path: string, peers: "from" | "to"): FieldError[] {
  const errors: FieldError[] = [];
  (rules ?? []).forEach((rule, i) => {
    const at = indexPath(path, i);
    (rule.ports ?? []).forEach((port, j) => errors.push(...validatePort(port, indexPath(childPath(at, "ports"), j))));
    (rule[peers] ?? []).forEach((peer, j) => errors.push(...validatePeer(peer, indexPath(childPath(at, peers), j))));
  });
  return errors;
}

/** ValidateNetworkPolicySpec: selectors, ports, peers and policy types. */
export function validateNetworkPolicy(policy: NetworkPolicy): FieldError[] {
  const spec = policy.spec ?? {};
  const errors = validateLabelSelector(spec.podSelector, "spec.podSelector");
  errors.push(...validateRules(spec.ingress, "spec.ingress", "from"), ...validateRules(spec.egress, "spec.egress", "to"));
  const types = spec.policyTypes ?? [];
  types.forEach((type, i) => {
    if (!POLICY_TYPES.includes(type)) errors.push(fieldNotSupported(indexPath("spec.policyTypes", i), type, POLICY_TYPES));
  });
  if (types.length > 2) errors.push(fieldInvalid("spec.policyTypes", types, "may not specify more than two policyTypes"));
  return errors;
}

const schema = componentSchema("io.k8s.api.networking.v1.NetworkPolicy");

/** networking.k8s.io/v1 NetworkPolicy: stored and validated; the simulated network does not enforce it. */
export const networkPoliciesResource = defineResource<NetworkPolicy>({
  group: "networking.k8s.io",
  version: "v1",
  kind: "NetworkPolicy",
  plural: "networkpolicies",
  singular: "networkpolicy",
  scope: "Namespaced",
  shortNames: ["netpol"],
  tracksGeneration: true,
  schema,
  printerColumns: [
    {
      name: "Pod-Selector",
      type: "string",
      description: "podSelector selects the pods to which this NetworkPolicy object applies.",
      cell: (p) => (isEmptySelector(p.spec?.podSelector) ? "<none>" : selectorString(p.spec?.podSelector ?? {})),
    },
    ageColumn(),
  ],
  strategy: {
    prepareForCreate: prepare,
    prepareForUpdate: prepare,
    validate: validateNetworkPolicy,
    validateUpdate: validateNetworkPolicy,
  },
});
