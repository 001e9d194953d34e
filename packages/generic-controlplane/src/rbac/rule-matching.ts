import type { UserInfo } from "../server/access-reviews.js";
import { ALL, GROUP_KIND, SERVICE_ACCOUNT_KIND, USER_KIND, type PolicyRule, type Subject } from "./types.js";

/**
 * The matching rules of upstream's `rbac/v1` helpers (`VerbMatches`, `APIGroupMatches`,
 * `ResourceMatches`, `ResourceNameMatches`, `NonResourceURLMatches`) and of the authorizer's
 * `appliesTo`: one implementation used by the authorizer, the rules review and the escalation check.
 */

export function verbMatches(rule: PolicyRule, verb: string): boolean {
  return rule.verbs.some((v) => v === ALL || v === verb);
}

export function apiGroupMatches(rule: PolicyRule, group: string): boolean {
  return (rule.apiGroups ?? []).some((g) => g === ALL || g === group);
}

/**
 * `resource` matches `resource`, `*`, and with a subresource `resource/sub`, `resource/*` or
 * `* /sub` (every resource's subresource of that name).
 */
export function resourceMatches(rule: PolicyRule, resource: string, subresource: string): boolean {
  const combined = subresource === "" ? resource : `${resource}/${subresource}`;
  for (const r of rule.resources ?? []) {
    if (r === ALL || r === combined) return true;
    if (subresource === "") continue;
    if (r === `${resource}/*`) return true;
    if (r === `*/${subresource}`) return true;
  }
  return false;
}

/** An empty `resourceNames` matches every name; otherwise the request must name one of them. */
export function resourceNameMatches(rule: PolicyRule, name: string): boolean {
  const names = rule.resourceNames ?? [];
  if (names.length === 0) return true;
  return names.includes(name);
}

/** A URL matches exactly, `*` matches all, and `/prefix/*` matches everything under the prefix. */
export function nonResourceURLMatches(rule: PolicyRule, path: string): boolean {
  for (const url of rule.nonResourceURLs ?? []) {
    if (url === ALL || url === path) return true;
    if (url.endsWith("*") && path.startsWith(url.slice(0, -1))) return true;
  }
  return false;
}

export interface ResourceRequest {
  verb: string;
  group: string;
  resource: string;
  subresource: string;
  name: string;
}

export function ruleAllowsResource(rule: PolicyRule, request: ResourceRequest): boolean {
  return (
    verbMatches(rule, request.verb) &&
    apiGroupMatches(rule, request.group) &&
    resourceMatches(rule, request.resource, request.subresource) &&
    resourceNameMatches(rule, request.name)
  );
}

export function ruleAllowsNonResource(rule: PolicyRule, verb: string, path: string): boolean {
  return verbMatches(rule, verb) && nonResourceURLMatches(rule, path);
}

/** `system:serviceaccount:<namespace>:<name>`. */
export function serviceAccountUsername(namespace: string, name: string): string {
  return `system:serviceaccount:${namespace}:${name}`;
}

/**
 * Whether a binding's subject names `user`. A ServiceAccount subject without a namespace (allowed
 * in RoleBindings) means the binding's own namespace.
 */
export function subjectAppliesTo(subject: Subject, user: UserInfo, bindingNamespace: string): boolean {
  switch (subject.kind) {
    case USER_KIND:
      return user.name === subject.name;
    case GROUP_KIND:
      return user.groups.includes(subject.name);
    case SERVICE_ACCOUNT_KIND: {
      const namespace = subject.namespace !== undefined && subject.namespace !== "" ? subject.namespace : bindingNamespace;
      if (namespace === "") return false;
      return user.name === serviceAccountUsername(namespace, subject.name);
    }
    default:
      return false;
  }
}
