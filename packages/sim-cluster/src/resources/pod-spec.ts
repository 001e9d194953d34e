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
  type JSONSchemaProps,
} from "@kubekit/generic-controlplane/registry";
import { parseMilli, quantityText } from "../quantity.js";
import type { NodeAffinity } from "../scheduler/node-affinity.js";
import type { Toleration } from "../scheduler/taint-toleration.js";
import { validateNodeAffinity, validateTolerations } from "./scheduling-fields.js";
import { bool, int32, intOrString, mapList, objectMeta, open, quantityMap, str, stringMap } from "./schema.js";

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

function containerSchema(): JSONSchemaProps {
  return open("A single application container that you want to run within a pod.", {
    name: str("Name of the container specified as a DNS_LABEL. Each container in a pod must have a unique name."),
    image: str("Container image name."),
    imagePullPolicy: str("Image pull policy. One of Always, Never, IfNotPresent."),
    command: { type: "array", items: { type: "string" }, "x-kubernetes-list-type": "atomic", description: "Entrypoint array. Not executed within a shell." },
    args: { type: "array", items: { type: "string" }, "x-kubernetes-list-type": "atomic", description: "Arguments to the entrypoint." },
    ports: mapList(
      "List of ports to expose from the container.",
      "containerPort",
      open("A network port in a single container.", { containerPort: int32("Number of port to expose on the pod's IP address."), protocol: str("Protocol for port: UDP, TCP, or SCTP."), name: str("Name of the port.") }),
    ),
    resizePolicy: mapList(
      "Resources resize policy for the container.",
      "resourceName",
      open("ContainerResizePolicy represents resource resize policy for the container.", {
        resourceName: str("Name of the resource to which this resource resize policy applies. Supported values: cpu, memory."),
        restartPolicy: str("Restart policy to apply when specified resource is resized. If not specified, it defaults to NotRequired."),
      }),
    ),
    resources: open("Compute Resources required by this container.", {
      requests: quantityMap("Requests describes the minimum amount of compute resources required."),
      limits: quantityMap("Limits describes the maximum amount of compute resources allowed."),
    }),
  });
}

export function podSpecSchema(): JSONSchemaProps {
  return open("PodSpec is a description of a pod.", {
    containers: mapList("List of containers belonging to the pod.", "name", containerSchema()),
    initContainers: mapList("List of initialization containers belonging to the pod.", "name", containerSchema()),
    nodeName: str("NodeName indicates in which node this pod is scheduled."),
    nodeSelector: { ...stringMap("NodeSelector is a selector which must be true for the pod to fit on a node."), "x-kubernetes-map-type": "atomic" },
    restartPolicy: str("Restart policy for all containers within the pod. One of Always, OnFailure, Never."),
    schedulerName: str("If specified, the pod will be dispatched by specified scheduler."),
    priorityClassName: str("If specified, indicates the pod's priority."),
    priority: int32("The priority value, filled in from the PriorityClass by admission."),
    terminationGracePeriodSeconds: { type: "integer", format: "int64", description: "Optional duration in seconds the pod needs to terminate gracefully." },
    dnsPolicy: str("Set DNS policy for the pod."),
    hostNetwork: bool("Host networking requested for this pod."),
    tolerations: { type: "array", description: "If specified, the pod's tolerations.", items: tolerationSchema() },
    affinity: open("If specified, the pod's scheduling constraints.", { nodeAffinity: nodeAffinitySchema() }),
  });
}

function tolerationSchema(): JSONSchemaProps {
  return open("The pod this Toleration is attached to tolerates any taint that matches the triple <key,value,effect> using the matching operator <operator>.", {
    key: str("Key is the taint key that the toleration applies to. Empty means match all taint keys."),
    operator: str("Operator represents a key's relationship to the value. Valid operators are Exists and Equal. Defaults to Equal."),
    value: str("Value is the taint value the toleration matches to."),
    effect: str("Effect indicates the taint effect to match. Empty means match all taint effects."),
    tolerationSeconds: { type: "integer", format: "int64", description: "TolerationSeconds represents the period of time the toleration (which must be of effect NoExecute) tolerates the taint." },
  });
}

function nodeSelectorTermSchema(description: string): JSONSchemaProps {
  const requirement = (what: string): JSONSchemaProps => ({
    type: "array",
    description: `A list of node selector requirements by node's ${what}.`,
    items: {
      type: "object",
      required: ["key", "operator"],
      properties: {
        key: str("The label key that the selector applies to."),
        operator: str("Represents a key's relationship to a set of values. Valid operators are In, NotIn, Exists, DoesNotExist. Gt, and Lt."),
        values: { type: "array", items: { type: "string" }, description: "An array of string values." },
      },
    },
  });
  return { type: "object", description, "x-kubernetes-map-type": "atomic", properties: { matchExpressions: requirement("labels"), matchFields: requirement("fields") } };
}

function nodeAffinitySchema(): JSONSchemaProps {
  return open("Describes node affinity scheduling rules for the pod.", {
    requiredDuringSchedulingIgnoredDuringExecution: {
      type: "object",
      description: "If the affinity requirements specified by this field are not met at scheduling time, the pod will not be scheduled onto the node.",
      "x-kubernetes-map-type": "atomic",
      properties: { nodeSelectorTerms: { type: "array", description: "Required. A list of node selector terms. The terms are ORed.", items: nodeSelectorTermSchema("A null or empty node selector term matches no objects.") } },
    },
    preferredDuringSchedulingIgnoredDuringExecution: {
      type: "array",
      description: "The scheduler will prefer to schedule pods to nodes that satisfy the affinity expressions specified by this field.",
      items: { type: "object", required: ["weight", "preference"], properties: { weight: int32("Weight associated with matching the corresponding nodeSelectorTerm, in the range 1-100."), preference: nodeSelectorTermSchema("A node selector term, associated with the corresponding weight.") } },
    },
  });
}

export function podTemplateSchema(): JSONSchemaProps {
  return { type: "object", description: "Template describes the pods that will be created.", properties: { metadata: objectMeta(), spec: podSpecSchema() } };
}

export { intOrString };

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
  for (const kind of ["limits", "requests"] as const) errors.push(...validateResourceList(resources?.[kind], childPath(path, kind), parsed[kind]));
  for (const [name, request] of parsed.requests) {
    const limit = parsed.limits.get(name);
    if (limit !== undefined && request > limit) {
      errors.push(fieldInvalid(childPath(path, "requests"), quantityString(resources?.requests?.[name]), `must be less than or equal to ${name} limit of ${quantityString(resources?.limits?.[name])}`));
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
    else if (typeof resourceName !== "string" || !RESIZE_RESOURCES.includes(resourceName)) errors.push(fieldNotSupported(path, resourceName, RESIZE_RESOURCES));
    if (restartPolicy === "") errors.push(fieldRequired(path));
    else if (typeof restartPolicy !== "string" || !RESIZE_RESTART_POLICIES.includes(restartPolicy)) errors.push(fieldNotSupported(path, restartPolicy, RESIZE_RESTART_POLICIES));
    if (podRestartPolicy === "Never" && restartPolicy !== "NotRequired") {
      errors.push(fieldInvalid(path, restartPolicy, "must be 'NotRequired' when `restartPolicy` is 'Never'"));
    }
  });
  return errors;
}

function validateContainers(containers: Container[] | undefined, path: string, names: Set<string>, podRestartPolicy?: string): FieldError[] {
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
  errors.push(...validateNodeAffinity((spec?.["affinity"] as { nodeAffinity?: NodeAffinity } | undefined)?.nodeAffinity, childPath(childPath(path, "affinity"), "nodeAffinity")));
  return errors;
}
