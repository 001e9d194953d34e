import { isControlPlaneError } from "../api/errors/control-plane-error.js";
import { formatTime } from "../registry/rest/object-utils.js";
import type { ResourceDefinition } from "../registry/rest/resource-definition.js";
import type { ResourceStore } from "../registry/types.js";
import { APIREGISTRATION_GROUP } from "./api-services.js";
import { apiServiceName, type APIService } from "./types.js";

/** Marks the APIServices this server manages for what it serves itself (upstream's autoregistration label). */
export const AUTOMANAGED_LABEL = "kube-aggregator.kubernetes.io/automanaged";

/** Upstream's `DefaultGenericAPIServicePriorities` for the built-in group versions. */
const PRIORITIES: Record<string, { group: number; version: number }> = {
  "/v1": { group: 18000, version: 1 },
  "events.k8s.io/v1": { group: 17750, version: 15 },
  "authentication.k8s.io/v1": { group: 17700, version: 15 },
  "authorization.k8s.io/v1": { group: 17600, version: 15 },
  "certificates.k8s.io/v1": { group: 17300, version: 15 },
  "rbac.authorization.k8s.io/v1": { group: 17000, version: 15 },
  "apiextensions.k8s.io/v1": { group: 16700, version: 15 },
  "admissionregistration.k8s.io/v1": { group: 16700, version: 15 },
  "coordination.k8s.io/v1": { group: 16500, version: 15 },
  "flowcontrol.apiserver.k8s.io/v1": { group: 16100, version: 21 },
  [`${APIREGISTRATION_GROUP}/v1`]: { group: 18000, version: 15 },
};
/** Group versions upstream has no entry for (custom resources) get the CRD registration's priorities. */
const DEFAULT_PRIORITY = { group: 1000, version: 100 };

const LOCAL_CONDITION = { type: "Available", status: "True", reason: "Local", message: "Local APIServices are always available" } as const;

function localAPIService(group: string, version: string): APIService {
  const priority = PRIORITIES[`${group}/${version}`] ?? DEFAULT_PRIORITY;
  return {
    apiVersion: `${APIREGISTRATION_GROUP}/v1`,
    kind: "APIService",
    metadata: { name: apiServiceName(group, version), labels: { [AUTOMANAGED_LABEL]: "onstart" } },
    // Go omits the core group's empty name.
    spec: { ...(group === "" ? {} : { group }), version, groupPriorityMinimum: priority.group, versionPriority: priority.version },
  };
}

/**
 * The autoregistration controller's work for local group versions: every group version this
 * server serves has a `Local` APIService, Available; automanaged ones of group versions no longer
 * served (a deleted CRD's) are removed. APIServices a user pointed at a service are left alone.
 */
export async function syncLocalAPIServices(store: ResourceStore, definitions: readonly ResourceDefinition[]): Promise<void> {
  const served = new Map<string, { group: string; version: string }>();
  for (const d of definitions) served.set(apiServiceName(d.group, d.version), { group: d.group, version: d.version });
  // One APIService's create and status write after another, all group versions at once: this runs while the server starts.
  await Promise.all([...served].map(([name, { group, version }]) => ensureLocal(store, name, group, version)));
  const list = await store.list(undefined, { labelSelector: AUTOMANAGED_LABEL });
  for (const item of list.items as APIService[]) {
    const name = item.metadata?.name ?? "";
    if (served.has(name) || item.spec?.service !== undefined) continue;
    try {
      await store.delete(undefined, name);
    } catch (error) {
      if (!(isControlPlaneError(error) && error.code === "NotFound")) throw error;
    }
  }
}

/** The Local APIService of one group version exists and is Available. */
async function ensureLocal(store: ResourceStore, name: string, group: string, version: string): Promise<void> {
  let current: APIService | undefined;
  try {
    current = await store.get(undefined, name);
  } catch (error) {
    if (!(isControlPlaneError(error) && error.code === "NotFound")) throw error;
  }
  if (current === undefined) {
    try {
      current = await store.create(undefined, localAPIService(group, version));
    } catch (error) {
      if (!(isControlPlaneError(error) && error.code === "AlreadyExists")) throw error;
      current = await store.get(undefined, name);
    }
  }
  if (current.spec?.service !== undefined) return;
  const available = current.status?.conditions?.find((c) => c.type === "Available");
  if (available?.status === "True" && available.reason === LOCAL_CONDITION.reason) return;
  await store.guaranteedUpdate(
    undefined,
    name,
    (object) => {
      const apiService = object as APIService;
      const others = (apiService.status?.conditions ?? []).filter((c) => c.type !== "Available");
      apiService.status = { conditions: [...others, { ...LOCAL_CONDITION, lastTransitionTime: formatTime(new Date()) }] };
      return apiService;
    },
    { subresource: "status" },
  );
}
