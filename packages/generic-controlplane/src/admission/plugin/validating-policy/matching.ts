import type { KubeObject } from "../../../api/types.js";
import type { ResourceDefinition } from "../../../registry/rest/resource-definition.js";
import { labelSelectorAsSelector } from "../../../selectors/index.js";
import type { AdmissionAttributes } from "../../types.js";
import type { EquivalentResources } from "../webhooks/equivalents.js";
import { ruleMatches } from "../webhooks/rules.js";
import type { MatchResources, NamedRuleWithOperations } from "./types.js";

/**
 * Which requests a policy and binding apply to (apiserver's `admission/plugin/policy/matching`):
 * the webhook rule matcher plus `resourceNames`, exclusions, matchPolicy Equivalent, and the
 * namespace and object label selectors.
 */

function namedRuleMatches(rule: NamedRuleWithOperations, attributes: AdmissionAttributes, resource: ResourceDefinition): boolean {
  if (!ruleMatches(rule, attributes, resource)) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(attributes.name);
}

function labelsOf(object: KubeObject | undefined): Record<string, string> | undefined {
  return object?.metadata?.labels ?? undefined;
}

export interface MatchContext {
  /** The request's namespace object, for namespaceSelector; undefined when there is none. */
  namespace: () => Promise<KubeObject | undefined>;
  equivalents: EquivalentResources;
}

function rulesMatch(match: MatchResources, attributes: AdmissionAttributes, context: MatchContext): boolean {
  const matchesWith = (resource: ResourceDefinition) =>
    (match.resourceRules ?? []).some((rule) => namedRuleMatches(rule, attributes, resource)) &&
    !(match.excludeResourceRules ?? []).some((rule) => namedRuleMatches(rule, attributes, resource));
  if (matchesWith(attributes.definition)) return true;
  if ((match.matchPolicy ?? "Equivalent") !== "Equivalent") return false;
  return context.equivalents.equivalentsOf(attributes.definition).some(matchesWith);
}

async function namespaceMatches(match: MatchResources, attributes: AdmissionAttributes, context: MatchContext): Promise<boolean> {
  const selector = labelSelectorAsSelector(match.namespaceSelector);
  if (selector.empty) return true;
  const isNamespace = attributes.definition.group === "" && attributes.definition.plural === "namespaces";
  // A namespace is judged by its own (new) labels.
  if (isNamespace) return selector.matches(labelsOf(attributes.object ?? attributes.oldObject));
  // Cluster-scoped resources are in no namespace: the namespace selector does not restrict them.
  if (attributes.namespace === undefined || attributes.namespace === "") return true;
  return selector.matches(labelsOf(await context.namespace()));
}

function objectMatches(match: MatchResources, attributes: AdmissionAttributes): boolean {
  const selector = labelSelectorAsSelector(match.objectSelector);
  if (selector.empty) return true;
  const matches = (object: KubeObject | undefined) => object !== undefined && selector.matches(labelsOf(object));
  return matches(attributes.object) || matches(attributes.oldObject);
}

/** Whether the request falls under `match` (a policy's matchConstraints or a binding's matchResources). */
export async function matchesResources(
  match: MatchResources | undefined,
  attributes: AdmissionAttributes,
  context: MatchContext,
): Promise<boolean> {
  if (match === undefined) return true;
  // A binding without resourceRules covers everything its policy does, less its exclusions.
  if ((match.resourceRules ?? []).length > 0) {
    if (!rulesMatch(match, attributes, context)) return false;
  } else if ((match.excludeResourceRules ?? []).some((rule) => namedRuleMatches(rule, attributes, attributes.definition))) {
    return false;
  }
  if (!objectMatches(match, attributes)) return false;
  return namespaceMatches(match, attributes, context);
}
