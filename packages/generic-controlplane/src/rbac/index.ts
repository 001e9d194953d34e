export { RbacAuthorizer, ruleAllows } from "./authorizer.js";
export { ClusterRoleAggregationController, aggregatedRules } from "./aggregation.js";
export { BOOTSTRAP_HOOK, ensureBootstrapPolicy } from "./bootstrap.js";
export { bootstrapClusterRoleBindings, bootstrapClusterRoles } from "./bootstrap-policy.js";
export { confirmNoEscalation, covers } from "./escalation.js";
export { guardRbacStores, storePolicySource, type RbacStores } from "./policy-stores.js";
export { clusterRoleBindingsResource, clusterRolesResource, rbacResources, roleBindingsResource, rolesResource } from "./resources.js";
export { RuleResolver, type PolicySource } from "./rule-resolver.js";
export type { AggregationRule, ClusterRole, ClusterRoleBinding, PolicyRule, Role, RoleBinding, RoleRef, Subject } from "./types.js";
