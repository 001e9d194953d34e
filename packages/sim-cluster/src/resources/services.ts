import { parseIPSloppy } from "@kubekit/apimachinery";
import type { KubeObject } from "@kubekit/generic-controlplane";
import {
  childPath,
  fieldDuplicate,
  fieldForbidden,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  indexPath,
  isDNS1123Label,
  isDNS1123Subdomain,
  validateLabels,
  type FieldError,
  type ResourceDefinition,
} from "@kubekit/generic-controlplane/registry";
import { AllocationError, familyOf } from "../allocators/cluster-ip.js";
import type { NodePortAllocator } from "../allocators/node-port.js";
import { ageColumn, orNone } from "./columns.js";
import { defineResource } from "./define.js";
import {
  allocatorFor,
  initIPFamilyFields,
  isHeadless,
  keepsPreferDualStack,
  validateClusterIPsRelatedFields,
  validateUpgradeDowngrade,
  type ClusterIPRanges,
} from "./service-ip-families.js";
import { componentSchema } from "./openapi/component-schema.js";

export interface ServicePort {
  name?: string;
  protocol?: string;
  port?: number;
  targetPort?: number | string;
  nodePort?: number;
  [field: string]: unknown;
}

export interface Service extends KubeObject {
  spec?: {
    type?: string;
    clusterIP?: string;
    clusterIPs?: string[];
    ports?: ServicePort[];
    selector?: Record<string, string>;
    sessionAffinity?: string;
    externalTrafficPolicy?: string;
    internalTrafficPolicy?: string;
    ipFamilies?: string[];
    ipFamilyPolicy?: string;
    externalName?: string;
    healthCheckNodePort?: number;
    allocateLoadBalancerNodePorts?: boolean;
    [field: string]: unknown;
  };
  status?: { loadBalancer?: { ingress?: Array<{ ip?: string; hostname?: string }> } };
}

/** The cluster's service ranges: ClusterIPs of the primary family (and the secondary one when dual-stack) and NodePorts. */
export interface ServiceAllocators extends ClusterIPRanges {
  nodePorts: NodePortAllocator;
}

const TYPES = ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"];
const PROTOCOLS = ["SCTP", "TCP", "UDP"];
const AFFINITIES = ["ClientIP", "None"];
const TRAFFIC_POLICIES = ["Cluster", "Local"];

function usesNodePorts(service: Service): boolean {
  return service.spec?.type === "NodePort" || service.spec?.type === "LoadBalancer";
}

/** needsNodePort: node ports are allocated for ports that ask for none (a LoadBalancer may opt out). */
function allocatesNodePorts(service: Service): boolean {
  return (
    service.spec?.type === "NodePort" || (service.spec?.type === "LoadBalancer" && service.spec.allocateLoadBalancerNodePorts !== false)
  );
}

/** NeedsHealthCheck: a LoadBalancer with `externalTrafficPolicy: Local` gets a health check NodePort. */
export function needsHealthCheck(service: Service): boolean {
  return service.spec?.type === "LoadBalancer" && service.spec.externalTrafficPolicy === "Local";
}

function hasClusterIP(service: Service): boolean {
  return service.spec?.type !== "ExternalName" && service.spec?.clusterIP !== "None";
}

/** SetDefaults_Service and the defaults the service REST storage fills in. */
function defaultSpec(service: Service): void {
  service.spec ??= {};
  const spec = service.spec;
  spec.type ??= "ClusterIP";
  spec.sessionAffinity ??= "None";
  if (spec.type !== "ExternalName") {
    spec.internalTrafficPolicy ??= "Cluster";
  }
  if (usesNodePorts(service)) spec.externalTrafficPolicy ??= "Cluster";
  if (spec.type === "LoadBalancer") spec.allocateLoadBalancerNodePorts ??= true;
  for (const port of spec.ports ?? []) {
    port.protocol ??= "TCP";
    if (port.port !== undefined) port.targetPort ??= port.port;
  }
}

function prepareForCreate(service: Service): void {
  defaultSpec(service);
  // NormalizeClusterIPs on create: a client that sets only the singular field (an old one) means the plural too.
  const spec = service.spec!;
  if (spec.clusterIP && (spec.clusterIPs ?? []).length === 0) spec.clusterIPs = [spec.clusterIP];
  service.status = { loadBalancer: {} };
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);

/**
 * The storage's `dropTypeDependentFields`: a type change drops what the old type had allocated or
 * defaulted and the new one cannot use, but only where the write left the field as it was (a
 * field the user changed too still meets validation).
 */
function dropTypeDependentFields(service: Service, old: Service): void {
  const spec = (service.spec ??= {});
  const oldSpec = old.spec ?? {};
  if (hasClusterIP(old) && !hasClusterIP(service)) {
    if (spec.clusterIP === oldSpec.clusterIP && sameJson(spec.clusterIPs, oldSpec.clusterIPs)) {
      delete spec.clusterIP;
      delete spec.clusterIPs;
    }
    if (sameJson(spec.ipFamilies, oldSpec.ipFamilies)) delete spec.ipFamilies;
    if (spec.ipFamilyPolicy === oldSpec.ipFamilyPolicy) delete spec.ipFamilyPolicy;
  }
  if (usesNodePorts(old) && !usesNodePorts(service)) {
    const ports = spec.ports ?? [];
    const oldPorts = oldSpec.ports ?? [];
    if (ports.length === oldPorts.length && ports.every((p, i) => p.nodePort === oldPorts[i]?.nodePort))
      for (const port of ports) delete port.nodePort;
  }
  if (
    oldSpec.type === "LoadBalancer" &&
    spec.type !== "LoadBalancer" &&
    spec.allocateLoadBalancerNodePorts === oldSpec.allocateLoadBalancerNodePorts
  )
    delete spec.allocateLoadBalancerNodePorts;
  // The health check port goes with the need for it (the repair frees it).
  if (needsHealthCheck(old) && !needsHealthCheck(service) && spec.healthCheckNodePort === oldSpec.healthCheckNodePort)
    delete spec.healthCheckNodePort;
  if (externallyAccessible(old) && !externallyAccessible(service) && spec.externalTrafficPolicy === oldSpec.externalTrafficPolicy)
    delete spec.externalTrafficPolicy;
  // Load balancer de-provisioning is asynchronous, but a service that is no LoadBalancer shows no ingress.
  if (spec.type !== "LoadBalancer") service.status = { ...service.status, loadBalancer: {} };
}

/** ExternallyAccessible: reachable from outside through node ports or external IPs. */
function externallyAccessible(service: Service): boolean {
  const external = service.spec?.["externalIPs"];
  return usesNodePorts(service) || (service.spec?.type === "ClusterIP" && Array.isArray(external) && external.length > 0);
}

/**
 * Main resource and `/status` alike: the store has already kept the stored status (main resource)
 * or the stored spec (`/status`), so status is left as the request has it.
 */
function prepareForUpdate(service: Service, old: Service): void {
  dropTypeDependentFields(service, old);
  defaultSpec(service);
  const spec = service.spec!;
  // patchAllocatedValues: a client that leaves them out keeps what was allocated.
  if (spec.type !== "ExternalName" && old.spec?.type !== "ExternalName") {
    if (!spec.clusterIP && old.spec?.clusterIP) spec.clusterIP = old.spec.clusterIP;
    if ((spec.clusterIPs ?? []).length === 0 && (old.spec?.clusterIPs ?? []).length > 0) spec.clusterIPs = [...old.spec!.clusterIPs!];
  }
  normalizeClusterIPsOnUpdate(spec, old.spec ?? {});
  if (needsHealthCheck(service) && !service.spec?.healthCheckNodePort && needsHealthCheck(old) && old.spec?.healthCheckNodePort) {
    service.spec!.healthCheckNodePort = old.spec.healthCheckNodePort;
  }
  if (allocatesNodePorts(service) && allocatesNodePorts(old)) {
    for (const port of service.spec?.ports ?? []) {
      if (port.nodePort !== undefined) continue;
      const before = old.spec?.ports?.find((p) => p.port === port.port && (p.protocol ?? "TCP") === (port.protocol ?? "TCP"));
      if (before?.nodePort !== undefined) port.nodePort = before.nodePort;
    }
  }
}

/**
 * NormalizeClusterIPs on update: a changed `clusterIP` with `clusterIPs` left as they were
 * replaces them (an old client), a cleared one clears them.
 */
function normalizeClusterIPsOnUpdate(spec: NonNullable<Service["spec"]>, oldSpec: NonNullable<Service["spec"]>): void {
  if ((oldSpec.clusterIPs ?? []).length > 0 && (spec.clusterIPs ?? []).length === 0 && oldSpec.clusterIP === spec.clusterIP)
    spec.clusterIPs = [...oldSpec.clusterIPs!];
  if ((oldSpec.clusterIP ?? "") === (spec.clusterIP ?? "")) return;
  if (!sameJson(spec.clusterIPs ?? [], oldSpec.clusterIPs ?? [])) return;
  if (oldSpec.clusterIP && !spec.clusterIP) delete spec.clusterIPs;
  else spec.clusterIPs = [spec.clusterIP!];
}

/** ValidateLoadBalancerStatus: each ingress point is an IP address or a DNS name. */
export function validateLoadBalancerStatus(service: Service): FieldError[] {
  const errors: FieldError[] = [];
  (service.status?.loadBalancer?.ingress ?? []).forEach((point, i) => {
    const at = indexPath("status.loadBalancer.ingress", i);
    if (point.ip && parseIPSloppy(point.ip) === undefined)
      errors.push(fieldInvalid(childPath(at, "ip"), point.ip, "must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)"));
    if (point.hostname) {
      for (const message of isDNS1123Subdomain(point.hostname))
        errors.push(fieldInvalid(childPath(at, "hostname"), point.hostname, message));
      if (parseIPSloppy(point.hostname) !== undefined)
        errors.push(fieldInvalid(childPath(at, "hostname"), point.hostname, "must be a DNS name, not an IP address"));
    }
  });
  return errors;
}

/** ValidateService for the fields a simulated cluster acts on. */
export function validateService(service: Service): FieldError[] {
  const errors: FieldError[] = [];
  const spec = service.spec ?? {};
  const type = spec.type ?? "ClusterIP";
  if (!TYPES.includes(type)) errors.push(fieldNotSupported("spec.type", type, TYPES));
  if (spec.sessionAffinity !== undefined && !AFFINITIES.includes(spec.sessionAffinity))
    errors.push(fieldNotSupported("spec.sessionAffinity", spec.sessionAffinity, AFFINITIES));
  if (spec.externalTrafficPolicy !== undefined) {
    if (!usesNodePorts(service))
      errors.push(fieldForbidden("spec.externalTrafficPolicy", "may only be set for externally-accessible services"));
    else if (!TRAFFIC_POLICIES.includes(spec.externalTrafficPolicy))
      errors.push(fieldNotSupported("spec.externalTrafficPolicy", spec.externalTrafficPolicy, TRAFFIC_POLICIES));
  }
  if (spec.allocateLoadBalancerNodePorts !== undefined && type !== "LoadBalancer") {
    errors.push(fieldForbidden("spec.allocateLoadBalancerNodePorts", "may only be used when `type` is 'LoadBalancer'"));
  }
  if (spec.healthCheckNodePort && !needsHealthCheck(service)) {
    errors.push(
      fieldInvalid(
        "spec.healthCheckNodePort",
        spec.healthCheckNodePort,
        "may only be set when `type` is 'LoadBalancer' and `externalTrafficPolicy` is 'Local'",
      ),
    );
  }
  if (type === "ExternalName") {
    if (!spec.externalName) errors.push(fieldRequired("spec.externalName"));
  } else if (spec.clusterIP !== "None" && (spec.ports ?? []).length === 0) {
    errors.push(fieldRequired("spec.ports"));
  }
  errors.push(...validateClusterIPsRelatedFields(service));
  if ((type === "NodePort" || type === "LoadBalancer") && isHeadless(service)) {
    errors.push(fieldInvalid("spec.clusterIPs[0]", "None", `may not be set to 'None' for ${type} services`));
  }
  const ports = spec.ports ?? [];
  const names = new Set<string>();
  ports.forEach((port, i) => {
    const at = indexPath("spec.ports", i);
    if (ports.length > 1 && !port.name) errors.push(fieldRequired(childPath(at, "name")));
    else if (port.name) {
      for (const message of isDNS1123Label(port.name)) errors.push(fieldInvalid(childPath(at, "name"), port.name, message));
      if (names.has(port.name)) errors.push(fieldDuplicate(childPath(at, "name"), port.name));
      names.add(port.name);
    }
    if (typeof port.port !== "number" || port.port < 1 || port.port > 65535)
      errors.push(fieldInvalid(childPath(at, "port"), port.port ?? 0, "must be between 1 and 65535, inclusive"));
    if (port.protocol !== undefined && !PROTOCOLS.includes(port.protocol))
      errors.push(fieldNotSupported(childPath(at, "protocol"), port.protocol, PROTOCOLS));
    if (port.nodePort !== undefined && port.nodePort !== 0 && !usesNodePorts(service)) {
      errors.push(fieldForbidden(childPath(at, "nodePort"), `may not be used when \`type\` is '${type}'`));
    }
    if (typeof port.targetPort === "number" && (port.targetPort < 1 || port.targetPort > 65535)) {
      errors.push(fieldInvalid(childPath(at, "targetPort"), port.targetPort, "must be between 1 and 65535, inclusive"));
    }
  });
  errors.push(...validateLabels(spec.selector, "spec.selector"));
  return errors;
}

/** ValidateServiceUpdate, but for the upgrade/downgrade rules, which are checked once the IP family fields are defaulted. */
export function validateServiceUpdate(service: Service): FieldError[] {
  return [...validateService(service), ...validateLoadBalancerStatus(service)];
}

/**
 * What the service REST storage does before and after validation: the IP family fields are
 * defaulted against the cluster's ranges (initIPFamilyFields), an update is checked against the
 * upgrade/downgrade rules, and addresses and ports are taken.
 */
function validateAndAllocate(service: Service, old: Service | undefined, allocators: ServiceAllocators): FieldError[] {
  const errors = old === undefined ? validateService(service) : validateServiceUpdate(service);
  if (errors.length > 0) return errors;
  const familyErrors = initIPFamilyFields(service, old, allocators);
  if (familyErrors.length > 0) return familyErrors;
  if (old !== undefined) {
    const changeErrors = validateUpgradeDowngrade(service, old);
    if (changeErrors.length > 0) return changeErrors;
  }
  return allocateServiceAddresses(service, allocators, old);
}

/**
 * Which of `spec.ipFamilies` need an address now (allocClusterIPs and updateClusterIPs): all of
 * them on create and when an ExternalName service gets a type with a ClusterIP; the secondary
 * when a service is upgraded to dual-stack; none for headless services, a PreferDualStack service
 * written back as it was, or any other update (a downgrade's secondary is freed once written).
 */
function clusterIPsToAllocate(service: Service, old: Service | undefined): number[] {
  if (!hasClusterIP(service) || isHeadless(service)) return [];
  const all = (service.spec?.ipFamilies ?? []).map((_, i) => i);
  if (old === undefined || old.spec?.type === "ExternalName") return all;
  if (keepsPreferDualStack(service, old) || isHeadless(old)) return [];
  const upgraded = (old.spec?.ipFamilies ?? []).length === 1 && (service.spec?.ipFamilies ?? []).length === 2;
  return upgraded ? [1] : [];
}

/**
 * Takes the ClusterIP and NodePorts `service` asks for, or free ones, writing them into the
 * object; what it took is released again when one of them cannot be had. Like the service REST
 * storage (`alloc.go`), the errors name the field: `spec.clusterIPs: Invalid value: ["10.96.0.10"]:
 * failed to allocate IP 10.96.0.10: provided IP is already allocated`, `spec.ports[0].nodePort:
 * Invalid value: 30080: provided port is already allocated`. `old` is the stored object on update:
 * what it already holds is not taken again.
 */
export function allocateServiceAddresses(service: Service, allocators: ServiceAllocators, old?: Service): FieldError[] {
  const spec = (service.spec ??= {});
  const takenIPs: string[] = [];
  const takenPorts: number[] = [];
  const errors: FieldError[] = [];
  const wanted = clusterIPsToAllocate(service, old);
  if (wanted.length > 0) {
    const ips = [...(spec.clusterIPs ?? [])];
    // Upstream pads the list with "" markers for the families still to allocate (they show in its errors).
    while (ips.length < (spec.ipFamilies ?? []).length) ips.push("");
    for (const index of wanted) {
      const family = spec.ipFamilies![index]!;
      const allocator = allocatorFor(allocators, family)!;
      const ip = ips[index] ?? "";
      if (ip === "") {
        ips[index] = allocator.allocateNext();
        takenIPs.push(ips[index]);
        continue;
      }
      try {
        allocator.allocate(ip);
        takenIPs.push(ip);
      } catch (error) {
        if (!(error instanceof AllocationError)) throw error;
        errors.push(fieldInvalid("spec.clusterIPs", ips, `failed to allocate IP ${ip}: ${error.message}`));
        break;
      }
    }
    if (errors.length === 0) {
      spec.clusterIPs = ips;
      spec.clusterIP = ips[0]!;
    }
  }
  if (usesNodePorts(service)) {
    const held = new Set((old !== undefined && usesNodePorts(old) ? (old.spec?.ports ?? []) : []).map((p) => p.nodePort));
    (spec.ports ?? []).forEach((port, i) => {
      if (port.nodePort !== undefined && port.nodePort !== 0 && held.has(port.nodePort)) return;
      if (port.nodePort !== undefined && port.nodePort !== 0) {
        if (takenPorts.includes(port.nodePort)) return;
        try {
          allocators.nodePorts.allocate(port.nodePort);
          takenPorts.push(port.nodePort);
        } catch (error) {
          if (!(error instanceof AllocationError)) throw error;
          errors.push(fieldInvalid(childPath(indexPath("spec.ports", i), "nodePort"), port.nodePort, error.message));
        }
        return;
      }
      if (!allocatesNodePorts(service)) return;
      // Ports of the same number on several protocols share one node port, as upstream.
      const sibling = (spec.ports ?? []).find((p) => p !== port && p.port === port.port && p.nodePort);
      if (sibling?.nodePort !== undefined) port.nodePort = sibling.nodePort;
      else {
        port.nodePort = allocators.nodePorts.allocateNext();
        takenPorts.push(port.nodePort);
      }
    });
  }
  if (
    needsHealthCheck(service) &&
    !(
      old !== undefined &&
      needsHealthCheck(old) &&
      old.spec?.healthCheckNodePort &&
      old.spec.healthCheckNodePort === spec.healthCheckNodePort
    )
  ) {
    // allocHealthCheckNodePort: the port asked for, or a free one from the NodePort range.
    if (spec.healthCheckNodePort) {
      try {
        allocators.nodePorts.allocate(spec.healthCheckNodePort);
        takenPorts.push(spec.healthCheckNodePort);
      } catch (error) {
        if (!(error instanceof AllocationError)) throw error;
        errors.push(
          fieldInvalid(
            "spec.healthCheckNodePort",
            spec.healthCheckNodePort,
            `failed to allocate requested HealthCheck NodePort ${spec.healthCheckNodePort}: ${error.message}`,
          ),
        );
      }
    } else {
      spec.healthCheckNodePort = allocators.nodePorts.allocateNext();
      takenPorts.push(spec.healthCheckNodePort);
    }
  }
  if (errors.length > 0) {
    for (const ip of takenIPs) allocatorFor(allocators, familyOf(ip))?.release(ip);
    for (const port of takenPorts) allocators.nodePorts.release(port);
  }
  return errors;
}

/** Rebuilds both allocators from the stored services (the repair loops' job upstream). */
export function resyncAllocations(services: readonly Service[], allocators: ServiceAllocators): void {
  const { nodePorts } = allocators;
  const ranges = [allocators.clusterIPs, ...(allocators.secondaryClusterIPs !== undefined ? [allocators.secondaryClusterIPs] : [])];
  for (const range of ranges) for (const ip of [...range.allocated()]) range.release(ip);
  for (let port = nodePorts.base; port < nodePorts.base + nodePorts.size; port++) nodePorts.release(port);
  for (const service of services) {
    for (const ip of service.spec?.clusterIPs ?? (service.spec?.clusterIP ? [service.spec.clusterIP] : [])) {
      const range = ranges.find((r) => r.contains(ip));
      if (range !== undefined && !range.isAllocated(ip)) range.allocate(ip);
    }
    const health = service.spec?.healthCheckNodePort;
    if (health && health >= nodePorts.base && health < nodePorts.base + nodePorts.size && !nodePorts.isAllocated(health))
      nodePorts.allocate(health);
    for (const port of service.spec?.ports ?? []) {
      if (
        port.nodePort !== undefined &&
        port.nodePort >= nodePorts.base &&
        port.nodePort < nodePorts.base + nodePorts.size &&
        !nodePorts.isAllocated(port.nodePort)
      )
        nodePorts.allocate(port.nodePort);
    }
  }
}

function portsCell(service: Service): string {
  const ports = service.spec?.ports ?? [];
  if (ports.length === 0) return "<none>";
  return ports.map((p) => (p.nodePort ? `${p.port}:${p.nodePort}/${p.protocol ?? "TCP"}` : `${p.port}/${p.protocol ?? "TCP"}`)).join(",");
}

function externalIPCell(service: Service): string {
  const type = service.spec?.type;
  if (type === "ExternalName") return service.spec?.externalName ?? "<none>";
  const external = (service.spec?.["externalIPs"] as string[] | undefined) ?? [];
  if (type === "LoadBalancer") {
    const ingress = (service.status?.loadBalancer?.ingress ?? []).map((i) => i.ip ?? i.hostname ?? "");
    const all = [...ingress, ...external];
    return all.length > 0 ? all.join(",") : "<pending>";
  }
  return external.length > 0 ? external.join(",") : "<none>";
}

function selectorCell(service: Service): string {
  return orNone(
    Object.entries(service.spec?.selector ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join(","),
  );
}

const schema = componentSchema("io.k8s.api.core.v1.Service");

/**
 * core/v1 Service (with /status). Addresses come from `allocators`: the strategy takes them once
 * the object passed validation, as the service REST storage does in BeginCreate/BeginUpdate.
 */
export function servicesResource(allocators: ServiceAllocators): ResourceDefinition {
  return defineResource<Service>({
    group: "",
    version: "v1",
    kind: "Service",
    plural: "services",
    singular: "service",
    scope: "Namespaced",
    shortNames: ["svc"],
    categories: ["all"],
    statusSubresource: true,
    schema,
    printerColumns: [
      { name: "Type", type: "string", description: "type determines how the Service is exposed.", cell: (s) => s.spec?.type ?? "" },
      {
        name: "Cluster-IP",
        type: "string",
        description: "clusterIP is the IP address of the service and is usually assigned randomly by the master.",
        cell: (s) => orNone(s.spec?.clusterIP),
      },
      {
        name: "External-IP",
        type: "string",
        description: "externalIPs is a list of IP addresses for which nodes in the cluster will also accept traffic for this service.",
        cell: externalIPCell,
      },
      { name: "Port(s)", type: "string", description: "The list of ports that are exposed by this service.", cell: portsCell },
      ageColumn(),
      {
        name: "Selector",
        type: "string",
        priority: 1,
        description: "Route service traffic to pods with label keys and values matching this selector.",
        cell: selectorCell,
      },
    ],
    strategy: {
      prepareForCreate,
      prepareForUpdate,
      validate: (service) => validateAndAllocate(service, undefined, allocators),
      validateUpdate: (service, old) => validateAndAllocate(service, old, allocators),
    },
  });
}
