import { forbidden, notFound } from "../api/errors/index.js";
import { isControlPlaneError } from "../api/errors/control-plane-error.js";
import type { KubeObject } from "../api/types.js";
import type { RequestOptions, ResourceStore } from "../registry/types.js";
import type { Authorizer, UserInfo } from "../server/access-reviews.js";
import { SYSTEM_MASTERS } from "../server/authorizers.js";
import { jsonEqual } from "../patch/json-value.js";
import { aggregationSelector } from "./aggregation.js";
import { confirmNoEscalation } from "./escalation.js";
import type { PolicySource, RuleResolver } from "./rule-resolver.js";
import { ALL, RBAC_GROUP, type ClusterRole, type ClusterRoleBinding, type PolicyRule, type Role, type RoleBinding } from "./types.js";

function isNotFound(error: unknown): boolean {
  return isControlPlaneError(error) && error.code === "NotFound";
}

async function getOrUndefined<T>(store: ResourceStore, namespace: string | undefined, name: string): Promise<T | undefined> {
  try {
    return (await store.get(namespace, name)) as T;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

export interface RbacStores {
  roles: ResourceStore;
  clusterRoles: ResourceStore;
  roleBindings: ResourceStore;
  clusterRoleBindings: ResourceStore;
}

/** The policy the RBAC authorizer reads, straight from the RBAC stores. */
export function storePolicySource(stores: RbacStores): PolicySource {
  return {
    getRole: (namespace, name) => getOrUndefined<Role>(stores.roles, namespace, name),
    getClusterRole: (name) => getOrUndefined<ClusterRole>(stores.clusterRoles, undefined, name),
    listRoleBindings: async (namespace) => (await stores.roleBindings.list(namespace)).items as RoleBinding[],
    listClusterRoleBindings: async () => (await stores.clusterRoleBindings.list(undefined)).items as ClusterRoleBinding[],
  };
}

/** upstream `EscalationAllowed`: `system:masters` may grant anything. */
function escalationAllowed(user: UserInfo): boolean {
  return user.groups.includes(SYSTEM_MASTERS);
}

const FULL_AUTHORITY: PolicyRule[] = [
  { verbs: [ALL], apiGroups: [ALL], resources: [ALL] },
  { verbs: [ALL], nonResourceURLs: [ALL] },
];

interface Checks {
  /**
   * Throws when `user` may not write `object` (the `policybased` storage's check). `requestName` is
   * the name in the request's URL, as upstream's authorizer attributes carry it: empty on a create.
   */
  check(user: UserInfo, namespace: string, object: KubeObject, old: KubeObject | undefined, requestName: string): Promise<void>;
}

/**
 * Whether an update changes only what the garbage collector writes (upstream
 * `IsOnlyMutatingGCFields`): owner references and finalizers, besides the managed fields and the
 * resourceVersion every write carries. Values are compared, not their serializations.
 */
export function onlyGCFields(object: KubeObject, old: KubeObject): boolean {
  const strip = (o: KubeObject) => {
    const { ownerReferences: _o, finalizers: _f, resourceVersion: _r, managedFields: _m, selfLink: _s, ...metadata } = o.metadata ?? {};
    return { ...o, metadata };
  };
  return jsonEqual(strip(object), strip(old));
}

function hasAggregationRule(role: KubeObject | undefined): boolean {
  return ((role as ClusterRole | undefined)?.aggregationRule?.clusterRoleSelectors ?? []).length > 0;
}

/**
 * The other ClusterRole whose aggregationRule would gather this write's rules anew: one that selects
 * the new object and did not select the old one, or selects both while the rules change. Either way
 * the aggregating role, and everyone bound to it, gains the rules: only full authority may do that.
 */
async function newlyAggregatedBy(
  clusterRoles: ResourceStore,
  role: ClusterRole,
  old: ClusterRole | undefined,
): Promise<string | undefined> {
  const name = role.metadata?.name ?? "";
  const rulesChange = old === undefined || !jsonEqual(role.rules ?? [], old.rules ?? []);
  for (const other of (await clusterRoles.list(undefined)).items as ClusterRole[]) {
    if (other.metadata?.name === name) continue;
    for (const wire of other.aggregationRule?.clusterRoleSelectors ?? []) {
      const selector = aggregationSelector(wire);
      if (!selector.matches(role.metadata?.labels)) continue;
      if (rulesChange || !selector.matches(old.metadata?.labels)) return other.metadata?.name ?? "";
    }
  }
  return undefined;
}

/**
 * Roles and ClusterRoles (upstream `role/policybased`, `clusterrole/policybased`): a user who may
 * not `escalate` the role may only write one whose every rule they already hold, on every create and
 * every update but one that changes only garbage-collector fields (a label alone is a change: it can
 * put the role under an aggregationRule). An aggregationRule, on the old or the new object, gathers
 * anything, so it needs full authority; so does a write that hands its rules to an aggregated
 * ClusterRole (a role newly selected by another's aggregationRule, or a selected role's new rules).
 */
function roleChecks(
  resource: "roles" | "clusterroles",
  authorizer: Authorizer,
  resolver: RuleResolver,
  clusterRoles: ResourceStore,
): Checks {
  const groupResource = { group: RBAC_GROUP, resource };
  const requireFullAuthority = async (user: UserInfo, name: string, why: string) => {
    if ((await confirmNoEscalation(resolver, user, "", FULL_AUTHORITY)) !== undefined) throw forbidden(groupResource, name, why);
  };
  return {
    async check(user, namespace, object, old, requestName) {
      if (escalationAllowed(user)) return;
      const name = object.metadata?.name ?? "";
      // Upstream's RoleEscalationAuthorized asks with the request's name, so a name-scoped `escalate` never covers a create.
      const escalate = await authorizer.authorize(user, {
        verb: "escalate",
        group: RBAC_GROUP,
        resource,
        name: requestName,
        ...(namespace ? { namespace } : {}),
      });
      if (escalate.allowed) return;
      if (old !== undefined && onlyGCFields(object, old)) return;
      const role = object as ClusterRole;
      const problem = await confirmNoEscalation(resolver, user, namespace, role.rules ?? []);
      if (problem !== undefined) throw forbidden(groupResource, name, problem);
      if (resource !== "clusterroles") return;
      if (hasAggregationRule(role) || hasAggregationRule(old)) {
        await requireFullAuthority(user, name, "must have cluster-admin privileges to use the aggregationRule");
        return;
      }
      const aggregator = await newlyAggregatedBy(clusterRoles, role, old);
      if (aggregator !== undefined) {
        await requireFullAuthority(
          user,
          name,
          `must have cluster-admin privileges to change the rules the aggregationRule of ClusterRole ${JSON.stringify(aggregator)} gathers`,
        );
      }
    },
  };
}

/**
 * RoleBindings and ClusterRoleBindings (upstream `rolebinding/policybased`): the writer must be
 * allowed to `bind` the referenced role, or hold every permission it grants.
 */
function bindingChecks(resource: "rolebindings" | "clusterrolebindings", authorizer: Authorizer, resolver: RuleResolver): Checks {
  return {
    async check(user, namespace, object, old) {
      if (escalationAllowed(user)) return;
      if (old !== undefined && onlyGCFields(object, old)) return;
      const binding = object as RoleBinding;
      const roleRef = binding.roleRef;
      const name = object.metadata?.name ?? "";
      const roleResource = roleRef.kind === "Role" ? "roles" : "clusterroles";
      const bind = await authorizer.authorize(user, {
        verb: "bind",
        group: RBAC_GROUP,
        resource: roleResource,
        name: roleRef.name,
        ...(namespace ? { namespace } : {}),
      });
      if (bind.allowed) return;
      const groupResource = { group: RBAC_GROUP, resource };
      const { rules, error } = await resolver.rulesOf(roleRef, namespace);
      // A missing role is upstream's NotFound from GetRoleReferenceRules, worded as the role's own store words it.
      if (error !== undefined && (roleRef.kind === "Role" || roleRef.kind === "ClusterRole"))
        throw notFound({ group: RBAC_GROUP, resource: roleResource }, roleRef.name);
      if (error !== undefined) throw forbidden(groupResource, name, error);
      const problem = await confirmNoEscalation(resolver, user, namespace, rules);
      if (problem !== undefined) throw forbidden(groupResource, name, problem);
    },
  };
}

/**
 * Wraps a store so writes by a user (requests carry `options.user`; the server's own writes do
 * not) pass the check first. The check runs on the object as sent, before defaulting, like
 * upstream's policy-based storage which wraps the generic store.
 */
function guarded(store: ResourceStore, checks: Checks): ResourceStore {
  const namespaceOf = (namespace: string | undefined) => namespace ?? "";
  return {
    get definition() {
      return store.definition;
    },
    get: (namespace, name) => store.get(namespace, name),
    list: (namespace, request) => store.list(namespace, request),
    ...(store.listPages ? { listPages: store.listPages.bind(store) } : {}),
    watch: (...args) => store.watch(...args),
    async create(namespace, object, options?: RequestOptions) {
      if (options?.user !== undefined) await checks.check(options.user, namespaceOf(namespace), object, undefined, "");
      return store.create(namespace, object, options);
    },
    async update(namespace, name, object, options?: RequestOptions) {
      const user = options?.user;
      if (user !== undefined) {
        // PUT may create (RBAC types allow create on update): then there is no old object.
        const current = await getOrUndefined<KubeObject>(store, namespace, name);
        await checks.check(user, namespaceOf(namespace), object, current, name);
      }
      return store.update(namespace, name, object, options);
    },
    async guaranteedUpdate(namespace, name, mutate, options?: RequestOptions) {
      const user = options?.user;
      if (user === undefined) return store.guaranteedUpdate(namespace, name, mutate, options);
      return store.guaranteedUpdate(
        namespace,
        name,
        async (current) => {
          const next = await mutate(current);
          await checks.check(user, namespaceOf(namespace), next, current, name);
          return next;
        },
        options,
      );
    },
    delete: (namespace, name, deleteOptions, options) => store.delete(namespace, name, deleteOptions, options),
    ...(store.deleteCollection ? { deleteCollection: store.deleteCollection.bind(store) } : {}),
  };
}

/** The four RBAC stores with upstream's escalation and bind checks on every write by a user. */
export function guardRbacStores(stores: RbacStores, authorizer: Authorizer, resolver: RuleResolver): RbacStores {
  return {
    roles: guarded(stores.roles, roleChecks("roles", authorizer, resolver, stores.clusterRoles)),
    clusterRoles: guarded(stores.clusterRoles, roleChecks("clusterroles", authorizer, resolver, stores.clusterRoles)),
    roleBindings: guarded(stores.roleBindings, bindingChecks("rolebindings", authorizer, resolver)),
    clusterRoleBindings: guarded(stores.clusterRoleBindings, bindingChecks("clusterrolebindings", authorizer, resolver)),
  };
}
