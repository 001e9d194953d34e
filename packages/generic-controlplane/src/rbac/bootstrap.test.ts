import { afterEach, describe, expect, it } from "vitest";
import { createResourceStore } from "../registry/store.js";
import { createMemoryStorage } from "../storage/memory.js";
import type { Storage } from "../storage/types.js";
import { ensureBootstrapPolicy } from "./bootstrap.js";
import { clusterRoleBindingsResource, clusterRolesResource } from "./resources.js";
import type { ClusterRole, ClusterRoleBinding } from "./types.js";

let storage: Storage | undefined;
afterEach(async () => {
  await storage?.close();
});

function stores() {
  storage = createMemoryStorage();
  return { roles: createResourceStore(clusterRolesResource, storage), bindings: createResourceStore(clusterRoleBindingsResource, storage) };
}

describe("rbac/bootstrap-roles", () => {
  it("creates the bootstrap policy once; running it again changes nothing", async () => {
    const { roles, bindings } = stores();
    await ensureBootstrapPolicy(roles, bindings);
    const first = (await roles.list(undefined)).metadata.resourceVersion;
    const admin = (await roles.get(undefined, "cluster-admin")) as ClusterRole;
    expect(admin.metadata?.labels).toEqual({ "kubernetes.io/bootstrapping": "rbac-defaults" });
    expect(admin.metadata?.annotations).toEqual({ "rbac.authorization.kubernetes.io/autoupdate": "true" });
    await ensureBootstrapPolicy(roles, bindings);
    expect((await roles.list(undefined)).metadata.resourceVersion).toBe(first);
  });

  it("puts back rules and subjects a bootstrap object lost, keeps what was added, and leaves autoupdate=false objects alone", async () => {
    const { roles, bindings } = stores();
    await ensureBootstrapPolicy(roles, bindings);
    const basic = (await roles.get(undefined, "system:basic-user")) as ClusterRole;
    const extra = { verbs: ["get"], apiGroups: [""], resources: ["configmaps"] };
    await roles.update(undefined, "system:basic-user", { ...basic, rules: [extra] });
    const discovery = (await bindings.get(undefined, "system:discovery")) as ClusterRoleBinding;
    await bindings.update(undefined, "system:discovery", { ...discovery, subjects: [] });
    const monitoring = (await roles.get(undefined, "system:monitoring")) as ClusterRole;
    await roles.update(undefined, "system:monitoring", {
      ...monitoring,
      metadata: { ...monitoring.metadata, annotations: { "rbac.authorization.kubernetes.io/autoupdate": "false" } },
      rules: [],
    });

    await ensureBootstrapPolicy(roles, bindings);
    const restored = (await roles.get(undefined, "system:basic-user")) as ClusterRole;
    expect(restored.rules?.[0]).toEqual(extra);
    expect(restored.rules).toEqual(expect.arrayContaining(basic.rules ?? []));
    expect(((await bindings.get(undefined, "system:discovery")) as ClusterRoleBinding).subjects).toEqual(discovery.subjects);
    expect(((await roles.get(undefined, "system:monitoring")) as ClusterRole).rules).toEqual([]);
  });
});
