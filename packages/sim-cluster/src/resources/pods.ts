import { isDeepStrictEqual } from "node:util";
import { jsonEqual } from "@kubekit/apimachinery";
import type { PodStatus as ClientPodStatus } from "@kubekit/client";
import type { KubeObject } from "@kubekit/generic-controlplane";
import { fieldForbidden, fieldInvalid, type FieldError } from "@kubekit/generic-controlplane/registry";
import { parseMilli, quantityText } from "../quantity.js";
import { ageColumn, orNone } from "./columns.js";
import { defineResource } from "./define.js";
import { defaultPodSpec, validatePodSpec, type PodSpec, type ResourceList } from "./pod-spec.js";
import { componentSchema } from "./openapi/component-schema.js";

// The wire shapes every package reads pods with; the simulation adds the status fields it sets
// that the client does not describe.
export type { ContainerStatus, PodCondition } from "@kubekit/client";

export interface PodStatus extends ClientPodStatus {
  hostIPs?: Array<{ ip: string }>;
  nominatedNodeName?: string;
}

export interface Pod extends KubeObject {
  spec?: PodSpec;
  status?: PodStatus;
}

/** Upstream's message for a pod update that touches more than the mutable fields. */
export const POD_SPEC_IMMUTABLE_MESSAGE =
  "pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)";

/** The resources QoS is decided on (upstream `isSupportedQoSComputeResource`). */
const QOS_RESOURCES = ["cpu", "memory"];

/**
 * The QoS class kubelet and the API server derive from requests and limits (GetPodQOS): only
 * positive cpu and memory amounts count; Guaranteed when every container limits both and the
 * summed requests equal the summed limits by value.
 */
export function qosClass(spec: PodSpec | undefined): string {
  const containers = [...(spec?.containers ?? []), ...(spec?.initContainers ?? [])];
  const requests = new Map<string, bigint>();
  const limits = new Map<string, bigint>();
  const addPositive = (into: Map<string, bigint>, list: ResourceList | undefined): Set<string> => {
    const found = new Set<string>();
    for (const name of QOS_RESOURCES) {
      const text = list === undefined || !Object.hasOwn(list, name) ? undefined : quantityText(list[name]);
      const milli = text === undefined ? undefined : parseMilli(text);
      if (milli === undefined || milli <= 0n) continue;
      into.set(name, (into.get(name) ?? 0n) + milli);
      found.add(name);
    }
    return found;
  };
  let guaranteed = true;
  for (const container of containers) {
    addPositive(requests, container.resources?.requests);
    if (addPositive(limits, container.resources?.limits).size < QOS_RESOURCES.length) guaranteed = false;
  }
  if (requests.size === 0 && limits.size === 0) return "BestEffort";
  if (guaranteed && [...requests].every(([name, milli]) => limits.get(name) === milli) && requests.size === limits.size)
    return "Guaranteed";
  return "Burstable";
}

function prepareForCreate(pod: Pod): void {
  pod.spec ??= {};
  defaultPodSpec(pod.spec);
  // Requests default to limits (SetDefaults_Pod).
  for (const container of [...(pod.spec.containers ?? []), ...(pod.spec.initContainers ?? [])]) {
    const limits = container.resources?.limits;
    if (limits === undefined) continue;
    container.resources!.requests ??= {};
    for (const [name, value] of Object.entries(limits)) container.resources!.requests[name] ??= value;
  }
  pod.status = { phase: "Pending", qosClass: qosClass(pod.spec) };
}

function withoutMutableFields(spec: PodSpec | undefined): PodSpec {
  const copy = structuredClone(spec ?? {});
  for (const container of [...(copy.containers ?? []), ...(copy.initContainers ?? [])]) delete container.image;
  delete copy.activeDeadlineSeconds;
  delete copy.tolerations;
  return copy;
}

export function validatePod(pod: Pod): FieldError[] {
  return validatePodSpec(pod.spec, "spec");
}

/** ValidatePodUpdate: a pod's spec is fixed once created, but for images and a few fields. */
export function validatePodUpdate(pod: Pod, old: Pod): FieldError[] {
  // A write that leaves the spec as stored (every status write) has nothing in it to check: the
  // stored spec passed these checks when it was written, and they look at the spec alone. Upstream's
  // status strategy does not validate the spec either.
  if (jsonEqual(pod.spec, old.spec)) return [];
  const errors = validatePod(pod);
  // Values are compared, not serializations: a client may send the same spec with its keys in another order.
  if (!isDeepStrictEqual(withoutMutableFields(pod.spec), withoutMutableFields(old.spec)))
    errors.push(fieldForbidden("spec", POD_SPEC_IMMUTABLE_MESSAGE));
  errors.push(...validateActiveDeadlineUpdate(pod.spec?.activeDeadlineSeconds, old.spec?.activeDeadlineSeconds));
  return errors;
}

/** A deadline may be set or shortened, never lengthened or removed (the kubelet may already be counting it). */
function validateActiveDeadlineUpdate(value: number | bigint | undefined, old: number | bigint | undefined): FieldError[] {
  const field = "spec.activeDeadlineSeconds";
  if (value === undefined || value === null) {
    // Go prints the nil pointer as the string "null".
    return old === undefined || old === null ? [] : [fieldInvalid(field, "null", "must not update from a positive integer to nil value")];
  }
  if (old !== undefined && old !== null && old < value) return [fieldInvalid(field, value, "must be less than or equal to previous value")];
  return [];
}

/**
 * The pod strategy's CheckGracefulDelete: the period asked for, else the pod's
 * terminationGracePeriodSeconds; 0 (at once) for a pod no node runs or one that already ended;
 * a negative period counts as 1 s. The kubelet removes the pod when its containers stopped.
 */
function gracefulDeletePeriod(pod: Pod, requested: number | undefined): number {
  let period = requested ?? pod.spec?.terminationGracePeriodSeconds ?? 0;
  if (!pod.spec?.nodeName) period = 0;
  if (pod.status?.phase === "Succeeded" || pod.status?.phase === "Failed") period = 0;
  return period < 0 ? 1 : period;
}

/** kubectl's READY, STATUS and RESTARTS columns (printPod). */
export function podStatusCell(pod: Pod): string {
  if (pod.metadata?.deletionTimestamp) return "Terminating";
  let reason = pod.status?.reason ?? pod.status?.phase ?? "";
  for (const status of pod.status?.containerStatuses ?? []) {
    const waiting = status.state?.["waiting"] as { reason?: string } | undefined;
    if (waiting?.reason) reason = waiting.reason;
  }
  return reason;
}

function readyCell(pod: Pod): string {
  const total = pod.spec?.containers?.length ?? 0;
  const ready = (pod.status?.containerStatuses ?? []).filter((s) => s.ready).length;
  return `${ready}/${total}`;
}

const schema = componentSchema("io.k8s.api.core.v1.Pod");

/** core/v1 Pod (with /status; /binding is served by the cluster's handlers). */
export const podsResource = defineResource<Pod>({
  group: "",
  version: "v1",
  kind: "Pod",
  plural: "pods",
  singular: "pod",
  scope: "Namespaced",
  shortNames: ["po"],
  categories: ["all"],
  statusSubresource: true,
  // metadata.generation moves with the spec (upstream's updatePodGeneration); the kubelet reports status.observedGeneration.
  tracksGeneration: true,
  // binding is served by the cluster's binding handler (the scheduler's way to place a pod);
  // resize by its own store with podResizeStrategy (see pod-resize.ts).
  subresources: [
    { name: "binding", verbs: ["create"] },
    // kubectl drain looks for this entry (kind policy/v1 Eviction) before it evicts instead of deleting.
    { name: "eviction", verbs: ["create"], kind: { group: "policy", version: "v1", kind: "Eviction" } },
    { name: "resize", verbs: ["get", "patch", "update"] },
    // Served by the cluster's handlers (src/handlers/stage.ts), as upstream's connect and log REST.
    { name: "log", verbs: ["get"] },
    { name: "exec", verbs: ["create", "get"], kind: { group: "", version: "v1", kind: "PodExecOptions" } },
    { name: "attach", verbs: ["create", "get"], kind: { group: "", version: "v1", kind: "PodAttachOptions" } },
    { name: "portforward", verbs: ["create", "get"], kind: { group: "", version: "v1", kind: "PodPortForwardOptions" } },
    { name: "proxy", verbs: ["create", "delete", "get", "patch", "update"], kind: { group: "", version: "v1", kind: "PodProxyOptions" } },
  ],
  schema,
  fieldSelectors: {
    "spec.nodeName": (pod) => pod.spec?.nodeName ?? "",
    "spec.schedulerName": (pod) => pod.spec?.schedulerName ?? "",
    "spec.restartPolicy": (pod) => pod.spec?.restartPolicy ?? "",
    "status.phase": (pod) => pod.status?.phase ?? "",
    "status.podIP": (pod) => pod.status?.podIP ?? "",
    "status.nominatedNodeName": (pod) => pod.status?.nominatedNodeName ?? "",
  },
  printerColumns: [
    { name: "Ready", type: "string", description: "The aggregate readiness state of this pod for accepting traffic.", cell: readyCell },
    { name: "Status", type: "string", description: "The aggregate status of the containers in this pod.", cell: podStatusCell },
    {
      name: "Restarts",
      type: "string",
      description: "The number of times the containers in this pod have been restarted.",
      cell: (pod) => String((pod.status?.containerStatuses ?? []).reduce((n, s) => n + (s.restartCount ?? 0), 0)),
    },
    ageColumn(),
    {
      name: "IP",
      type: "string",
      priority: 1,
      description: "IP address allocated to the pod. Routable at least within the cluster. Empty if not yet allocated.",
      cell: (pod) => orNone(pod.status?.podIP),
    },
    {
      name: "Node",
      type: "string",
      priority: 1,
      description: "NodeName is a request to schedule this pod onto a specific node.",
      cell: (pod) => orNone(pod.spec?.nodeName),
    },
    {
      name: "Nominated Node",
      type: "string",
      priority: 1,
      description: "nominatedNodeName is set when this pod preempts other pods on the node.",
      cell: (pod) => orNone(pod.status?.nominatedNodeName),
    },
    {
      name: "Readiness Gates",
      type: "string",
      priority: 1,
      description: "If specified, all readiness gates will be evaluated for pod readiness.",
      cell: () => "<none>",
    },
  ],
  strategy: { prepareForCreate, validate: validatePod, validateUpdate: validatePodUpdate, gracefulDeletePeriod },
});
