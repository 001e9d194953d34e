import { parseIPSloppy } from "@kubekit/apimachinery";
import type { KubeObject } from "@kubekit/generic-controlplane";
import {
  childPath,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  indexPath,
  isDNS1123Label,
  isDNS1123Subdomain,
  type FieldError,
} from "@kubekit/generic-controlplane/registry";
import { ageColumn, orNone } from "./columns.js";
import { defineResource } from "./define.js";
import { componentSchema } from "./openapi/component-schema.js";

export interface IngressBackend {
  service?: { name?: string; port?: { name?: string; number?: number } };
  resource?: { apiGroup?: string; kind?: string; name?: string };
}

export interface IngressPath {
  path?: string;
  pathType?: string;
  backend?: IngressBackend;
}

export interface Ingress extends KubeObject {
  spec?: {
    ingressClassName?: string;
    defaultBackend?: IngressBackend;
    tls?: Array<{ hosts?: string[]; secretName?: string }>;
    rules?: Array<{ host?: string; http?: { paths?: IngressPath[] } }>;
  };
  status?: { loadBalancer?: { ingress?: Array<{ ip?: string; hostname?: string; ports?: unknown[] }> } };
}

const PATH_TYPES = ["Exact", "ImplementationSpecific", "Prefix"];
/** IsValidPortName: an IANA_SVC_NAME. */
const PORT_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

function portNameErrors(name: string): string[] {
  const errors: string[] = [];
  if (name.length > 15) errors.push("must be no more than 15 characters");
  if (!PORT_NAME.test(name)) errors.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (name.includes("--")) errors.push("must not contain consecutive hyphens");
  if (!/[a-z]/.test(name)) errors.push("must contain at least one letter (a-z)");
  return errors;
}

/** IsWildcardDNS1123Subdomain's and IsDNS1123Subdomain's rule for a host, which may not be an IP. */
function validateHost(host: string, path: string): FieldError[] {
  if (parseIPSloppy(host) !== undefined) return [fieldInvalid(path, host, "must be a DNS name, not an IP address")];
  if (host.includes("*")) {
    if (!/^\*\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(host)) {
      return [
        fieldInvalid(
          path,
          host,
          "a wildcard DNS-1123 subdomain must start with '*.', followed by a valid DNS subdomain, which must consist of lower case alphanumeric characters, '-' or '.' and end with an alphanumeric character (e.g. '*.example.com', regex used for validation is '\\*\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')",
        ),
      ];
    }
    return [];
  }
  return isDNS1123Subdomain(host).map((message) => fieldInvalid(path, host, message));
}

/** validateIngressBackend: exactly one of a service (with a port name or number) or a resource. */
function validateBackend(backend: IngressBackend, path: string): FieldError[] {
  const errors: FieldError[] = [];
  if (backend.resource !== undefined && backend.service !== undefined)
    return [fieldInvalid(path, "", "cannot set both resource and service backends")];
  if (backend.resource !== undefined) {
    const at = childPath(path, "resource");
    if (!backend.resource.kind) errors.push(fieldRequired(childPath(at, "kind")));
    if (!backend.resource.name) errors.push(fieldRequired(childPath(at, "name")));
    return errors;
  }
  if (backend.service === undefined) return [fieldInvalid(path, "", "resource or service backend is required")];
  const service = backend.service;
  const name = service.name ?? "";
  if (name === "") errors.push(fieldRequired(childPath(childPath(path, "service"), "name")));
  else errors.push(...isDNS1123Label(name).map((m) => fieldInvalid(childPath(childPath(path, "service"), "name"), name, m)));
  const portName = service.port?.name ?? "";
  const portNumber = service.port?.number ?? 0;
  const portPath = childPath(childPath(path, "service"), "port");
  if (portName !== "" && portNumber !== 0) errors.push(fieldInvalid(path, "", "cannot set both port name & port number"));
  else if (portName !== "") errors.push(...portNameErrors(portName).map((m) => fieldInvalid(childPath(portPath, "name"), portName, m)));
  else if (portNumber !== 0) {
    if (portNumber < 1 || portNumber > 65535)
      errors.push(fieldInvalid(childPath(portPath, "number"), portNumber, "must be between 1 and 65535, inclusive"));
  } else errors.push(fieldRequired(portPath, "port name or number is required"));
  return errors;
}

function validatePath(ingressPath: IngressPath, at: string): FieldError[] {
  const errors: FieldError[] = [];
  const pathType = ingressPath.pathType;
  if (pathType === undefined || pathType === "") errors.push(fieldRequired(childPath(at, "pathType"), "pathType must be specified"));
  else if (!PATH_TYPES.includes(pathType)) errors.push(fieldNotSupported(childPath(at, "pathType"), pathType, PATH_TYPES));
  const text = ingressPath.path ?? "";
  if ((pathType === "Exact" || pathType === "Prefix") && !text.startsWith("/"))
    errors.push(fieldInvalid(childPath(at, "path"), text, "must be an absolute path"));
  if (pathType === "ImplementationSpecific" && text !== "" && !text.startsWith("/"))
    errors.push(fieldInvalid(childPath(at, "path"), text, "must be an absolute path"));
  errors.push(...validateBackend(ingressPath.backend ?? {}, childPath(at, "backend")));
  return errors;
}

/** ValidateIngressSpec (networking/validation): a default backend or rules; hosts, paths, backends, TLS hosts and the class name. */
export function validateIngress(ingress: Ingress): FieldError[] {
  const errors: FieldError[] = [];
  const spec = ingress.spec ?? {};
  const rules = spec.rules ?? [];
  if (rules.length === 0 && spec.defaultBackend === undefined)
    errors.push(fieldInvalid("spec", rules, "either `defaultBackend` or `rules` must be specified"));
  if (spec.defaultBackend !== undefined) errors.push(...validateBackend(spec.defaultBackend, "spec.defaultBackend"));
  rules.forEach((rule, i) => {
    const at = indexPath("spec.rules", i);
    if (rule.host) errors.push(...validateHost(rule.host, childPath(at, "host")));
    if (rule.http !== undefined) {
      const paths = rule.http.paths ?? [];
      if (paths.length === 0) errors.push(fieldRequired(childPath(childPath(at, "http"), "paths")));
      paths.forEach((p, j) => errors.push(...validatePath(p, indexPath(childPath(childPath(at, "http"), "paths"), j))));
    }
  });
  (spec.tls ?? []).forEach((tls, i) => {
    (tls.hosts ?? []).forEach((host, j) => errors.push(...validateHost(host, indexPath(childPath(indexPath("spec.tls", i), "hosts"), j))));
  });
  if (spec.ingressClassName !== undefined) {
    errors.push(...isDNS1123Subdomain(spec.ingressClassName).map((m) => fieldInvalid("spec.ingressClassName", spec.ingressClassName, m)));
  }
  return errors;
}

/** ValidateIngressLoadBalancerStatus: each entry's ip is an IP address, its hostname a DNS name. */
export function validateIngressStatus(ingress: Ingress): FieldError[] {
  const errors: FieldError[] = [];
  (ingress.status?.loadBalancer?.ingress ?? []).forEach((entry, i) => {
    const at = indexPath("status.loadBalancer.ingress", i);
    if (entry.ip && parseIPSloppy(entry.ip) === undefined)
      errors.push(fieldInvalid(childPath(at, "ip"), entry.ip, "must be a valid IP address"));
    if (entry.hostname) {
      errors.push(...isDNS1123Subdomain(entry.hostname).map((m) => fieldInvalid(childPath(at, "hostname"), entry.hostname, m)));
      if (parseIPSloppy(entry.hostname) !== undefined)
        errors.push(fieldInvalid(childPath(at, "hostname"), entry.hostname, "must be a DNS name, not an IP address"));
    }
  });
  return errors;
}

/** formatHosts: up to three hosts, then `+ N more...`; `*` when no rule names one. */
function hostsCell(ingress: Ingress): string {
  const hosts = (ingress.spec?.rules ?? []).map((r) => r.host ?? "").filter((h) => h !== "");
  if (hosts.length === 0) return "*";
  const shown = hosts.slice(0, 3).join(",");
  return hosts.length > 3 ? `${shown} + ${hosts.length - 3} more...` : shown;
}

function addressCell(ingress: Ingress): string {
  return (ingress.status?.loadBalancer?.ingress ?? [])
    .map((e) => e.ip || e.hostname || "")
    .filter((a) => a !== "")
    .join(",");
}

const schema = componentSchema("io.k8s.api.networking.v1.Ingress");

/** networking.k8s.io/v1 Ingress (with /status), stored and validated; no controller acts on it. */
export const ingressesResource = defineResource<Ingress>({
  group: "networking.k8s.io",
  version: "v1",
  kind: "Ingress",
  plural: "ingresses",
  singular: "ingress",
  scope: "Namespaced",
  shortNames: ["ing"],
  statusSubresource: true,
  tracksGeneration: true,
  schema,
  printerColumns: [
    {
      name: "Class",
      type: "string",
      description: "The name of the IngressClass resource that should be used for ingresses",
      cell: (i) => orNone(i.spec?.ingressClassName),
    },
    {
      name: "Hosts",
      type: "string",
      description: "Hosts that incoming requests are matched against before the ingress rule",
      cell: hostsCell,
    },
    {
      name: "Address",
      type: "string",
      description: "Address is a list containing ingress points for the load-balancer",
      cell: addressCell,
    },
    {
      name: "Ports",
      type: "string",
      description: "Ports of TLS configurations that open",
      cell: (i) => ((i.spec?.tls ?? []).length > 0 ? "80, 443" : "80"),
    },
    ageColumn(),
  ],
  strategy: {
    validate: validateIngress,
    validateUpdate: (ingress) => [...validateIngress(ingress), ...validateIngressStatus(ingress)],
  },
});
