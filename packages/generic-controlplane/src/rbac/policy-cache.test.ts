import { afterEach, describe, expect, it } from "vitest";
import { createResourceStore } from "../registry/store.js";
import { createMemoryStorage } from "../storage/memory.js";
import type { Storage } from "../storage/types.js";
import { PolicyCache } from "./policy-cache.js";
import { clusterRoleBindingsResource, clusterRolesResource, roleBindingsResource, rolesResource } from "./resources.js";

let storage: Storage | undefined;
let cache: PolicyCache | undefined;
afterEach(async () => {
  cache?.stop();
  await storage?.close();
});

const binding = (name: string) => ({
  metadata: { name },
  roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" },
  subjects: [{ kind: "User", apiGroup: "rbac.authorization.k8s.io", name }],
});

describe("PolicyCache", () => {
  it("serves reads from memory, sees its own writes at once and others' writes through the watch", async () => {
    storage = createMemoryStorage();
    const plain = {
      roles: createResourceStore(rolesResource, storage),
      clusterRoles: createResourceStore(clusterRolesResource, storage),
      roleBindings: createResourceStore(roleBindingsResource, storage),
      clusterRoleBindings: createResourceStore(clusterRoleBindingsResource, storage),
    };
    cache = new PolicyCache(plain);
    await cache.start();
    expect(await cache.listClusterRoleBindings()).toEqual([]);

    // A write through the cache's stores is visible to the very next read.
    await cache.stores.clusterRoleBindings.create(undefined, binding("a"));
    expect((await cache.listClusterRoleBindings()).map((b) => b.metadata?.name)).toEqual(["a"]);

    // A write that bypasses it (another server on the same storage) arrives through the watch.
    await plain.clusterRoleBindings.create(undefined, binding("b"));
    const deadline = Date.now() + 5_000;
    while ((await cache.listClusterRoleBindings()).length !== 2) {
      if (Date.now() > deadline) throw new Error("the cache never saw the write made beside it");
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(await cache.getClusterRole("view")).toBeUndefined();
    await cache.stores.clusterRoles.create(undefined, { metadata: { name: "view" }, rules: [] });
    expect((await cache.getClusterRole("view"))?.metadata?.name).toBe("view");
  });
});
