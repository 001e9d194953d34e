import { validateIPv4Address, validateIPv6Address } from "@kubekit/apimachinery";
import type { KubeObject } from "@kubekit/generic-controlplane";
import type { ResourceRef } from "@kubekit/generic-controlplane/controllers";
import {
  childPath,
  fieldDuplicate,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  fieldTooMany,
  indexPath,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  validateImmutableField,
  type FieldError,
  type ResourceDefinition,
} from "@kubekit/generic-controlplane/registry";
import { ageColumn } from "./columns.js";
import { defineResource } from "./define.js";
import { validateNonSpecialIP, type EndpointAddressRules } from "./endpoint-ip.js";
import { PORT_PROTOCOLS, PORT_RANGE_MESSAGE, type ObjectReference } from "./endpoints.js";
import { componentSchema } from "./openapi/component-schema.js";

export const ENDPOINT_SLICES: ResourceRef = { group: "discovery.k8s.io", version: "v1", resource: "endpointslices", namespaced: true };

/** The label naming the Service a slice belongs to. */
export const LABEL_SERVICE_NAME = "kubernetes.io/service-name";
/** The label naming the controller that manages a slice. */
export const LABEL_MANAGED_BY = "endpointslice.kubernetes.io/managed-by";

export interface EndpointConditions {
  ready?: boolean;
  serving?: boolean;
  terminating?: boolean;
}

export interface Endpoint {
  addresses: string[];
  conditions?: EndpointConditions;
  hostname?: string;
  targetRef?: ObjectReference;
  nodeName?: string;
  zone?: string;
  hints?: Record<string, unknown>;
}

export interface SlicePort {
  name?: string;
  port?: number;
  protocol?: string;
  appProtocol?: string;
}

export interface EndpointSlice extends KubeObject {
  addressType?: string;
  endpoints?: Endpoint[];
  ports?: SlicePort[] | null;
}

const ADDRESS_TYPES = ["FQDN", "IPv4", "IPv6"];
const MAX_ENDPOINTS = 1000;
const MAX_ADDRESSES = 100;
const MAX_PORTS = 20000;

function familyErrors(messages: string[], address: string, field: string): FieldError[] | undefined {
  return messages.length === 0 ? undefined : messages.map((message) => fieldInvalid(field, address, message));
}

function validateAddress(address: string, type: string | undefined, field: string, rules: EndpointAddressRules): FieldError[] {
  switch (type) {
    case "IPv4":
      return familyErrors(validateIPv4Address(address), address, field) ?? validateNonSpecialIP(address, field, rules);
    case "IPv6":
      return familyErrors(validateIPv6Address(address), address, field) ?? validateNonSpecialIP(address, field, rules);
    case "FQDN":
      return isDNS1123Subdomain(address).map((message) => fieldInvalid(field, address, message));
    default:
      return [];
  }
}

/** ValidateEndpointSlice: the address type, each endpoint's addresses and the ports, with upstream's messages and limits. */
export function validateEndpointSlice(slice: EndpointSlice, rules: EndpointAddressRules = {}): FieldError[] {
  const errors: FieldError[] = [];
  if (!slice.addressType) errors.push(fieldRequired("addressType"));
  else if (!ADDRESS_TYPES.includes(slice.addressType)) errors.push(fieldNotSupported("addressType", slice.addressType, ADDRESS_TYPES));
  const endpoints = slice.endpoints ?? [];
  if (endpoints.length > MAX_ENDPOINTS) errors.push(fieldTooMany("endpoints", endpoints.length, MAX_ENDPOINTS));
  else {
    endpoints.forEach((endpoint, i) => {
      const at = indexPath("endpoints", i);
      const addresses = endpoint.addresses ?? [];
      if (addresses.length === 0) errors.push(fieldRequired(childPath(at, "addresses"), "must contain at least 1 address"));
      else if (addresses.length > MAX_ADDRESSES) errors.push(fieldTooMany(childPath(at, "addresses"), addresses.length, MAX_ADDRESSES));
      addresses.forEach((address, j) =>
        errors.push(...validateAddress(address, slice.addressType, indexPath(childPath(at, "addresses"), j), rules)),
      );
      if (endpoint.nodeName)
        for (const message of isDNS1123Subdomain(endpoint.nodeName))
          errors.push(fieldInvalid(childPath(at, "nodeName"), endpoint.nodeName, message));
      if (endpoint.hostname)
        for (const message of isDNS1123Label(endpoint.hostname))
          errors.push(fieldInvalid(childPath(at, "hostname"), endpoint.hostname, message));
    });
  }
  const ports = slice.ports ?? [];
  if (ports.length > MAX_PORTS) errors.push(fieldTooMany("ports", ports.length, MAX_PORTS));
  else {
    const names = new Set<string>();
    ports.forEach((port, i) => {
      const at = indexPath("ports", i);
      const name = port.name ?? "";
      if (name !== "") for (const message of isDNS1123Label(name)) errors.push(fieldInvalid(childPath(at, "name"), name, message));
      if (names.has(name)) errors.push(fieldDuplicate(childPath(at, "name"), name));
      names.add(name);
      if (!port.protocol) errors.push(fieldRequired(childPath(at, "protocol")));
      else if (!PORT_PROTOCOLS.includes(port.protocol))
        errors.push(fieldNotSupported(childPath(at, "protocol"), port.protocol, PORT_PROTOCOLS));
      if (port.port !== undefined && (!Number.isInteger(port.port) || port.port < 1 || port.port > 65535))
        errors.push(fieldInvalid(childPath(at, "port"), port.port, PORT_RANGE_MESSAGE));
      if (port.appProtocol !== undefined)
        for (const message of isQualifiedName(port.appProtocol))
          errors.push(fieldInvalid(childPath(at, "appProtocol"), port.appProtocol, message));
    });
  }
  return errors;
}

/** kubectl's list cells for slices (listWithMoreString): three items, then `+ N more...`; `<unset>` when empty. */
function listWithMore(items: string[]): string {
  const max = 3;
  const shown = items.slice(0, max).join(",");
  if (items.length > max) return `${shown} + ${items.length - max} more...`;
  return shown === "" ? "<unset>" : shown;
}

export function slicePortsCell(slice: EndpointSlice): string {
  return listWithMore((slice.ports ?? []).map((p) => (p.port !== undefined ? String(p.port) : p.name ? p.name : "*")));
}

export function sliceEndpointsCell(slice: EndpointSlice): string {
  return listWithMore((slice.endpoints ?? []).flatMap((e) => e.addresses ?? []));
}

/** SetDefaults_EndpointPort: an unnamed port is named "", the protocol is TCP. */
function defaultPorts(slice: EndpointSlice): void {
  for (const port of slice.ports ?? []) {
    port.name ??= "";
    port.protocol ??= "TCP";
  }
}

const schema = componentSchema("io.k8s.api.discovery.v1.EndpointSlice");

/** discovery.k8s.io/v1 EndpointSlice, as the EndpointSlice controller writes them and `kubectl get endpointslices` shows them. */
export function endpointSlicesResource(rules: EndpointAddressRules = {}): ResourceDefinition {
  return defineResource<EndpointSlice>({
    group: "discovery.k8s.io",
    version: "v1",
    kind: "EndpointSlice",
    plural: "endpointslices",
    singular: "endpointslice",
    scope: "Namespaced",
    tracksGeneration: true,
    schema,
    printerColumns: [
      {
        name: "AddressType",
        type: "string",
        description: "The type of address carried by this EndpointSlice.",
        cell: (s) => s.addressType ?? "",
      },
      { name: "Ports", type: "string", description: "The network ports exposed by each endpoint in this slice.", cell: slicePortsCell },
      { name: "Endpoints", type: "string", description: "The addresses of the endpoints in this slice.", cell: sliceEndpointsCell },
      ageColumn(),
    ],
    strategy: {
      prepareForCreate: defaultPorts,
      prepareForUpdate: defaultPorts,
      validate: (slice) => validateEndpointSlice(slice, rules),
      validateUpdate: (slice, old) => [
        ...validateEndpointSlice(slice, rules),
        ...validateImmutableField(slice.addressType, old.addressType, "addressType"),
      ],
    },
  });
}
