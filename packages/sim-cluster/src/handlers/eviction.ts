import {
  ControlPlaneError,
  badRequest,
  isControlPlaneError,
  type DeleteOptions,
  type KubeObject,
  type Status,
} from "@kubekit/generic-controlplane";
import type { ResourceStore } from "@kubekit/generic-controlplane/registry";
import type { RequestContext, ResourceRequestInfo } from "@kubekit/generic-controlplane/server";
import { disruptionAllowedCondition } from "../controllers/disruption-status.js";
import { isPodReady, nowRFC3339 } from "../controllers/util.js";
import { ALWAYS_ALLOW, type PodDisruptionBudget } from "../resources/pod-disruption-budgets.js";
import type { Pod } from "../resources/pods.js";
import { isEmptySelector, selectorMatches } from "../selector.js";
import { readJsonObject, writeJson } from "./respond.js";

/** Upstream's EvictionsRetry: conflicting writes are retried this many times. */
const EVICTION_ATTEMPTS = 20;
/** MaxDisruptedPodSize: evictions the disruption controller has not seen through yet. */
const MAX_DISRUPTED_PODS = 2000;
const VIOLATION = "Cannot evict pod as it would violate the pod's disruption budget.";

/** NewTooManyRequests with the DisruptionBudget cause (a cause's type is `reason` on the wire), as checkAndDecrement answers. */
function budgetRefusal(cause: string, retryAfterSeconds: number): ControlPlaneError {
  return new ControlPlaneError("TooManyRequests", VIOLATION, {
    details: { causes: [{ reason: "DisruptionBudget", message: cause }], ...(retryAfterSeconds > 0 ? { retryAfterSeconds } : {}) },
  });
}

function forbiddenBudget(name: string, reason: string): ControlPlaneError {
  return new ControlPlaneError("Forbidden", `poddisruptionbudget.policy "${name}" is forbidden: ${reason}`, {
    details: { name, group: "policy", kind: "poddisruptionbudget" },
  });
}

/** canIgnorePDB: a pod that ended, never started or is already going disrupts nothing more. */
function canIgnoreBudget(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === "Succeeded" || phase === "Failed" || phase === "Pending" || pod.metadata?.deletionTimestamp !== undefined;
}

/** getPodDisruptionBudgets: the budgets of the pod's namespace whose selector matches it (an empty selector matches nothing here). */
async function budgetsOf(pod: Pod, budgets: ResourceStore): Promise<PodDisruptionBudget[]> {
  const all = (await budgets.list(pod.metadata?.namespace)).items as PodDisruptionBudget[];
  return all.filter(
    (pdb) =>
      pdb.spec?.selector !== undefined && !isEmptySelector(pdb.spec.selector) && selectorMatches(pdb.spec.selector, pod.metadata?.labels),
  );
}

const isConflict = (error: unknown): boolean => isControlPlaneError(error) && error.code === "Conflict";

/**
 * checkAndDecrement: refuses while the budget's status is older than its spec (429, retry after
 * 10 s) or allows no disruption (429 naming the healthy pods needed and had); otherwise takes one
 * disruption and records the pod in `disruptedPods`, so the disruption controller does not count
 * it as healthy before it is gone. The write is conditional on the budget's resourceVersion.
 */
async function checkAndDecrement(pdb: PodDisruptionBudget, podName: string, budgets: ResourceStore, dryRun: boolean): Promise<void> {
  const name = pdb.metadata?.name ?? "";
  const status = pdb.status ?? {};
  if ((status.observedGeneration ?? 0) < (pdb.metadata?.generation ?? 0))
    throw budgetRefusal(`The disruption budget ${name} is still being processed by the server.`, 10);
  const allowed = status.disruptionsAllowed ?? 0;
  if (allowed < 0) throw forbiddenBudget(name, "pdb disruptions allowed is negative");
  if (Object.keys(status.disruptedPods ?? {}).length > MAX_DISRUPTED_PODS)
    throw forbiddenBudget(name, "DisruptedPods map too big - too many evictions not confirmed by PDB controller");
  if (allowed === 0)
    throw budgetRefusal(
      `The disruption budget ${name} needs ${status.desiredHealthy ?? 0} healthy pods and has ${status.currentHealthy ?? 0} currently`,
      0,
    );
  if (dryRun) return;
  const next = { ...status, disruptionsAllowed: allowed - 1, disruptedPods: { ...(status.disruptedPods ?? {}), [podName]: nowRFC3339() } };
  if (next.disruptionsAllowed === 0) next.conditions = disruptionAllowedCondition(next, nowRFC3339());
  await budgets.update(pdb.metadata?.namespace, name, { ...pdb, status: next }, { subresource: "status" });
}

/**
 * `POST pods/<name>/eviction` (upstream's EvictionREST), what `kubectl drain` sends: a policy/v1
 * (or v1beta1) Eviction deletes the pod with the eviction's `deleteOptions`, gracefully as any
 * DELETE, once the PodDisruptionBudget that selects the pod allows it, after marking it with the
 * `DisruptionTarget` condition. A pod that is not ready
 * is deleted without taking from the budget when the budget is met or its
 * `unhealthyPodEvictionPolicy` is `AlwaysAllow` (then only if the pod has not changed since).
 * More than one budget for a pod is a 500, as upstream.
 */
export async function serveEviction(
  ctx: RequestContext,
  info: ResourceRequestInfo,
  stores: { pods: ResourceStore; budgets: ResourceStore | undefined },
  maxBodyBytes: number,
): Promise<void> {
  if (info.verb !== "create")
    throw new ControlPlaneError(
      "MethodNotAllowed",
      `the server does not allow this method on the requested resource (${ctx.method} ${ctx.path})`,
    );
  const eviction = (await readJsonObject(ctx, maxBodyBytes, "policy/v1, Kind=Eviction")) as KubeObject & {
    deleteOptions?: DeleteOptions | null;
  };
  const name = eviction.metadata?.name;
  if (name !== undefined && name !== "" && name !== info.name) throw badRequest("name in URL does not match name in Eviction object");
  const namespace = eviction.metadata?.namespace;
  if (namespace !== undefined && namespace !== "" && namespace !== info.namespace)
    throw badRequest("namespace in URL does not match namespace in Eviction object");
  const requested: DeleteOptions = { ...(eviction.deleteOptions ?? {}) };
  const dryRun = ctx.dryRun || (requested.dryRun ?? []).includes("All");
  if (ctx.dryRun) requested.dryRun = ["All"];

  for (let attempt = 1; ; attempt++) {
    try {
      const pod = (await stores.pods.get(info.namespace, info.name)) as Pod;
      const deleteOptions = await admit(pod, stores.budgets, requested, dryRun);
      if (deleteOptions === "refused")
        return writeJson(ctx, 500, {
          kind: "Status",
          apiVersion: "v1",
          metadata: {},
          status: "Failure",
          message: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
          code: 500,
        } satisfies Status);
      if (dryRun) await stores.pods.delete(info.namespace, info.name, deleteOptions, { dryRun: true });
      else await markAndDelete(pod, stores.pods, deleteOptions);
      break;
    } catch (error) {
      if (!isConflict(error) || attempt >= EVICTION_ATTEMPTS) throw error;
    }
  }
  const status: Status = { kind: "Status", apiVersion: "v1", metadata: {}, status: "Success", code: 201 };
  writeJson(ctx, 201, status);
}

/**
 * addConditionAndDeletePod: the pod gets the `DisruptionTarget` condition (`EvictionByEvictionAPI`)
 * through its status, then is deleted; a resourceVersion precondition moves to the version that
 * write made. A pod changed meanwhile is a conflict (the eviction is tried again).
 */
async function markAndDelete(pod: Pod, pods: ResourceStore, deleteOptions: DeleteOptions): Promise<void> {
  const namespace = pod.metadata?.namespace;
  const name = pod.metadata?.name ?? "";
  const preconditions = deleteOptions.preconditions;
  let latest = pod;
  for (let attempt = 1; ; attempt++) {
    // getLatestPod: the preconditions hold against the stored pod, whatever else (its kubelet) wrote meanwhile.
    if (
      (preconditions?.uid && preconditions.uid !== latest.metadata?.uid) ||
      (preconditions?.resourceVersion && preconditions.resourceVersion !== latest.metadata?.resourceVersion)
    ) {
      throw new ControlPlaneError(
        "Conflict",
        `Operation cannot be fulfilled on pods "${name}": the object has been modified; please apply your changes to the latest version and try again`,
        { details: { name, kind: "pods" } },
      );
    }
    const now = nowRFC3339();
    const conditions = latest.status?.conditions ?? [];
    const before = conditions.find((c) => c.type === "DisruptionTarget");
    const marked = {
      type: "DisruptionTarget",
      status: "True",
      reason: "EvictionByEvictionAPI",
      message: "Eviction API: evicting",
      lastProbeTime: null,
      lastTransitionTime: before?.status === "True" ? (before.lastTransitionTime ?? now) : now,
    };
    try {
      const updated = await pods.update(
        namespace,
        name,
        { ...latest, status: { ...latest.status, conditions: [...conditions.filter((c) => c.type !== "DisruptionTarget"), marked] } },
        { subresource: "status" },
      );
      const options = preconditions?.resourceVersion
        ? { ...deleteOptions, preconditions: { ...preconditions, resourceVersion: updated.metadata?.resourceVersion ?? "" } }
        : deleteOptions;
      await pods.delete(namespace, name, options);
      return;
    } catch (error) {
      if (!isConflict(error) || attempt >= EVICTION_ATTEMPTS || preconditions?.resourceVersion) throw error;
      latest = await pods.get(namespace, name);
    }
  }
}

/** What the eviction may delete the pod with, after the budget allowed it; "refused" for several budgets. */
async function admit(
  pod: Pod,
  budgets: ResourceStore | undefined,
  requested: DeleteOptions,
  dryRun: boolean,
): Promise<DeleteOptions | "refused"> {
  if (budgets === undefined || canIgnoreBudget(pod)) return requested;
  const matching = await budgetsOf(pod, budgets);
  if (matching.length > 1) return "refused";
  const pdb = matching[0];
  if (pdb === undefined) return requested;
  // An unhealthy pod does not count towards the budget: deleting it takes nothing from it, as long as it is still the pod judged.
  const conditional: DeleteOptions = {
    ...requested,
    preconditions: { ...(requested.preconditions ?? {}), resourceVersion: pod.metadata?.resourceVersion ?? "" },
  };
  if (!isPodReady(pod)) {
    if (pdb.spec?.unhealthyPodEvictionPolicy === ALWAYS_ALLOW) return conditional;
    const { currentHealthy = 0, desiredHealthy = 0 } = pdb.status ?? {};
    if (currentHealthy >= desiredHealthy && desiredHealthy > 0) return conditional;
  }
  await checkAndDecrement(pdb, pod.metadata?.name ?? "", budgets, dryRun);
  return requested;
}
