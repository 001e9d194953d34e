import type { UserInfo } from "../access-reviews.js";
import type { RequestInfo, ResourceRequestInfo } from "../request-info.js";
import type { FlowSchema, NonResourcePolicyRule, ResourcePolicyRule, Subject } from "./defaults.js";

const SERVICE_ACCOUNT_PREFIX = "system:serviceaccount:";

function subjectMatches(subject: Subject, user: UserInfo): boolean {
  switch (subject.kind) {
    case "User":
      return subject.user?.name === "*" || subject.user?.name === user.name;
    case "Group":
      return subject.group?.name === "*" || (subject.group !== undefined && user.groups.includes(subject.group.name));
    case "ServiceAccount": {
      const sa = subject.serviceAccount;
      if (sa === undefined || !user.name.startsWith(SERVICE_ACCOUNT_PREFIX)) return false;
      const [namespace, name] = user.name.slice(SERVICE_ACCOUNT_PREFIX.length).split(":");
      return namespace === sa.namespace && (sa.name === "*" || sa.name === name);
    }
  }
}

const matchesAny = (values: readonly string[], value: string): boolean => values.includes("*") || values.includes(value);

function resourceRuleMatches(rule: ResourcePolicyRule, info: ResourceRequestInfo): boolean {
  if (!matchesAny(rule.verbs, info.verb) || !matchesAny(rule.apiGroups, info.group)) return false;
  const resource = info.subresource === "" ? info.resource : `${info.resource}/${info.subresource}`;
  if (!matchesAny(rule.resources, resource)) return false;
  if (info.namespace === undefined || info.namespace === "") return rule.clusterScope === true;
  return matchesAny(rule.namespaces ?? [], info.namespace);
}

function nonResourceRuleMatches(rule: NonResourcePolicyRule, verb: string, path: string): boolean {
  if (!matchesAny(rule.verbs, verb)) return false;
  return rule.nonResourceURLs.some((pattern) => pattern === "*" || pattern === path || (pattern.endsWith("/*") && path.startsWith(pattern.slice(0, -1))));
}

/** Whether a FlowSchema matches a request, as upstream's `matchesFlowSchema`. */
export function schemaMatches(schema: FlowSchema, user: UserInfo, info: RequestInfo, method: string, path: string): boolean {
  return schema.spec.rules.some((rule) => {
    if (!rule.subjects.some((subject) => subjectMatches(subject, user))) return false;
    if (info.isResourceRequest) return (rule.resourceRules ?? []).some((r) => resourceRuleMatches(r, info));
    return (rule.nonResourceRules ?? []).some((r) => nonResourceRuleMatches(r, method.toLowerCase(), path));
  });
}

/** FlowSchemas in matching order: lowest matchingPrecedence first, then by name. */
export function orderSchemas(schemas: readonly FlowSchema[]): FlowSchema[] {
  return [...schemas].sort((a, b) => a.spec.matchingPrecedence - b.spec.matchingPrecedence || (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0));
}

/** The flow distinguisher: the user, the namespace, or nothing, per the schema's distinguisherMethod. */
export function distinguisherOf(schema: FlowSchema, user: UserInfo, info: RequestInfo): string {
  switch (schema.spec.distinguisherMethod?.type) {
    case "ByUser":
      return user.name;
    case "ByNamespace":
      return info.isResourceRequest ? (info.namespace ?? "") : "";
    default:
      return "";
  }
}
