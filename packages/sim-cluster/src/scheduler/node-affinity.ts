import type { Node } from "../resources/nodes.js";
import type { Pod } from "../resources/pods.js";

/** A `v1.NodeSelectorRequirement` (labels for matchExpressions, fields for matchFields). */
export interface NodeSelectorRequirement {
  key: string;
  operator: string;
  values?: string[];
}

export interface NodeSelectorTerm {
  matchExpressions?: NodeSelectorRequirement[];
  matchFields?: NodeSelectorRequirement[];
}

export interface NodeSelector {
  nodeSelectorTerms?: NodeSelectorTerm[];
}

export interface PreferredSchedulingTerm {
  weight?: number;
  preference?: NodeSelectorTerm;
}

export interface NodeAffinity {
  requiredDuringSchedulingIgnoredDuringExecution?: NodeSelector;
  preferredDuringSchedulingIgnoredDuringExecution?: PreferredSchedulingTerm[];
}

/** The only field a node selector term may match on (upstream's `metadata.name`). */
export const NODE_NAME_FIELD = "metadata.name";

/** The NodeAffinity filter's reason for a node that fails the pod's nodeSelector or required affinity. */
export const ERR_REASON_POD_AFFINITY = "node(s) didn't match Pod's node affinity/selector";

export function nodeAffinityOf(pod: Pod): NodeAffinity | undefined {
  return (pod.spec?.["affinity"] as { nodeAffinity?: NodeAffinity } | undefined)?.nodeAffinity;
}

/**
 * One label requirement against a set of labels or fields, as `labels.Requirement.Matches`: a
 * requirement that `labels.NewRequirement` would refuse (In without values, Gt with a
 * non-integer, an unknown operator) matches nothing.
 */
export function requirementMatches(requirement: NodeSelectorRequirement, have: Readonly<Record<string, string>>): boolean {
  const values = requirement.values ?? [];
  const present = Object.hasOwn(have, requirement.key);
  const value = present ? have[requirement.key]! : undefined;
  switch (requirement.operator) {
    case "In":
      return values.length > 0 && value !== undefined && values.includes(value);
    case "NotIn":
      return values.length > 0 && (value === undefined || !values.includes(value));
    case "Exists":
      return values.length === 0 && present;
    case "DoesNotExist":
      return values.length === 0 && !present;
    case "Gt":
    case "Lt": {
      if (values.length !== 1 || !/^-?\d+$/.test(values[0]!) || value === undefined || !/^-?\d+$/.test(value)) return false;
      const want = BigInt(values[0]!);
      const got = BigInt(value);
      return requirement.operator === "Gt" ? got > want : got < want;
    }
    default:
      return false;
  }
}

/**
 * Whether one node selector term matches the node: every expression over its labels and every
 * field requirement over `metadata.name` (In or NotIn with exactly one value). An empty term
 * matches no node, as upstream's `nodeSelectorTerm.match`.
 */
export function termMatches(term: NodeSelectorTerm, node: Node): boolean {
  const expressions = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (expressions.length === 0 && fields.length === 0) return false;
  const labels = node.metadata?.labels ?? {};
  const nodeFields = { [NODE_NAME_FIELD]: node.metadata?.name ?? "" };
  for (const requirement of fields) {
    if (
      requirement.key !== NODE_NAME_FIELD ||
      (requirement.operator !== "In" && requirement.operator !== "NotIn") ||
      (requirement.values ?? []).length !== 1
    )
      return false;
    if (!requirementMatches(requirement, nodeFields)) return false;
  }
  return expressions.every((requirement) => requirementMatches(requirement, labels));
}

/** A node selector matches when any of its terms does (the terms are ORed). */
export function nodeSelectorMatches(selector: NodeSelector, node: Node): boolean {
  return (selector.nodeSelectorTerms ?? []).some((term) => termMatches(term, node));
}

/**
 * The NodeAffinity filter (upstream `GetRequiredNodeAffinity(pod).Match`): the pod's
 * `nodeSelector` labels all present on the node, and, when it has required node affinity, one
 * of its terms matching.
 */
export function requiredNodeAffinityMatches(pod: Pod, node: Node): boolean {
  const labels = node.metadata?.labels ?? {};
  for (const [key, value] of Object.entries(pod.spec?.nodeSelector ?? {})) if (labels[key] !== value) return false;
  const required = nodeAffinityOf(pod)?.requiredDuringSchedulingIgnoredDuringExecution;
  return required === undefined || nodeSelectorMatches(required, node);
}

/** The NodeAffinity score before normalising: the summed weights of the preferred terms the node matches. */
export function preferredNodeAffinityScore(pod: Pod, node: Node): number {
  let score = 0;
  for (const term of nodeAffinityOf(pod)?.preferredDuringSchedulingIgnoredDuringExecution ?? []) {
    const weight = term.weight ?? 0;
    if (weight !== 0 && term.preference !== undefined && termMatches(term.preference, node)) score += weight;
  }
  return score;
}
