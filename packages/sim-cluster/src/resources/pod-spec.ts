import type { KubeObject } from "@kubekit/generic-controlplane";
import {
  childPath,
  fieldDuplicate,
  fieldInvalid,
  fieldNotSupported,
  fieldRequired,
  indexPath,
  isDNS1123Label,
  keyPath,
  validateLabels,
  type FieldError,
} from "@kubekit/generic-controlplane/registry";
import { parseMilli, quantityText } from "../quantity.js";
import type { NodeAffinity } from "../scheduler/node-affinity.js";
import type { Toleration } from "../scheduler/taint-toleration.js";
import { validateNodeAffinity, validateTolerations } from "./scheduling-fields.js";

export interface ResourceList {
  [resource: string]: string | number;
}

export interface Container {
  name?: string;
  image?: string;
  imagePullPolicy?: string;
  ports?: Array<{ containerPort?: number; protocol?: string; name?: string }>;
  resources?: { requests?: ResourceList; limits?: ResourceList };
  terminationMessagePath?: string;
  terminationMessagePolicy?: string;
  [field: string]: unknown;
}

export interface PodSpec {
  containers?: Container[];
  initContainers?: Container[];
  nodeName?: string;
  nodeSelector?: Record<string, string>;
  restartPolicy?: string;
  schedulerName?: string;
  priorityClassName?: string;
  priority?: number;
  dnsPolicy?: string;
  terminationGracePeriodSeconds?: number;
  /** An int64: beyond 2^53 it arrives as a bigint. */
  activeDeadlineSeconds?: number | bigint;
  securityContext?: Record<string, unknown>;
  runtimeClassName?: string;
  /** Set from the pod's RuntimeClass by admission; counted with the containers' requests. */
  overhead?: ResourceList;
  [field: string]: unknown;
}

export interface PodTemplateSpec {
  metadata?: KubeObject["metadata"];
  spec?: PodSpec;
}

const RESTART_POLICIES = ["Always", "OnFailure", "Never"];

/** SetDefaults_PodSpec and SetDefaults_Container for the fields kubectl shows. */
export function defaultPodSpec(spec: PodSpec): void {
  spec.restartPolicy ??= "Always";
  spec.dnsPolicy ??= "ClusterFirst";
  spec.schedulerName ??= "default-scheduler";
  spec.terminationGracePeriodSeconds ??= 30;
  spec.securityContext ??= {};
  for (const container of [...(spec.containers ?? []), ...(spec.initContainers ?? [])]) {
    container.terminationMessagePath ??= "/dev/termination-log";
    container.terminationMessagePolicy ??= "File";
    if (container.imagePullPolicy === undefined && typeof container.image === "string") {
      const tag = /:([^/:@]+)$/.exec(container.image.split("@")[0] ?? "")?.[1];
      container.imagePullPolicy = container.image.includes("@") || (tag !== undefined && tag !== "latest") ? "IfNotPresent" : "Always";
    }
    for (const port of container.ports ?? []) port.protocol ??= "TCP";
    container.resources ??= {};
  }
}

/** Quantities as upstream prints them in messages: the text the client sent. */
function quantityString(value: unknown): string {
  return quantityText(value) ?? String(value);
}

/** ValidateResourceRequirements: valid, non-negative quantities, and requests within limits. */
/** ValidateResourceQuantityValue over a resource list: each value a quantity of at least 0; the parsed values by name. */
export function validateResourceList(list: ResourceList | undefined, path: string, parsed = new Map<string, bigint>()): FieldError[] {
  const errors: FieldError[] = [];
  for (const [name, value] of Object.entries(list ?? {})) {
    const field = keyPath(path, name);
    const text = quantityText(value);
    const milli = text === undefined ? undefined : parseMilli(text);
    if (milli === undefined) {
      errors.push(fieldInvalid(field, value, "must be a valid quantity"));
      continue;
    }
    if (milli < 0n) errors.push(fieldInvalid(field, quantityString(value), "must be greater than or equal to 0"));
    parsed.set(name, milli);
  }
  return errors;
}

function validateResources(resources: Container["resources"], path: string): FieldError[] {
  const errors: FieldError[] = [];
  const parsed: Record<"requests" | "limits", Map<string, bigint>> = { requests: new Map(), limits: new Map() };
  for (const kind of ["limits", "requests"] as const)
    errors.push(...validateResourceList(resources?.[kind], childPath(path, kind), parsed[kind]));
  for (const [name, request] of parsed.requests) {
    const limit = parsed.limits.get(name);
    if (limit !== undefined && request > limit) {
      errors.push(
        fieldInvalid(
          childPath(path, "requests"),
          quantityString(resources?.requests?.[name]),
          `must be less than or equal to ${name} limit of ${quantityString(resources?.limits?.[name])}`,
        ),
      );
    }
  }
  return errors;
}

const RESIZE_RESOURCES = ["cpu", "memory"];
const RESIZE_RESTART_POLICIES = ["NotRequired", "RestartContainer"];

/** validateResizePolicy: cpu or memory once each, a known policy, and NotRequired for pods that never restart. */
function validateResizePolicy(policies: unknown, path: string, podRestartPolicy: string | undefined): FieldError[] {
  const errors: FieldError[] = [];
  if (!Array.isArray(policies)) return errors;
  const seen = new Set<unknown>();
  policies.forEach((policy: { resourceName?: unknown; restartPolicy?: unknown } | null, i) => {
    const resourceName = policy?.resourceName ?? "";
    const restartPolicy = policy?.restartPolicy ?? "";
    if (seen.has(resourceName)) errors.push(fieldDuplicate(indexPath(path, i), resourceName));
    seen.add(resourceName);
    if (resourceName === "") errors.push(fieldRequired(path));
    else if (typeof resourceName !== "string" || !RESIZE_RESOURCES.includes(resourceName))
      errors.push(fieldNotSupported(path, resourceName, RESIZE_RESOURCES));
    if (restartPolicy === "") errors.push(fieldRequired(path));
    else if (typeof restartPolicy !== "string" || !RESIZE_RESTART_POLICIES.includes(restartPolicy))
      errors.push(fieldNotSupported(path, restartPolicy, RESIZE_RESTART_POLICIES));
    if (podRestartPolicy === "Never" && restartPolicy !== "NotRequired") {
      errors.push(fieldInvalid(path, restartPolicy, "must be 'NotRequired' when `restartPolicy` is 'Never'"));
    }
  });
  return errors;
}

function validateContainers(
  containers: Container[] | undefined,
  path: string,
  names: Set<string>,
  podRestartPolicy?: string,
): FieldError[] {
  const errors: FieldError[] = [];
  (containers ?? []).forEach((container, i) => {
    const at = indexPath(path, i);
    if (!container.name) errors.push(fieldRequired(childPath(at, "name")));
    else {
      for (const message of isDNS1123Label(container.name)) errors.push(fieldInvalid(childPath(at, "name"), container.name, message));
      if (names.has(container.name)) errors.push(fieldDuplicate(childPath(at, "name"), container.name));
      names.add(container.name);
    }
    if (!container.image) errors.push(fieldRequired(childPath(at, "image")));
    (container.ports ?? []).forEach((port, j) => {
      const portPath = childPath(indexPath(childPath(at, "ports"), j), "containerPort");
      if (typeof port.containerPort !== "number" || port.containerPort < 1 || port.containerPort > 65535) {
        errors.push(fieldInvalid(portPath, port.containerPort ?? 0, "must be between 1 and 65535, inclusive"));
      }
    });
    errors.push(...validateResources(container.resources, childPath(at, "resources")));
    errors.push(...validateResizePolicy(container["resizePolicy"], childPath(at, "resizePolicy"), podRestartPolicy));
  });
  return errors;
}

/** ValidatePodSpec for the fields a simulated cluster acts on. */
export function validatePodSpec(spec: PodSpec | undefined, path: string): FieldError[] {
  const errors: FieldError[] = [];
  const names = new Set<string>();
  if (!spec?.containers || spec.containers.length === 0) errors.push(fieldRequired(childPath(path, "containers")));
  errors.push(...validateContainers(spec?.containers, childPath(path, "containers"), names, spec?.restartPolicy));
  errors.push(...validateContainers(spec?.initContainers, childPath(path, "initContainers"), names));
  if (spec?.restartPolicy !== undefined && !RESTART_POLICIES.includes(spec.restartPolicy)) {
    errors.push(fieldNotSupported(childPath(path, "restartPolicy"), spec.restartPolicy, RESTART_POLICIES));
  }
  errors.push(...validateLabels(spec?.nodeSelector, childPath(path, "nodeSelector")));
  errors.push(...validateResourceList(spec?.overhead, childPath(path, "overhead")));
  errors.push(...validateTolerations(spec?.["tolerations"] as Toleration[] | undefined, childPath(path, "tolerations")));
  errors.push(
    ...validateNodeAffinity(
      (spec?.["affinity"] as { nodeAffinity?: NodeAffinity } | undefined)?.nodeAffinity,
      childPath(childPath(path, "affinity"), "nodeAffinity"),
    ),
  );
  return errors;
}
