import type { UserInfo } from "../server/access-reviews.js";
import { subjectAppliesTo } from "./rule-matching.js";
import type { ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, RoleRef } from "./types.js";

/** Where the authorizer reads policy from: the RBAC stores, or fixed objects in tests. */
export interface PolicySource {
  getRole(namespace: string, name: string): Promise<Role | undefined>;
  getClusterRole(name: string): Promise<ClusterRole | undefined>;
  listRoleBindings(namespace: string): Promise<RoleBinding[]>;
  listClusterRoleBindings(): Promise<ClusterRoleBinding[]>;
}

/** Which binding granted a rule, for the decision's reason (upstream `authorizingVisitor`'s description). */
export interface RuleSource {
  bindingKind: "ClusterRoleBinding" | "RoleBinding";
  bindingName: string;
  bindingNamespace: string;
  roleRef: RoleRef;
  subject: string;
}

/** Called for each rule, and for each binding whose role cannot be read; returning false stops the walk. */
export type RuleVisitor = (source: RuleSource | undefined, rule: PolicyRule | undefined, error: string | undefined) => boolean;

/**
 * upstream `DefaultRuleResolver` (rbac/validation/rule.go): the rules of every ClusterRoleBinding
 * naming the user, then, for a namespace, of every RoleBinding there. A binding to a role that does
 * not exist contributes an error, never a rule.
 */
export class RuleResolver {
  constructor(private readonly source: PolicySource) {}

  async visitRulesFor(user: UserInfo, namespace: string, visit: RuleVisitor): Promise<void> {
    for (const binding of await this.source.listClusterRoleBindings()) {
      const subject = appliesTo(user, binding, "");
      if (subject === undefined) continue;
      const { rules, error } = await this.rulesOf(binding.roleRef, "");
      const source: RuleSource = {
        bindingKind: "ClusterRoleBinding",
        bindingName: binding.metadata?.name ?? "",
        bindingNamespace: "",
        roleRef: binding.roleRef,
        subject,
      };
      if (error !== undefined && !visit(undefined, undefined, error)) return;
      for (const rule of rules) if (!visit(source, rule, undefined)) return;
    }
    if (namespace === "") return;
    for (const binding of await this.source.listRoleBindings(namespace)) {
      const subject = appliesTo(user, binding, namespace);
      if (subject === undefined) continue;
      const { rules, error } = await this.rulesOf(binding.roleRef, namespace);
      const source: RuleSource = {
        bindingKind: "RoleBinding",
        bindingName: binding.metadata?.name ?? "",
        bindingNamespace: namespace,
        roleRef: binding.roleRef,
        subject,
      };
      if (error !== undefined && !visit(undefined, undefined, error)) return;
      for (const rule of rules) if (!visit(source, rule, undefined)) return;
    }
  }

  /** Every rule that applies to the user in `namespace` (`""`: cluster-wide only) and the errors met on the way (`RulesFor`). */
  async rulesFor(user: UserInfo, namespace: string): Promise<{ rules: PolicyRule[]; errors: string[] }> {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    await this.visitRulesFor(user, namespace, (_source, rule, error) => {
      if (rule !== undefined) rules.push(rule);
      if (error !== undefined) errors.push(error);
      return true;
    });
    return { rules, errors };
  }

  /** `GetRoleReferenceRules`: the rules a roleRef points at. */
  async rulesOf(roleRef: RoleRef, bindingNamespace: string): Promise<{ rules: PolicyRule[]; error?: string }> {
    if (roleRef.kind === "Role") {
      const role = await this.source.getRole(bindingNamespace, roleRef.name);
      if (role === undefined) return { rules: [], error: `role.rbac.authorization.k8s.io "${roleRef.name}" not found` };
      return { rules: role.rules ?? [] };
    }
    if (roleRef.kind === "ClusterRole") {
      const role = await this.source.getClusterRole(roleRef.name);
      if (role === undefined) return { rules: [], error: `clusterrole.rbac.authorization.k8s.io "${roleRef.name}" not found` };
      return { rules: role.rules ?? [] };
    }
    return { rules: [], error: `unsupported role reference kind: "${roleRef.kind}"` };
  }
}

/** The description of the first subject of `binding` naming the user, e.g. `User "jane"`. */
function appliesTo(user: UserInfo, binding: RoleBinding, namespace: string): string | undefined {
  for (const subject of binding.subjects ?? []) {
    if (!subjectAppliesTo(subject, user, namespace)) continue;
    if (subject.kind === "ServiceAccount") return `ServiceAccount "${subject.name}/${subject.namespace || namespace}"`;
    return `${subject.kind} "${subject.name}"`;
  }
  return undefined;
}

/** Go's `utilerrors.NewAggregate(errs).Error()`: one message alone, several as `[a, b]`. */
export function aggregateErrors(errors: readonly string[]): string {
  if (errors.length === 1) return errors[0] as string;
  return `[${errors.join(", ")}]`;
}
