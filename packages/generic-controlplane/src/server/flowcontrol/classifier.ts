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

const NONE: readonly never[] = [];

const matchesAny = (values: readonly string[], value: string): boolean => values.includes("*") || values.includes(value);

function resourceRuleMatches(rule: ResourcePolicyRule, info: ResourceRequestInfo): boolean {
  if (!matchesAny(rule.verbs, info.verb) || !matchesAny(rule.apiGroups, info.group)) return false;
  const resource = info.subresource === "" ? info.resource : `${info.resource}/${info.subresource}`;
  if (!matchesAny(rule.resources, resource)) return false;
  if (info.namespace === undefined || info.namespace === "") return rule.clusterScope === true;
  return rule.namespaces !== undefined && matchesAny(rule.namespaces, info.namespace);
}

function nonResourceRuleMatches(rule: NonResourcePolicyRule, verb: string, path: string): boolean {
  if (!matchesAny(rule.verbs, verb)) return false;
  for (const pattern of rule.nonResourceURLs) {
    if (pattern === "*" || pattern === path || (pattern.endsWith("/*") && path.startsWith(pattern.slice(0, -1)))) return true;
  }
  return false;
}

/**
 * Whether a FlowSchema matches a request, as upstream's `matchesFlowSchema`. Every request is
 * matched against the schemas in order, so this walks them with plain loops and allocates nothing.
 */
export function schemaMatches(schema: FlowSchema, user: UserInfo, info: RequestInfo, method: string, path: string): boolean {
  for (const rule of schema.spec.rules) {
    let subjectMatched = false;
    for (const subject of rule.subjects) {
      if (subjectMatches(subject, user)) {
        subjectMatched = true;
        break;
      }
    }
    if (!subjectMatched) continue;
    if (info.isResourceRequest) {
      for (const resourceRule of rule.resourceRules ?? NONE) if (resourceRuleMatches(resourceRule, info)) return true;
    } else {
      const verb = method.toLowerCase();
      for (const nonResourceRule of rule.nonResourceRules ?? NONE) if (nonResourceRuleMatches(nonResourceRule, verb, path)) return true;
    }
  }
  return false;
}

/** FlowSchemas in matching order: lowest matchingPrecedence first, then by name. */
export function orderSchemas(schemas: readonly FlowSchema[]): FlowSchema[] {
  return [...schemas].sort(
    (a, b) =>
      a.spec.matchingPrecedence - b.spec.matchingPrecedence ||
      (a.metadata.name < b.metadata.name ? -1 : a.metadata.name > b.metadata.name ? 1 : 0),
  );
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
