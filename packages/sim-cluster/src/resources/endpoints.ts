import type { KubeObject } from "@kubekit/generic-controlplane";
import type { ResourceRef } from "@kubekit/generic-controlplane/controllers";
import {
  childPath,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  indexPath,
  isDNS1123Label,
  isDNS1123Subdomain,
  type FieldError,
  type ResourceDefinition,
} from "@kubekit/generic-controlplane/registry";
import { ageColumn } from "./columns.js";
import { defineResource } from "./define.js";
import { validateEndpointIP, type EndpointAddressRules } from "./endpoint-ip.js";
import { componentSchema } from "./openapi/component-schema.js";

export const ENDPOINTS: ResourceRef = { group: "", version: "v1", resource: "endpoints", namespaced: true };

export interface ObjectReference {
  kind?: string;
  namespace?: string;
  name?: string;
  uid?: string;
  [field: string]: unknown;
}

export interface EndpointAddress {
  ip: string;
  hostname?: string;
  nodeName?: string;
  targetRef?: ObjectReference;
}

export interface EndpointPort {
  name?: string;
  port: number;
  protocol?: string;
  appProtocol?: string;
}

export interface EndpointSubset {
  addresses?: EndpointAddress[];
  notReadyAddresses?: EndpointAddress[];
  ports?: EndpointPort[];
}

export interface Endpoints extends KubeObject {
  subsets?: EndpointSubset[];
}

export const PORT_PROTOCOLS = ["SCTP", "TCP", "UDP"];
export const PORT_RANGE_MESSAGE = "must be between 1 and 65535, inclusive";

function validateAddress(address: EndpointAddress, at: string, rules: EndpointAddressRules): FieldError[] {
  const errors = validateEndpointIP(address.ip ?? "", childPath(at, "ip"), rules);
  if (address.hostname)
    for (const message of isDNS1123Label(address.hostname)) errors.push(fieldInvalid(childPath(at, "hostname"), address.hostname, message));
  if (address.nodeName)
    for (const message of isDNS1123Subdomain(address.nodeName))
      errors.push(fieldInvalid(childPath(at, "nodeName"), address.nodeName, message));
  return errors;
}

function validatePort(port: EndpointPort, at: string, requireName: boolean): FieldError[] {
  const errors: FieldError[] = [];
  if (requireName && !port.name) errors.push(fieldRequired(childPath(at, "name")));
  else if (port.name) for (const message of isDNS1123Label(port.name)) errors.push(fieldInvalid(childPath(at, "name"), port.name, message));
  if (typeof port.port !== "number" || !Number.isInteger(port.port) || port.port < 1 || port.port > 65535)
    errors.push(fieldInvalid(childPath(at, "port"), port.port ?? 0, PORT_RANGE_MESSAGE));
  if (!port.protocol) errors.push(fieldRequired(childPath(at, "protocol")));
  else if (!PORT_PROTOCOLS.includes(port.protocol))
    errors.push(fieldNotSupported(childPath(at, "protocol"), port.protocol, PORT_PROTOCOLS));
  return errors;
}

/** ValidateEndpoints (validateEndpointSubsets): every subset has addresses, valid IPs and ports. */
export function validateEndpoints(endpoints: Endpoints, rules: EndpointAddressRules = {}): FieldError[] {
  const errors: FieldError[] = [];
  (endpoints.subsets ?? []).forEach((subset, i) => {
    const at = indexPath("subsets", i);
    if ((subset.addresses ?? []).length === 0 && (subset.notReadyAddresses ?? []).length === 0) {
      errors.push(fieldRequired(at, "must specify `addresses` or `notReadyAddresses`"));
    }
    (subset.addresses ?? []).forEach((a, j) => errors.push(...validateAddress(a, indexPath(childPath(at, "addresses"), j), rules)));
    (subset.notReadyAddresses ?? []).forEach((a, j) =>
      errors.push(...validateAddress(a, indexPath(childPath(at, "notReadyAddresses"), j), rules)),
    );
    const ports = subset.ports ?? [];
    ports.forEach((p, j) => errors.push(...validatePort(p, indexPath(childPath(at, "ports"), j), ports.length > 1)));
  });
  return errors;
}

/**
 * kubectl's ENDPOINTS cell (formatEndpoints): the first three ready `ip:port` pairs and how many
 * more there are; `<none>` without subsets.
 */
export function endpointsCell(endpoints: Endpoints): string {
  const subsets = endpoints.subsets ?? [];
  if (subsets.length === 0) return "<none>";
  const max = 3;
  const list: string[] = [];
  let count = 0;
  for (const subset of subsets) {
    const addresses = subset.addresses ?? [];
    const ports = subset.ports ?? [];
    const targets = ports.length === 0 ? [undefined] : ports.map((p) => p.port);
    for (const port of targets) {
      count += addresses.length;
      for (const address of addresses) {
        if (list.length === max) break;
        list.push(port === undefined ? address.ip : address.ip.includes(":") ? `[${address.ip}]:${port}` : `${address.ip}:${port}`);
      }
    }
  }
  const joined = list.join(",");
  return count > max ? `${joined} + ${count - max} more...` : joined;
}

/** SetDefaults_EndpointPort: TCP. */
function defaultPorts(endpoints: Endpoints): void {
  for (const subset of endpoints.subsets ?? []) for (const port of subset.ports ?? []) port.protocol ??= "TCP";
}

const schema = componentSchema("io.k8s.api.core.v1.Endpoints");

/** core/v1 Endpoints, as the endpoints controller writes them and `kubectl get endpoints` shows them. */
export function endpointsResource(rules: EndpointAddressRules = {}): ResourceDefinition {
  return defineResource<Endpoints>({
    group: "",
    version: "v1",
    kind: "Endpoints",
    listKind: "EndpointsList",
    plural: "endpoints",
    singular: "endpoints",
    scope: "Namespaced",
    shortNames: ["ep"],
    schema,
    printerColumns: [{ name: "Endpoints", type: "string", description: "Endpoints of the service.", cell: endpointsCell }, ageColumn()],
    strategy: {
      prepareForCreate: defaultPorts,
      prepareForUpdate: defaultPorts,
      validate: (endpoints) => validateEndpoints(endpoints, rules),
      validateUpdate: (endpoints) => validateEndpoints(endpoints, rules),
    },
  });
}
