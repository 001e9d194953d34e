import type {
  AdmissionAttributes,
  QuotaAmount,
  QuotaEvaluator,
  QuotaScopeRequirement,
  QuotaUsage,
} from "@kubekit/generic-controlplane/registry";
import { countOf, isQualifiedName, objectCountName, quantityFormatOf, quantityText } from "@kubekit/generic-controlplane/registry";
import type { Container } from "../resources/pod-spec.js";
import { qosClass, type Pod } from "../resources/pods.js";
import { podLimits, podRequests } from "../scheduler/fit.js";

const POD_COUNT = objectCountName("", "pods");

/** The names the pod evaluator measures besides the prefixed ones (upstream `podResources`). */
const POD_RESOURCES = new Set([
  POD_COUNT,
  "cpu",
  "memory",
  "ephemeral-storage",
  "requests.cpu",
  "requests.memory",
  "requests.ephemeral-storage",
  "limits.cpu",
  "limits.memory",
  "limits.ephemeral-storage",
  "pods",
]);

/** The compute resources a pod must request when a quota limits them (upstream's backward-compatible `validationSet`). */
const MUST_REQUEST = new Set(["cpu", "memory", "requests.cpu", "requests.memory", "limits.cpu", "limits.memory"]);

/** `IsNativeResource`: no domain, or a `kubernetes.io/` one. */
const isNative = (name: string): boolean => !name.includes("/") || name.includes("kubernetes.io/");

/** `IsExtendedResourceName`: a domain-qualified resource that is quota-able as `requests.<name>`. */
const isExtended = (name: string): boolean =>
  !isNative(name) && !name.startsWith("requests.") && isQualifiedName(`requests.${name}`).length === 0;

/** Extended resources are limited only as `requests.<name>` (no overcommit, so no limits). */
const isExtendedForQuota = (name: string): boolean => !isNative(name) && name.startsWith("requests.");

const isHugePagesForQuota = (name: string): boolean => name.startsWith("hugepages-") || name.startsWith("requests.hugepages-");

/** upstream `podComputeUsageHelper`: quota names of requests and limits, `pods` one. */
function computeUsage(requests: Map<string, QuotaAmount>, limits: Map<string, QuotaAmount>): QuotaUsage {
  const usage: QuotaUsage = new Map([["pods", countOf(1)]]);
  for (const resource of ["cpu", "memory", "ephemeral-storage"]) {
    const request = requests.get(resource);
    if (request !== undefined) {
      usage.set(resource, request);
      usage.set(`requests.${resource}`, request);
    }
    const limit = limits.get(resource);
    if (limit !== undefined) usage.set(`limits.${resource}`, limit);
  }
  for (const [resource, request] of requests) {
    if (resource.startsWith("hugepages-")) {
      usage.set(resource, request);
      usage.set(`requests.${resource}`, request);
    }
    if (isExtended(resource)) usage.set(`requests.${resource}`, request);
  }
  return usage;
}

/** One container's list as amounts, each in the format its text was written in. */
function amountsOf(list: Record<string, unknown> | undefined): Map<string, QuotaAmount> {
  const amounts = new Map<string, QuotaAmount>();
  for (const [name, value] of Object.entries(list ?? {})) {
    const text = quantityText(value);
    if (text !== undefined) amounts.set(name, { milli: 0n, format: quantityFormatOf(text) });
  }
  return amounts;
}

/** The pod-level sums with the format of the first container that names each resource, as apimachinery's sums keep. */
function withFormats(totals: Map<string, bigint>, pod: Pod, pick: "requests" | "limits"): Map<string, QuotaAmount> {
  const formats = new Map<string, QuotaAmount["format"]>();
  const containers: Container[] = [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])];
  for (const list of [...containers.map((c) => c.resources?.[pick]), pod.spec?.["overhead"] as Record<string, unknown> | undefined]) {
    for (const [name, amount] of amountsOf(list)) if (!formats.has(name)) formats.set(name, amount.format);
  }
  return new Map([...totals].map(([name, milli]) => [name, { milli, format: formats.get(name) ?? "DecimalSI" }]));
}

/** upstream `QuotaV1Pod`: terminal pods, and pods past their deletion grace, no longer use compute quota. */
export function podChargesQuota(pod: Pod, now: Date): boolean {
  const phase = pod.status?.phase;
  if (phase === "Succeeded" || phase === "Failed") return false;
  const deletion = pod.metadata?.deletionTimestamp;
  const grace = pod.metadata?.deletionGracePeriodSeconds;
  if (typeof deletion === "string" && grace !== undefined && grace !== null) {
    if (now.getTime() > Date.parse(deletion) + Number(grace) * 1000) return false;
  }
  return true;
}

/** upstream `PodUsageFunc`: `count/pods` always; compute resources while the pod charges quota. */
export function podQuotaUsage(pod: Pod, now: Date): QuotaUsage {
  const usage: QuotaUsage = new Map([[POD_COUNT, countOf(1)]]);
  if (!podChargesQuota(pod, now)) return usage;
  for (const [name, amount] of computeUsage(withFormats(podRequests(pod), pod, "requests"), withFormats(podLimits(pod), pod, "limits")))
    usage.set(name, amount);
  return usage;
}

/** `usesCrossNamespacePodAffinity`: an affinity or anti-affinity term naming namespaces or a namespace selector. */
function usesCrossNamespacePodAffinity(pod: Pod): boolean {
  const affinity = pod.spec?.["affinity"] as Record<string, Record<string, unknown> | undefined> | undefined;
  type Term = { namespaces?: unknown[]; namespaceSelector?: unknown };
  const crossNamespace = (term: Term | undefined) =>
    term !== undefined && ((term.namespaces?.length ?? 0) > 0 || (term.namespaceSelector !== undefined && term.namespaceSelector !== null));
  for (const kind of ["podAffinity", "podAntiAffinity"]) {
    const rules = affinity?.[kind];
    const required = (rules?.["requiredDuringSchedulingIgnoredDuringExecution"] as Term[] | undefined) ?? [];
    const preferred = (rules?.["preferredDuringSchedulingIgnoredDuringExecution"] as Array<{ podAffinityTerm?: Term }> | undefined) ?? [];
    if (required.some(crossNamespace) || preferred.some((weighted) => crossNamespace(weighted.podAffinityTerm))) return true;
  }
  return false;
}

/** A label-selector requirement on the one label `PriorityClass=<class>` a pod has when it names a class. */
function matchesPriorityClass(pod: Pod, requirement: QuotaScopeRequirement): boolean {
  const name = pod.spec?.priorityClassName ?? "";
  const values = requirement.values ?? [];
  switch (requirement.operator) {
    case "Exists":
      return name !== "";
    case "DoesNotExist":
      return name === "";
    case "In":
      return name !== "" && values.includes(name);
    case "NotIn":
      return name === "" || !values.includes(name);
    default:
      return false;
  }
}

/** upstream `podMatchesScopeFunc`. */
export function podMatchesScope(requirement: QuotaScopeRequirement, pod: Pod): boolean {
  const deadline = pod.spec?.activeDeadlineSeconds;
  const terminating = deadline !== undefined && deadline !== null && deadline >= 0;
  switch (requirement.scopeName) {
    case "Terminating":
      return terminating;
    case "NotTerminating":
      return !terminating;
    case "BestEffort":
      return qosClass(pod.spec) === "BestEffort";
    case "NotBestEffort":
      return qosClass(pod.spec) !== "BestEffort";
    case "PriorityClass":
      return matchesPriorityClass(pod, requirement);
    case "CrossNamespacePodAffinity":
      return usesCrossNamespacePodAffinity(pod);
    default:
      return false;
  }
}

/** upstream `Constraints`: every container must request each of cpu and memory a quota limits, naming the containers that do not. */
function podConstraints(tracked: readonly string[], pod: Pod): string | undefined {
  const required = tracked.filter((name) => MUST_REQUEST.has(name));
  if (required.length === 0) return undefined;
  const missing = new Map<string, Set<string>>();
  for (const container of [...(pod.spec?.containers ?? []), ...(pod.spec?.initContainers ?? [])]) {
    const has = computeUsage(amountsOf(container.resources?.requests), amountsOf(container.resources?.limits));
    for (const name of required)
      if (!has.has(name)) (missing.get(name) ?? missing.set(name, new Set()).get(name)!).add(container.name ?? "");
  }
  if (missing.size === 0) return undefined;
  const parts = [...missing.keys()].sort().map((name) => `${name} for: ${[...missing.get(name)!].sort().join(",")}`);
  return `must specify ${parts.join("; ")}`;
}

/**
 * The pod evaluator (upstream `pkg/quota/v1/evaluator/core/pods.go`): `pods` and the compute
 * resources (cpu, memory, ephemeral-storage requests and limits, hugepages, extended resources as
 * `requests.<name>`) of pods that are not terminal, `count/pods` of every pod; the pod scopes; and
 * creates and in-place resizes (`pods/resize` updates) charged.
 */
export const podQuotaEvaluator: QuotaEvaluator<Pod> = {
  group: "",
  resource: "pods",
  matchingResources: (names) => names.filter((name) => POD_RESOURCES.has(name) || isHugePagesForQuota(name) || isExtendedForQuota(name)),
  usage: podQuotaUsage,
  handles: (attributes: AdmissionAttributes) =>
    (attributes.subresource === "" && attributes.operation === "CREATE") ||
    (attributes.subresource === "resize" && attributes.operation === "UPDATE"),
  matchesScope: podMatchesScope,
  constraints: podConstraints,
};
