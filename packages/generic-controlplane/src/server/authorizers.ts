import type { AuthorizationAttributes, AuthorizationDecision, Authorizer, RulesInfo, UserInfo } from "./access-reviews.js";

/** The group whose members may do anything (upstream `user.SystemPrivilegedGroup`). */
export const SYSTEM_MASTERS = "system:masters";

/**
 * upstream's privileged group authorizer, put before every configured mode: members of
 * `system:masters` are allowed whatever the other authorizers say, so a broken policy can be fixed.
 */
export const privilegedGroupAuthorizer: Authorizer = {
  authorize: (user) => (user.groups.includes(SYSTEM_MASTERS) ? { allowed: true } : { allowed: false }),
  rulesFor: (user) =>
    user.groups.includes(SYSTEM_MASTERS)
      ? {
          resourceRules: [{ verbs: ["*"], apiGroups: ["*"], resources: ["*"] }],
          nonResourceRules: [{ verbs: ["*"], nonResourceURLs: ["*"] }],
          incomplete: false,
        }
      : { resourceRules: [], nonResourceRules: [], incomplete: false },
};

/** kube-apiserver's `AlwaysDeny` mode: every request denied. */
export const alwaysDeny: Authorizer = {
  authorize: () => ({ allowed: false, denied: true }),
  rulesFor: () => ({ resourceRules: [], nonResourceRules: [], incomplete: false }),
};

/**
 * upstream `union.New`: asks each authorizer in turn; the first that allows or denies decides. When
 * none has an opinion the request is not allowed, with their reasons joined by newlines.
 */
export function unionAuthorizer(authorizers: readonly Authorizer[]): Authorizer {
  return {
    async authorize(user: UserInfo, attributes: AuthorizationAttributes): Promise<AuthorizationDecision> {
      const reasons: string[] = [];
      for (const authorizer of authorizers) {
        const decision = await authorizer.authorize(user, attributes);
        if (decision.allowed || decision.denied === true) return decision;
        if (decision.reason !== undefined && decision.reason !== "") reasons.push(decision.reason);
      }
      return reasons.length === 0 ? { allowed: false } : { allowed: false, reason: reasons.join("\n") };
    },
    /** upstream's union rule resolver: every authorizer's rules; incomplete when one cannot list its own. */
    async rulesFor(user: UserInfo, namespace: string): Promise<RulesInfo> {
      const out: RulesInfo = { resourceRules: [], nonResourceRules: [], incomplete: false };
      const errors: string[] = [];
      for (const authorizer of authorizers) {
        if (authorizer.rulesFor === undefined) {
          out.incomplete = true;
          continue;
        }
        const rules = await authorizer.rulesFor(user, namespace);
        out.resourceRules.push(...rules.resourceRules);
        out.nonResourceRules.push(...rules.nonResourceRules);
        if (rules.incomplete) out.incomplete = true;
        if (rules.evaluationError) errors.push(rules.evaluationError);
      }
      if (errors.length > 0) out.evaluationError = errors.length === 1 ? (errors[0] as string) : `[${errors.join(", ")}]`;
      return out;
    },
  };
}

/** kube-apiserver's `--authorization-mode` values this server knows. */
export type AuthorizationMode = "RBAC" | "AlwaysAllow" | "AlwaysDeny" | "Webhook";

export interface AuthorizerChainParts {
  rbac?: Authorizer;
  /** The `Webhook` mode: a callback deciding like a SubjectAccessReview webhook (allow, deny, or no opinion). */
  webhook?: Authorizer;
  alwaysAllow: Authorizer;
}

/**
 * The authorizer of `--authorization-mode=<modes>`: `system:masters` first (always allowed), then
 * each mode in order, the first decisive answer winning.
 */
export function authorizerChain(modes: readonly AuthorizationMode[], parts: AuthorizerChainParts): Authorizer {
  const chain: Authorizer[] = [privilegedGroupAuthorizer];
  for (const mode of modes) {
    switch (mode) {
      case "RBAC":
        if (parts.rbac === undefined) throw new TypeError("authorization mode RBAC needs the RBAC resources to be served");
        chain.push(parts.rbac);
        break;
      case "Webhook":
        if (parts.webhook === undefined) throw new TypeError("authorization mode Webhook needs `authorization.webhook`");
        chain.push(parts.webhook);
        break;
      case "AlwaysAllow":
        chain.push(parts.alwaysAllow);
        break;
      case "AlwaysDeny":
        chain.push(alwaysDeny);
        break;
      default:
        throw new TypeError(`unknown authorization mode ${JSON.stringify(mode)}; known: RBAC, AlwaysAllow, AlwaysDeny, Webhook`);
    }
  }
  return unionAuthorizer(chain);
}
