import type { KubeObject } from "../../api/types.js";
import type { ResourceDefinition } from "../../registry/resource-definition.js";
import { parseLabelSelector, type LabelSelector } from "../../selectors/labels.js";
import type { AdmissionAttributes } from "../types.js";
import { GROUP, type LabelSelectorObject, type MatchResources, type NamedRuleWithOperations } from "./types.js";

/**
 * Which requests a policy and binding apply to (apiserver's `admission/plugin/policy/matching`
 * and the webhook `predicates`): resource rules by operation, group, version, resource (and
 * subresource), scope and name; exclusions; and the namespace and object label selectors.
 */

/** Writes to admission configuration itself are never subject to policies, so a bad policy can always be fixed. */
export function isExemptAdmissionConfiguration(attributes: AdmissionAttributes): boolean {
  return attributes.definition.group === GROUP;
}

function matchesAny(values: readonly string[] | undefined, value: string): boolean {
  return (values ?? []).some((v) => v === "*" || v === value);
}

function resourceMatches(patterns: readonly string[] | undefined, resource: string, subresource: string): boolean {
  const requested = subresource === "" ? resource : `${resource}/${subresource}`;
  return (patterns ?? []).some((pattern) => {
    if (pattern === "*/*" || pattern === requested) return true;
    const [patternResource = "", patternSub] = pattern.split("/", 2);
    if (patternSub === undefined) return pattern === "*" && subresource === "";
    return (patternResource === "*" && patternSub === subresource) || (patternResource === resource && patternSub === "*" && subresource !== "");
  });
}

function scopeMatches(scope: string | undefined, definition: ResourceDefinition): boolean {
  if (scope === undefined || scope === "*") return true;
  return scope === definition.scope;
}

export function ruleMatches(rule: NamedRuleWithOperations, attributes: AdmissionAttributes): boolean {
  const { definition } = attributes;
  if (!matchesAny(rule.operations, attributes.operation)) return false;
  if (!matchesAny(rule.apiGroups, definition.group)) return false;
  if (!matchesAny(rule.apiVersions, definition.version)) return false;
  if (!resourceMatches(rule.resources, definition.plural, attributes.subresource)) return false;
  if (!scopeMatches(rule.scope, definition)) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || names.includes(attributes.name);
}

/** metav1.LabelSelector in the string syntax the label selector parser reads. */
export function labelSelectorOf(selector: LabelSelectorObject | undefined): LabelSelector {
  if (selector === undefined) return parseLabelSelector(undefined);
  const terms: string[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) terms.push(`${key}=${value}`);
  for (const expression of selector.matchExpressions ?? []) {
    const values = (expression.values ?? []).join(",");
    switch (expression.operator) {
      case "In":
        terms.push(`${expression.key} in (${values})`);
        break;
      case "NotIn":
        terms.push(`${expression.key} notin (${values})`);
        break;
      case "Exists":
        terms.push(expression.key);
        break;
      case "DoesNotExist":
        terms.push(`!${expression.key}`);
        break;
      default:
        throw new Error(`${JSON.stringify(expression.operator)} is not a valid label selector operator`);
    }
  }
  return parseLabelSelector(terms.join(","));
}

function labelsOf(object: KubeObject | undefined): Record<string, string> | undefined {
  return object?.metadata?.labels ?? undefined;
}

export interface MatchContext {
  /** The request's namespace object, for namespaceSelector; undefined when there is none. */
  namespace: () => Promise<KubeObject | undefined>;
}

/** Whether the request falls under `match` (a policy's matchConstraints or a binding's matchResources). */
export async function matchesResources(match: MatchResources | undefined, attributes: AdmissionAttributes, context: MatchContext): Promise<boolean> {
  if (match === undefined) return true;
  if (match.resourceRules !== undefined && !match.resourceRules.some((rule) => ruleMatches(rule, attributes))) return false;
  if ((match.excludeResourceRules ?? []).some((rule) => ruleMatches(rule, attributes))) return false;
  const objectSelector = labelSelectorOf(match.objectSelector);
  if (!objectSelector.empty && !objectSelector.matches(labelsOf(attributes.object)) && !objectSelector.matches(labelsOf(attributes.oldObject))) {
    return false;
  }
  const namespaceSelector = labelSelectorOf(match.namespaceSelector);
  if (namespaceSelector.empty) return true;
  const isNamespace = attributes.definition.group === "" && attributes.definition.plural === "namespaces";
  if (isNamespace) return namespaceSelector.matches(labelsOf(attributes.object ?? attributes.oldObject));
  // Cluster-scoped resources are not in a namespace: the namespace selector does not restrict them.
  if (attributes.definition.scope === "Cluster" || attributes.namespace === undefined) return true;
  return namespaceSelector.matches(labelsOf(await context.namespace()));
}
