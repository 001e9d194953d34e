import type { ResourceDefinition } from "../registry/rest/resource-definition.js";
import type { ResourceStore } from "../registry/types.js";
import {
  ClusterRoleAggregationController,
  ensureBootstrapPolicy,
  guardRbacStores,
  RbacAuthorizer,
  type RbacStores,
} from "../rbac/index.js";
import { PolicyCache } from "../rbac/policy-cache.js";
import { rbacResources } from "../rbac/resources.js";
import { accessReviewResources, alwaysAllow, type Authorizer, type UserInfo } from "../server/access-reviews.js";
import { authorizerChain, SYSTEM_MASTERS, type AuthorizationMode } from "../server/authorizers.js";
import type { Authenticate } from "../server/filters/authentication.js";
import type { ServedResource } from "../server/served-resource.js";
import { groupResource } from "./served-resources.js";
import { secretEquals } from "../authn/secret-equal.js";

export interface AuthorizationOptions {
  /** In order, like `--authorization-mode`; the first decisive answer wins. `system:masters` is always allowed. */
  modes: AuthorizationMode[];
  /** The `Webhook` mode's decision (allow, deny with `denied: true`, or no opinion). */
  webhook?: Authorizer;
}

/**
 * The RBAC types are served whenever authorization is configured, in every mode, as kube-apiserver
 * serves them (with AlwaysAllow too, so RBAC policy can be written before it is enforced).
 */
export function withRbacDefinitions(
  definitions: ResourceDefinition[],
  authorization: AuthorizationOptions | undefined,
): ResourceDefinition[] {
  if (authorization === undefined) return definitions;
  const missing = rbacResources.filter((r) => !definitions.some((d) => d.group === r.group && d.plural === r.plural));
  return [...definitions, ...missing];
}

export interface Authorization {
  /** Enforced on every request; undefined: every request allowed (AlwaysAllow). */
  enforced: Authorizer | undefined;
  /** Answers the access reviews. */
  reviews: Authorizer;
  /** Runs the post-start hook and starts the aggregation controller. */
  start(onError: (error: unknown) => void): Promise<void>;
  stop(): void;
  /** The `rbac/bootstrap-roles` hook has finished (true when RBAC is off). */
  readonly bootstrapped: boolean;
}

/**
 * The authorization of a control plane: the authorizer chain, the RBAC stores guarded by the
 * escalation checks (replacing the plain ones in `served` and `stores`), and the access reviews
 * added to `served`.
 */
export function setUpAuthorization(
  options: { authorization?: AuthorizationOptions; authorizer?: Authorizer },
  served: ServedResource[],
  stores: Map<string, ResourceStore>,
): Authorization {
  const plain = rbacStores(stores);
  const cache = plain === undefined ? undefined : new PolicyCache(plain);
  // Every write goes through the cache's stores, so the authorizer never answers from stale policy.
  const raw = cache?.stores;
  const rbac = cache === undefined ? undefined : new RbacAuthorizer(cache);
  let enforced: Authorizer | undefined;
  if (options.authorization !== undefined) {
    enforced = authorizerChain(options.authorization.modes, {
      ...(rbac ? { rbac } : {}),
      ...(options.authorization.webhook ? { webhook: options.authorization.webhook } : {}),
      alwaysAllow,
    });
  } else if (options.authorizer !== undefined) {
    enforced = authorizerChain(["Webhook"], { webhook: options.authorizer, alwaysAllow });
  }
  const reviews = enforced ?? alwaysAllow;
  served.push(...accessReviewResources(reviews));

  // Wherever the RBAC API is served with authorization configured, its bootstrap policy and the
  // aggregation controller run, as upstream's post-start hook and controller do in every mode.
  const rbacOn = raw !== undefined && rbac !== undefined && options.authorization !== undefined;
  if (raw !== undefined && rbac !== undefined) {
    replaceStores(served, stores, enforced === undefined ? raw : guardRbacStores(raw, enforced, rbac.resolver));
  }
  let aggregation: ClusterRoleAggregationController | undefined;
  let bootstrapped = !rbacOn;
  return {
    enforced,
    reviews,
    get bootstrapped() {
      return bootstrapped;
    },
    async start(onError) {
      if (!rbacOn || raw === undefined || cache === undefined) return;
      await cache.start();
      await ensureBootstrapPolicy(raw.clusterRoles, raw.clusterRoleBindings);
      aggregation = new ClusterRoleAggregationController(raw.clusterRoles, onError);
      await aggregation.start();
      bootstrapped = true;
    },
    stop() {
      aggregation?.stop();
      cache?.stop();
    },
  };
}

const KEYS: Record<keyof RbacStores, string> = {
  roles: "roles.rbac.authorization.k8s.io",
  clusterRoles: "clusterroles.rbac.authorization.k8s.io",
  roleBindings: "rolebindings.rbac.authorization.k8s.io",
  clusterRoleBindings: "clusterrolebindings.rbac.authorization.k8s.io",
};

function rbacStores(stores: Map<string, ResourceStore>): RbacStores | undefined {
  const roles = stores.get(KEYS.roles);
  const clusterRoles = stores.get(KEYS.clusterRoles);
  const roleBindings = stores.get(KEYS.roleBindings);
  const clusterRoleBindings = stores.get(KEYS.clusterRoleBindings);
  if (!roles || !clusterRoles || !roleBindings || !clusterRoleBindings) return undefined;
  return { roles, clusterRoles, roleBindings, clusterRoleBindings };
}

function replaceStores(served: ServedResource[], stores: Map<string, ResourceStore>, guarded: RbacStores): void {
  for (const key of Object.keys(KEYS) as Array<keyof RbacStores>) {
    stores.set(KEYS[key], guarded[key]);
    const index = served.findIndex((s) => groupResource(s.definition) === KEYS[key]);
    const entry = served[index];
    if (entry !== undefined) served[index] = { ...entry, store: guarded[key] };
  }
}

/** The identity of the server's own loopback clients (in-process controllers), as upstream's loopback token. */
export const LOOPBACK_USER: UserInfo = { name: "system:apiserver", groups: [SYSTEM_MASTERS, "system:authenticated"] };

/**
 * An authenticator that knows the server's loopback `token` before asking `authenticate`: for a
 * consumer's own `authenticate` callback (or none) while authorization is enforced, so the
 * in-process controllers keep their identity. The authentication chain knows the token itself.
 */
export function withLoopbackToken(token: string, authenticate: Authenticate | undefined): Authenticate {
  const expected = `Bearer ${token}`;
  return (ctx) =>
    secretEquals(ctx.req.headers.authorization ?? "", expected)
      ? { ...LOOPBACK_USER, groups: [...LOOPBACK_USER.groups] }
      : authenticate?.(ctx);
}
