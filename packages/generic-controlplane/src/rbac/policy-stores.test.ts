/**
 * Ports of upstream's policy-based RBAC storage tests:
 * - pkg/registry/rbac/clusterrole/policybased/storage_test.go (TestEscalation)
 * - pkg/registry/rbac/role/policybased/storage_test.go (TestEscalation)
 * - pkg/registry/rbac/helpers_test.go (TestIsOnlyMutatingGCFields)
 * The stores underneath are counting fakes, as upstream's `fakeStorage`: this is the unit test of
 * the policy layer alone; src/rbac/rbac.test.ts drives the same checks through a served API.
 */
import { describe, expect, it } from "vitest";
import type { KubeObject } from "../api/types.js";
import { isControlPlaneError } from "../api/errors/control-plane-error.js";
import type { ResourceStore } from "../registry/types.js";
import type { Authorizer, UserInfo } from "../server/access-reviews.js";
import { guardRbacStores, onlyGCFields, type RbacStores } from "./policy-stores.js";
import { RuleResolver } from "./rule-resolver.js";
import type { ClusterRole, ClusterRoleBinding } from "./types.js";

const superuser: UserInfo = { name: "superuser", groups: ["system:masters"] };
const bob: UserInfo = { name: "bob", groups: [] };
const steve: UserInfo = { name: "steve", groups: [] };
const alice: UserInfo = { name: "alice", groups: [] };

/**
 * Counts the writes that reach it and serves the objects it is given; any other name reads as an
 * empty object, as upstream's fake hands an empty role to an update.
 */
function fakeStorage(items: KubeObject[] = []) {
  const counts = { created: 0, updated: 0 };
  const store = {
    create: (_namespace: string | undefined, object: KubeObject) => {
      counts.created++;
      return Promise.resolve(object);
    },
    update: (_namespace: string | undefined, _name: string, object: KubeObject) => {
      counts.updated++;
      return Promise.resolve(object);
    },
    get: (_namespace: string | undefined, name: string) =>
      Promise.resolve(items.find((item) => item.metadata?.name === name) ?? { metadata: {} }),
    list: () => Promise.resolve({ apiVersion: "v1", kind: "List", metadata: {}, items }),
  } as unknown as ResourceStore;
  return { store, counts };
}

function setup(resource: "roles" | "clusterroles", clusterRoles: KubeObject[] = []) {
  let authzCalled = 0;
  const authorizer: Authorizer = {
    authorize: (user) => {
      authzCalled++;
      return { allowed: user.name === "steve" };
    },
  };
  const aliceRole: ClusterRole = { metadata: { name: "alice-role" }, rules: [{ apiGroups: ["*"], resources: ["*"], verbs: ["*"] }] };
  const aliceBinding: ClusterRoleBinding = {
    metadata: { name: "alice" },
    roleRef: { name: "alice-role", apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole" },
    subjects: [{ name: "alice", kind: "User", apiGroup: "rbac.authorization.k8s.io" }],
  };
  const resolver = new RuleResolver({
    getRole: () => Promise.resolve(undefined),
    getClusterRole: (name) => Promise.resolve(name === "alice-role" ? aliceRole : undefined),
    listRoleBindings: () => Promise.resolve([]),
    listClusterRoleBindings: () => Promise.resolve([aliceBinding]),
  });
  const target = fakeStorage(resource === "clusterroles" ? clusterRoles : []);
  const other = fakeStorage(clusterRoles);
  const raw: RbacStores = {
    roles: resource === "roles" ? target.store : fakeStorage().store,
    clusterRoles: resource === "clusterroles" ? target.store : other.store,
    roleBindings: fakeStorage().store,
    clusterRoleBindings: fakeStorage().store,
  };
  const guarded = guardRbacStores(raw, authorizer, resolver);
  return {
    store: resource === "roles" ? guarded.roles : guarded.clusterRoles,
    counts: target.counts,
    authzCalls: () => authzCalled,
    resetAuthz: () => (authzCalled = 0),
  };
}

const isForbidden = (error: unknown) => isControlPlaneError(error) && error.code === "Forbidden";

describe.each([
  {
    resource: "clusterroles" as const,
    namespace: undefined,
    role: { metadata: { name: "myrole" }, rules: [{ apiGroups: [""], verbs: ["get"], resources: ["pods"] }] },
  },
  {
    resource: "roles" as const,
    namespace: "myns",
    role: { metadata: { name: "myrole", namespace: "myns" }, rules: [{ apiGroups: [""], verbs: ["get"], resources: ["pods"] }] },
  },
])("TestEscalation ($resource)", ({ resource, namespace, role }) => {
  it.each([
    // superuser doesn't even trigger an authz check, and is allowed
    { name: "superuser", user: superuser, expectAuthz: false, expectAllowed: true },
    // bob triggers an authz check, is disallowed by the authorizer, and has no RBAC permissions, so is not allowed
    { name: "bob", user: bob, expectAuthz: true, expectAllowed: false },
    // steve triggers an authz check, is allowed by the authorizer, and has no RBAC permissions, but is still allowed
    { name: "steve", user: steve, expectAuthz: true, expectAllowed: true },
    // alice triggers an authz check, is denied by the authorizer, but has RBAC permissions in the rule resolver, so is allowed
    { name: "alice", user: alice, expectAuthz: true, expectAllowed: true },
  ])("$name", async ({ user, expectAuthz, expectAllowed }) => {
    const s = setup(resource);
    const created = s.store.create(namespace, role, { user });
    if (expectAllowed) {
      await expect(created).resolves.toBeDefined();
      expect(s.counts.created).toBe(1);
    } else {
      const error = await created.catch((e: unknown) => e);
      expect(isForbidden(error)).toBe(true);
      expect(s.counts.created).toBe(0);
    }
    expect(s.authzCalls() > 0).toBe(expectAuthz);

    s.resetAuthz();
    const updated = s.store.update(namespace, role.metadata.name, role, { user });
    if (expectAllowed) {
      await expect(updated).resolves.toBeDefined();
      expect(s.counts.updated).toBe(1);
    } else {
      const error = await updated.catch((e: unknown) => e);
      expect(isForbidden(error)).toBe(true);
      expect(s.counts.updated).toBe(0);
    }
    expect(s.authzCalls() > 0).toBe(expectAuthz);
  });
});

describe("escalate scoped to a name", () => {
  it("covers updates of that role but never a create, whose request has no name (upstream RoleEscalationAuthorized)", async () => {
    const asked: Array<string | undefined> = [];
    const authorizer: Authorizer = {
      authorize: (_user, attributes) => {
        asked.push(attributes.name);
        return { allowed: attributes.verb === "escalate" && attributes.name === "myrole" };
      },
    };
    const resolver = new RuleResolver({
      getRole: () => Promise.resolve(undefined),
      getClusterRole: () => Promise.resolve(undefined),
      listRoleBindings: () => Promise.resolve([]),
      listClusterRoleBindings: () => Promise.resolve([]),
    });
    const target = fakeStorage();
    const stores: RbacStores = {
      roles: fakeStorage().store,
      clusterRoles: target.store,
      roleBindings: fakeStorage().store,
      clusterRoleBindings: fakeStorage().store,
    };
    const guarded = guardRbacStores(stores, authorizer, resolver).clusterRoles;
    const role = { metadata: { name: "myrole" }, rules: [{ apiGroups: ["*"], resources: ["*"], verbs: ["*"] }] } as KubeObject;
    const created = await guarded.create(undefined, role, { user: bob }).catch((e: unknown) => e);
    expect(isForbidden(created)).toBe(true);
    await expect(guarded.update(undefined, "myrole", role, { user: bob })).resolves.toBeDefined();
    expect(asked).toEqual(["", "myrole"]);
    expect(target.counts).toEqual({ created: 0, updated: 1 });
  });
});

function newPod(): KubeObject {
  return { apiVersion: "v1", kind: "Pod", metadata: { annotations: {}, name: "foo", ownerReferences: [] }, spec: {} };
}

describe("TestIsOnlyMutatingGCFields", () => {
  const withMeta = (changes: Record<string, unknown>, spec?: Record<string, unknown>) => {
    const pod = newPod();
    return { ...pod, metadata: { ...pod.metadata, ...changes }, ...(spec ? { spec } : {}) } as KubeObject;
  };
  it.each([
    { name: "same", obj: newPod(), old: newPod(), expected: true },
    { name: "different managedFields", obj: newPod(), old: withMeta({ managedFields: [{ manager: "manager" }] }), expected: true },
    { name: "only annotations", obj: withMeta({ annotations: { foo: "bar" } }), old: newPod(), expected: false },
    { name: "only other", obj: withMeta({}, { restartPolicy: "Always" }), old: newPod(), expected: false },
    { name: "only ownerRef", obj: withMeta({ ownerReferences: [{ name: "foo" }] }), old: newPod(), expected: true },
    {
      name: "ownerRef and finalizer",
      obj: withMeta({ ownerReferences: [{ name: "foo" }], finalizers: ["final"] }),
      old: newPod(),
      expected: true,
    },
    {
      name: "and annotations",
      obj: withMeta({ ownerReferences: [{ name: "foo" }], annotations: { foo: "bar" } }),
      old: newPod(),
      expected: false,
    },
    {
      name: "and other",
      obj: withMeta({ ownerReferences: [{ name: "foo" }] }, { restartPolicy: "Always" }),
      old: newPod(),
      expected: false,
    },
  ])("$name", ({ obj, old, expected }) => {
    expect(onlyGCFields(obj, old)).toBe(expected);
  });

  it("compares values, not the order of their keys", () => {
    const pod = newPod();
    const reordered = {
      spec: {},
      metadata: { ownerReferences: [], name: "foo", annotations: {} },
      kind: "Pod",
      apiVersion: "v1",
    } as KubeObject;
    expect(onlyGCFields(reordered, pod)).toBe(true);
  });
});

describe("aggregation is full authority", () => {
  const view: ClusterRole = {
    metadata: { name: "view" },
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { "rbac.authorization.k8s.io/aggregate-to-view": "true" } }] },
    rules: [],
  };
  const podReader = { metadata: { name: "pod-reader" }, rules: [{ apiGroups: [""], verbs: ["get"], resources: ["pods"] }] };
  const label = (role: KubeObject) => ({
    ...role,
    metadata: { ...role.metadata, labels: { "rbac.authorization.k8s.io/aggregate-to-view": "true" } },
  });
  const holder: UserInfo = { name: "holder", groups: [] };
  const clusterAdmin = { metadata: { name: "cluster-admin" }, rules: [{ apiGroups: ["*"], resources: ["*"], verbs: ["*"] }] } as KubeObject;

  function setupHolder() {
    const resolver = new RuleResolver({
      getRole: () => Promise.resolve(undefined),
      getClusterRole: (name) => Promise.resolve(name === "pod-reader-role" ? { metadata: { name }, rules: podReader.rules } : undefined),
      listRoleBindings: () => Promise.resolve([]),
      listClusterRoleBindings: () =>
        Promise.resolve([
          {
            metadata: { name: "holder" },
            roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "pod-reader-role" },
            subjects: [{ kind: "User", name: "holder" }],
          },
        ]),
    });
    const roles = fakeStorage([view, podReader, clusterAdmin]);
    const stores: RbacStores = {
      roles: fakeStorage().store,
      clusterRoles: roles.store,
      roleBindings: fakeStorage().store,
      clusterRoleBindings: fakeStorage().store,
    };
    return { store: guardRbacStores(stores, { authorize: () => ({ allowed: false }) }, resolver).clusterRoles, counts: roles.counts };
  }

  it("refuses a label that puts a role under another's aggregationRule, even one whose rules the writer holds", async () => {
    const s = setupHolder();
    await expect(s.store.update(undefined, "pod-reader", podReader, { user: holder })).resolves.toBeDefined();
    const error = await s.store.update(undefined, "pod-reader", label(podReader), { user: holder }).catch((e: unknown) => e);
    expect(isForbidden(error)).toBe(true);
    expect((error as Error).message).toBe(
      'clusterroles.rbac.authorization.k8s.io "pod-reader" is forbidden: must have cluster-admin privileges to change the rules the aggregationRule of ClusterRole "view" gathers',
    );
    const created = await s.store
      .create(undefined, label({ metadata: { name: "new-reader" }, rules: podReader.rules }), { user: holder })
      .catch((e: unknown) => e);
    expect(isForbidden(created)).toBe(true);
    expect(s.counts).toEqual({ created: 0, updated: 1 });
  });

  it("lets only garbage-collector fields change on a role the writer holds none of", async () => {
    const s = setupHolder();
    const ownerReferences = [{ apiVersion: "v1", kind: "ConfigMap", name: "owner", uid: "u1" }];
    await expect(
      s.store.update(
        undefined,
        "cluster-admin",
        { ...clusterAdmin, metadata: { ...clusterAdmin.metadata, ownerReferences, finalizers: ["f"] } },
        { user: holder },
      ),
    ).resolves.toBeDefined();
    const labelled = await s.store.update(undefined, "cluster-admin", label(clusterAdmin), { user: holder }).catch((e: unknown) => e);
    expect(isForbidden(labelled)).toBe(true);
    expect((labelled as Error).message).toContain('user "holder" (groups=[]) is attempting to grant RBAC permissions not currently held');
    expect(s.counts.updated).toBe(1);
  });
});
