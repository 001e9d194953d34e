import { isControlPlaneError } from "../api/errors/control-plane-error.js";
import type { KubeObject } from "../api/types.js";
import type { ResourceStore } from "../registry/types.js";
import { AUTOUPDATE_ANNOTATION, bootstrapClusterRoleBindings, bootstrapClusterRoles } from "./bootstrap-policy.js";
import { covers } from "./escalation.js";
import type { ClusterRole, ClusterRoleBinding } from "./types.js";
import { cloneJson } from "../patch/json-value.js";

/** Name of upstream's post-start hook that ensures the bootstrap policy. */
export const BOOTSTRAP_HOOK = "rbac/bootstrap-roles";

async function getOrUndefined(store: ResourceStore, name: string): Promise<KubeObject | undefined> {
  try {
    return await store.get(undefined, name);
  } catch (error) {
    if (isControlPlaneError(error) && error.code === "NotFound") return undefined;
    throw error;
  }
}

function mergeMeta(existing: KubeObject, wanted: KubeObject): boolean {
  const metadata = (existing.metadata ??= {});
  let changed = false;
  for (const field of ["labels", "annotations"] as const) {
    const into = (metadata[field] ??= {});
    for (const [key, value] of Object.entries(wanted.metadata?.[field] ?? {})) {
      if (into[key] === undefined) {
        into[key] = value;
        changed = true;
      }
    }
  }
  return changed;
}

/**
 * upstream's `rbac/bootstrap-roles` post-start hook: each bootstrap ClusterRole and
 * ClusterRoleBinding is created when missing; one that exists and is not annotated
 * `rbac.authorization.kubernetes.io/autoupdate: "false"` gets back the rules, subjects, labels and
 * annotations it lacks (extra permissions a user added stay, as `reconcile` without removal).
 */
export async function ensureBootstrapPolicy(clusterRoles: ResourceStore, clusterRoleBindings: ResourceStore): Promise<void> {
  for (const role of bootstrapClusterRoles()) {
    const name = role.metadata?.name ?? "";
    const existing = (await getOrUndefined(clusterRoles, name)) as ClusterRole | undefined;
    if (existing === undefined) {
      await createIgnoringExisting(clusterRoles, role);
      continue;
    }
    if (existing.metadata?.annotations?.[AUTOUPDATE_ANNOTATION] === "false") continue;
    let changed = mergeMeta(existing, role);
    if (role.aggregationRule !== undefined && existing.aggregationRule === undefined) {
      existing.aggregationRule = role.aggregationRule;
      changed = true;
    }
    // Aggregated roles' rules belong to the aggregation controller.
    if (role.aggregationRule === undefined) {
      const missing = (role.rules ?? []).filter((rule) => !covers(existing.rules ?? [], [rule]).covered);
      if (missing.length > 0) {
        existing.rules = [...(existing.rules ?? []), ...missing];
        changed = true;
      }
    }
    if (changed) await clusterRoles.update(undefined, name, existing);
  }
  for (const binding of bootstrapClusterRoleBindings()) {
    const name = binding.metadata?.name ?? "";
    const existing = (await getOrUndefined(clusterRoleBindings, name)) as ClusterRoleBinding | undefined;
    if (existing === undefined) {
      await createIgnoringExisting(clusterRoleBindings, binding);
      continue;
    }
    if (existing.metadata?.annotations?.[AUTOUPDATE_ANNOTATION] === "false") continue;
    let changed = mergeMeta(existing, binding);
    const subjects = existing.subjects ?? [];
    for (const subject of binding.subjects ?? []) {
      if (!subjects.some((s) => s.kind === subject.kind && s.name === subject.name && (s.namespace ?? "") === (subject.namespace ?? ""))) {
        subjects.push(subject);
        changed = true;
      }
    }
    existing.subjects = subjects;
    // roleRef is immutable: a binding pointing elsewhere is the user's choice and stays.
    if (changed) await clusterRoleBindings.update(undefined, name, existing);
  }
}

async function createIgnoringExisting(store: ResourceStore, object: KubeObject): Promise<void> {
  try {
    await store.create(undefined, cloneJson(object));
  } catch (error) {
    if (!(isControlPlaneError(error) && error.code === "AlreadyExists")) throw error;
  }
}
