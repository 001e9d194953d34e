import { parse as parseYaml } from "yaml";
import { badRequest } from "../api/errors/index.js";

/** How much of a request an audit event records (audit.k8s.io/v1 `Level`). */
export type AuditLevel = "None" | "Metadata" | "Request" | "RequestResponse";
/** When an event is written (audit.k8s.io/v1 `Stage`). */
export type AuditStage = "RequestReceived" | "ResponseStarted" | "ResponseComplete" | "Panic";

const LEVELS: readonly AuditLevel[] = ["None", "Metadata", "Request", "RequestResponse"];
const STAGES: readonly AuditStage[] = ["RequestReceived", "ResponseStarted", "ResponseComplete", "Panic"];

export interface AuditGroupResources {
  group?: string;
  resources?: string[];
  resourceNames?: string[];
}

/** One rule of an audit policy; the first rule that matches a request sets its level. */
export interface AuditPolicyRule {
  level: AuditLevel;
  users?: string[];
  userGroups?: string[];
  verbs?: string[];
  resources?: AuditGroupResources[];
  namespaces?: string[];
  nonResourceURLs?: string[];
  omitStages?: AuditStage[];
  omitManagedFields?: boolean;
}

/** audit.k8s.io/v1 `Policy`, as kube-apiserver's `--audit-policy-file` holds it. */
export interface AuditPolicy {
  apiVersion?: string;
  kind?: string;
  rules: AuditPolicyRule[];
  omitStages?: AuditStage[];
  omitManagedFields?: boolean;
}

/** What a policy decides for one request. */
export interface AuditAttributes {
  user: { name: string; groups: readonly string[] } | undefined;
  verb: string;
  /** Resource requests: group, resource (with `/subresource`), namespace and name. */
  resource?: { group: string; resource: string; subresource: string; namespace: string | undefined; name: string };
  /** Non-resource requests: the path. */
  path?: string;
}

export interface AuditDecision {
  level: AuditLevel;
  omitStages: readonly AuditStage[];
  omitManagedFields: boolean;
}

/**
 * Reads a policy file's contents (YAML or JSON) and checks it as kube-apiserver's
 * `validation.ValidatePolicy` does: a known level for every rule, known stages, and
 * `nonResourceURLs` only in rules without resources or namespaces.
 */
export function parseAuditPolicy(text: string): AuditPolicy {
  const document = parseYaml(text) as unknown;
  const policy = (document ?? {}) as AuditPolicy;
  if (policy.kind !== undefined && policy.kind !== "Policy")
    throw badRequest(`audit policy: kind must be Policy, got ${JSON.stringify(policy.kind)}`);
  if (policy.apiVersion !== undefined && policy.apiVersion !== "audit.k8s.io/v1")
    throw badRequest(`audit policy: apiVersion must be audit.k8s.io/v1, got ${JSON.stringify(policy.apiVersion)}`);
  if (!Array.isArray(policy.rules)) throw badRequest("audit policy: rules: Required value");
  const errors: string[] = [];
  const checkStages = (stages: unknown, field: string) => {
    (Array.isArray(stages) ? stages : []).forEach((stage: unknown, i) => {
      if (!STAGES.includes(stage as AuditStage))
        errors.push(
          `${field}[${i}]: Unsupported value: ${JSON.stringify(stage)}: supported values: ${STAGES.map((s) => `"${s}"`).join(", ")}`,
        );
    });
  };
  checkStages(policy.omitStages, "omitStages");
  policy.rules.forEach((rule, i) => {
    const field = `rules[${i}]`;
    if (!LEVELS.includes(rule?.level))
      errors.push(
        `${field}.level: Unsupported value: ${JSON.stringify(rule?.level ?? "")}: supported values: ${LEVELS.map((l) => `"${l}"`).join(", ")}`,
      );
    checkStages(rule?.omitStages, `${field}.omitStages`);
    if ((rule?.nonResourceURLs?.length ?? 0) > 0 && ((rule.resources?.length ?? 0) > 0 || (rule.namespaces?.length ?? 0) > 0)) {
      errors.push(
        `${field}.nonResourceURLs: Invalid value: ${JSON.stringify(rule.nonResourceURLs)}: rules cannot apply to both regular resources and non-resource URLs`,
      );
    }
  });
  if (errors.length > 0) throw badRequest(`audit policy: ${errors.join(", ")}`);
  return policy;
}

/** Every request at `Metadata`: what kube-apiserver's audit documentation starts from. */
export const METADATA_POLICY: AuditPolicy = { rules: [{ level: "Metadata" }] };

/** The level of a request under `policy` (upstream `policy.Checker.LevelAndStages`): the first matching rule wins, none means `None`. */
export function evaluateAuditPolicy(policy: AuditPolicy, attributes: AuditAttributes): AuditDecision {
  for (const rule of policy.rules) {
    if (!ruleMatches(rule, attributes)) continue;
    return {
      level: rule.level,
      omitStages: [...(policy.omitStages ?? []), ...(rule.omitStages ?? [])],
      omitManagedFields: rule.omitManagedFields ?? policy.omitManagedFields ?? false,
    };
  }
  return { level: "None", omitStages: [], omitManagedFields: false };
}

function ruleMatches(rule: AuditPolicyRule, a: AuditAttributes): boolean {
  if (rule.users?.length && !rule.users.includes(a.user?.name ?? "")) return false;
  if (rule.userGroups?.length && !rule.userGroups.some((group) => a.user?.groups.includes(group))) return false;
  if (rule.verbs?.length && !rule.verbs.includes(a.verb)) return false;
  const resourceRule = (rule.resources?.length ?? 0) > 0 || (rule.namespaces?.length ?? 0) > 0;
  if (a.resource !== undefined) {
    if ((rule.nonResourceURLs?.length ?? 0) > 0) return false;
    if (rule.namespaces?.length && !rule.namespaces.includes(a.resource.namespace ?? "")) return false;
    if (rule.resources?.length && !rule.resources.some((r) => resourceMatches(r, a.resource!))) return false;
    return true;
  }
  if (resourceRule) return false;
  if (rule.nonResourceURLs?.length)
    return rule.nonResourceURLs.some((url) => (url.endsWith("*") ? (a.path ?? "").startsWith(url.slice(0, -1)) : url === a.path));
  return true;
}

/** Upstream `ruleMatchesResource`: `pods` (not its subresources), `pods/log`, `*`, `*\/log`, and `pods/*` (pods and all its subresources). */
function resourceMatches(rule: AuditGroupResources, r: NonNullable<AuditAttributes["resource"]>): boolean {
  if ((rule.group ?? "") !== r.group && rule.group !== "*") return false;
  const full = r.subresource === "" ? r.resource : `${r.resource}/${r.subresource}`;
  if (rule.resources?.length) {
    const hit = rule.resources.some(
      (name) => name === "*" || name === full || name === `${r.resource}/*` || (name === `*/${r.subresource}` && r.subresource !== ""),
    );
    if (!hit) return false;
  }
  if (rule.resourceNames?.length && !rule.resourceNames.includes(r.name)) return false;
  return true;
}
