import type { AuthorizationAttributes, AuthorizationDecision, Authorizer, RulesInfo, UserInfo } from "../server/access-reviews.js";
import { ruleAllowsNonResource, ruleAllowsResource } from "./rule-matching.js";
import { aggregateErrors, RuleResolver, type PolicySource, type RuleSource } from "./rule-resolver.js";
import type { PolicyRule } from "./types.js";

/** Resource attributes carry a resource; non-resource ones a path. */
export function isResourceRequest(attributes: AuthorizationAttributes): boolean {
  return attributes.path === undefined;
}

/** Whether `rule` allows the request described by `attributes` (upstream `RuleAllows`). */
export function ruleAllows(attributes: AuthorizationAttributes, rule: PolicyRule): boolean {
  if (!isResourceRequest(attributes)) return ruleAllowsNonResource(rule, attributes.verb, attributes.path ?? "");
  return ruleAllowsResource(rule, {
    verb: attributes.verb,
    group: attributes.group ?? "",
    resource: attributes.resource ?? "",
    subresource: attributes.subresource ?? "",
    name: attributes.name ?? "",
  });
}

function describe(source: RuleSource): string {
  const binding =
    source.bindingKind === "RoleBinding"
      ? `RoleBinding "${source.bindingName}/${source.bindingNamespace}"`
      : `ClusterRoleBinding "${source.bindingName}"`;
  return `${binding} of ${source.roleRef.kind} "${source.roleRef.name}" to ${source.subject}`;
}

/**
 * upstream `RBACAuthorizer` (plugin/pkg/auth/authorizer/rbac): allows a request when a rule bound
 * to the user allows it, and otherwise has no opinion (RBAC never denies), so a later authorizer
 * may still allow. The reason names the granting binding, or the roles that could not be read.
 */
export class RbacAuthorizer implements Authorizer {
  readonly resolver: RuleResolver;

  constructor(source: PolicySource) {
    this.resolver = new RuleResolver(source);
  }

  async authorize(user: UserInfo, attributes: AuthorizationAttributes): Promise<AuthorizationDecision> {
    let allowedBy: RuleSource | undefined;
    const errors: string[] = [];
    await this.resolver.visitRulesFor(user, attributes.namespace ?? "", (source, rule, error) => {
      if (error !== undefined) errors.push(error);
      if (source !== undefined && rule !== undefined && ruleAllows(attributes, rule)) {
        allowedBy = source;
        return false;
      }
      return true;
    });
    if (allowedBy !== undefined) return { allowed: true, reason: `RBAC: allowed by ${describe(allowedBy)}` };
    return errors.length === 0 ? { allowed: false } : { allowed: false, reason: `RBAC: ${aggregateErrors(errors)}` };
  }

  /** upstream `RBACAuthorizer.RulesFor`: the bound rules split into resource and non-resource ones. */
  async rulesFor(user: UserInfo, namespace: string): Promise<RulesInfo> {
    const { rules, errors } = await this.resolver.rulesFor(user, namespace);
    const info: RulesInfo = { resourceRules: [], nonResourceRules: [], incomplete: false };
    for (const rule of rules) {
      if ((rule.resources ?? []).length > 0) {
        const resourceRule: RulesInfo["resourceRules"][number] = {
          verbs: rule.verbs,
          apiGroups: rule.apiGroups ?? [],
          resources: rule.resources ?? [],
        };
        if ((rule.resourceNames ?? []).length > 0) resourceRule.resourceNames = rule.resourceNames ?? [];
        info.resourceRules.push(resourceRule);
      }
      if ((rule.nonResourceURLs ?? []).length > 0)
        info.nonResourceRules.push({ verbs: rule.verbs, nonResourceURLs: rule.nonResourceURLs ?? [] });
    }
    if (errors.length > 0) info.evaluationError = aggregateErrors(errors);
    return info;
  }
}
