import type { ResourceDefinition } from "../../../registry/rest/resource-definition.js";
import type { AdmissionAttributes } from "../../types.js";
import type { RuleWithOperations } from "./types.js";

const exactOrWildcard = (items: readonly string[] | undefined, wanted: string) =>
  (items ?? []).some((item) => item === "*" || item === wanted);

/** `configmaps/status` → [`configmaps`, `status`]; `configmaps` → [`configmaps`, ``]. */
function splitResource(resource: string): [string, string] {
  const slash = resource.indexOf("/");
  return slash < 0 ? [resource, ""] : [resource.slice(0, slash), resource.slice(slash + 1)];
}

const isNamespacesResource = (d: ResourceDefinition) => d.group === "" && d.plural === "namespaces";

/**
 * Upstream `rules.Matcher`: whether `rule` covers a request for `resource` (the request's own
 * group/version/resource, or an equivalent one's), with its operation, subresource and scope.
 * Namespace objects count as cluster-scoped.
 */
export function ruleMatches(
  rule: RuleWithOperations,
  attributes: AdmissionAttributes,
  resource: ResourceDefinition = attributes.definition,
): boolean {
  const operations = rule.operations ?? [];
  if (!operations.some((op) => op === "*" || op === attributes.operation)) return false;
  if (!exactOrWildcard(rule.apiGroups, resource.group)) return false;
  if (!exactOrWildcard(rule.apiVersions, resource.version)) return false;
  const resourceMatch = (rule.resources ?? []).some((entry) => {
    const [name, sub] = splitResource(entry);
    return (name === "*" || name === resource.plural) && (sub === "*" || sub === attributes.subresource);
  });
  if (!resourceMatch) return false;
  const namespaced = attributes.namespace !== undefined && attributes.namespace !== "";
  switch (rule.scope ?? "*") {
    case "Namespaced":
      return !isNamespacesResource(resource) && namespaced;
    case "Cluster":
      return isNamespacesResource(resource) || !namespaced;
    default:
      return true;
  }
}

const ADMISSION_CONFIGURATION_RESOURCES = new Set([
  "validatingwebhookconfigurations",
  "mutatingwebhookconfigurations",
  "validatingadmissionpolicies",
  "validatingadmissionpolicybindings",
  "mutatingadmissionpolicies",
  "mutatingadmissionpolicybindings",
]);

/**
 * Upstream `IsExemptAdmissionConfigurationResource`: webhooks are never called for admission
 * configuration objects, so no webhook can lock the cluster out of fixing its own configuration.
 */
export function isExemptAdmissionConfigurationResource(attributes: AdmissionAttributes): boolean {
  const { group, plural } = attributes.definition;
  return group === "admissionregistration.k8s.io" && ADMISSION_CONFIGURATION_RESOURCES.has(plural);
}
