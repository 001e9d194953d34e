import { defineResource } from "../resources/define.js";
import { ageColumn } from "../resources/printer-columns.js";
import { kindSchema, labelSelectorSchema, stringListSchema, stringSchema } from "../resources/schema-parts.js";
import type { PrinterColumn } from "../registry/rest/resource-definition.js";
import type { JSONSchemaProps } from "../schema/types.js";
import { defaultBinding, validateBinding, validateBindingUpdate, validateClusterRole, validateRole } from "./validation.js";
import { RBAC_GROUP, type ClusterRole, type ClusterRoleBinding, type Role, type RoleBinding } from "./types.js";

const policyRuleSchema: JSONSchemaProps = {
  type: "object",
  description:
    "PolicyRule holds information that describes a policy rule, but does not contain information about who the rule applies to or which namespace the rule applies to.",
  required: ["verbs"],
  properties: {
    apiGroups: stringListSchema(
      'APIGroups is the name of the APIGroup that contains the resources. If multiple API groups are specified, any action requested against one of the enumerated resources in any API group will be allowed. "" represents the core API group and "*" represents all API groups.',
    ),
    nonResourceURLs: stringListSchema(
      'NonResourceURLs is a set of partial urls that a user should have access to. *s are allowed, but only as the full, final step in the path. Rules can either apply to API resources (such as "pods" or "secrets") or non-resource URL paths (such as "/api"), but not both.',
    ),
    resourceNames: stringListSchema(
      "ResourceNames is an optional white list of names that the rule applies to.  An empty set means that everything is allowed.",
    ),
    resources: stringListSchema("Resources is a list of resources this rule applies to. '*' represents all resources."),
    verbs: stringListSchema(
      "Verbs is a list of Verbs that apply to ALL the ResourceKinds contained in this rule. '*' represents all verbs.",
    ),
  },
};

const rulesSchema = (what: string): JSONSchemaProps => ({
  type: "array",
  description: `Rules holds all the PolicyRules for this ${what}`,
  items: policyRuleSchema,
  "x-kubernetes-list-type": "atomic",
});

const subjectsSchema: JSONSchemaProps = {
  type: "array",
  description: "Subjects holds references to the objects the role applies to.",
  "x-kubernetes-list-type": "atomic",
  items: {
    type: "object",
    description: "Subject contains a reference to the object or user identities a role binding applies to.",
    required: ["kind", "name"],
    "x-kubernetes-map-type": "atomic",
    properties: {
      apiGroup: stringSchema(
        'APIGroup holds the API group of the referenced subject. Defaults to "" for ServiceAccount subjects. Defaults to "rbac.authorization.k8s.io" for User and Group subjects.',
      ),
      kind: stringSchema('Kind of object being referenced. Values defined by this API group are "User", "Group", and "ServiceAccount".'),
      name: stringSchema("Name of the object being referenced."),
      namespace: stringSchema(
        'Namespace of the referenced object.  If the object kind is non-namespace, such as "User" or "Group", and this value is not empty the Authorizer should report an error.',
      ),
    },
  },
};

const roleRefSchema: JSONSchemaProps = {
  type: "object",
  description:
    "RoleRef can reference a Role in the current namespace or a ClusterRole in the global namespace. If the RoleRef cannot be resolved, the Authorizer must return an error. This field is immutable.",
  required: ["apiGroup", "kind", "name"],
  "x-kubernetes-map-type": "atomic",
  properties: {
    apiGroup: stringSchema("APIGroup is the group for the resource being referenced"),
    kind: stringSchema("Kind is the type of resource being referenced"),
    name: stringSchema("Name is the name of resource being referenced"),
  },
};

// upstream prints the creation time itself (RFC 3339), not an age, for roles.
const roleColumns = [
  {
    name: "Created At",
    type: "string" as const,
    description: "Time at which the role was created",
    cell: (o: Role) => o.metadata?.creationTimestamp ?? "",
  },
];

/** rbac.authorization.k8s.io/v1 Role. */
export const rolesResource = defineResource<Role>({
  group: RBAC_GROUP,
  version: "v1",
  kind: "Role",
  plural: "roles",
  singular: "role",
  scope: "Namespaced",
  nameRule: "PathSegment",
  schema: kindSchema({
    group: RBAC_GROUP,
    version: "v1",
    kind: "Role",
    description: "Role is a namespaced, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding.",
    properties: { rules: rulesSchema("Role") },
  }),
  printerColumns: roleColumns,
  strategy: { validate: validateRole, validateUpdate: validateRole, allowCreateOnUpdate: true },
});

/** rbac.authorization.k8s.io/v1 ClusterRole. */
export const clusterRolesResource = defineResource<ClusterRole>({
  group: RBAC_GROUP,
  version: "v1",
  kind: "ClusterRole",
  plural: "clusterroles",
  singular: "clusterrole",
  scope: "Cluster",
  nameRule: "PathSegment",
  schema: kindSchema({
    group: RBAC_GROUP,
    version: "v1",
    kind: "ClusterRole",
    description:
      "ClusterRole is a cluster level, logical grouping of PolicyRules that can be referenced as a unit by a RoleBinding or ClusterRoleBinding.",
    properties: {
      aggregationRule: {
        type: "object",
        description:
          "AggregationRule is an optional field that describes how to build the Rules for this ClusterRole. If AggregationRule is set, then the Rules are controller managed and direct changes to Rules will be stomped by the controller.",
        properties: {
          clusterRoleSelectors: {
            type: "array",
            description:
              "ClusterRoleSelectors holds a list of selectors which will be used to find ClusterRoles and create the rules. If any of the selectors match, then the ClusterRole's permissions will be added",
            items: labelSelectorSchema(
              "A label selector is a label query over a set of resources. An empty label selector matches all objects. A null label selector matches no objects.",
            ),
            "x-kubernetes-list-type": "atomic",
          },
        },
      },
      rules: rulesSchema("ClusterRole"),
    },
  }),
  printerColumns: roleColumns,
  strategy: { validate: validateClusterRole, validateUpdate: validateClusterRole, allowCreateOnUpdate: true },
});

/** upstream's printer: NAME, ROLE, AGE, and with `-o wide` USERS, GROUPS, SERVICEACCOUNTS. */
function bindingColumns(): PrinterColumn<RoleBinding>[] {
  const subjectsOf = (o: RoleBinding, kind: string) =>
    (o.subjects ?? [])
      .filter((s) => s.kind === kind)
      .map((s) => (kind === "ServiceAccount" ? `${s.namespace ?? ""}/${s.name}` : s.name))
      .join(", ");
  return [
    {
      name: "Role",
      type: "string",
      priority: 0,
      description: "RoleRef is the reference to Role",
      cell: (o) => `${o.roleRef?.kind ?? ""}/${o.roleRef?.name ?? ""}`,
    },
    ageColumn(),
    { name: "Users", type: "string", priority: 1, description: "Users", cell: (o) => subjectsOf(o, "User") },
    { name: "Groups", type: "string", priority: 1, description: "Groups", cell: (o) => subjectsOf(o, "Group") },
    { name: "ServiceAccounts", type: "string", priority: 1, description: "ServiceAccounts", cell: (o) => subjectsOf(o, "ServiceAccount") },
  ];
}

/** rbac.authorization.k8s.io/v1 RoleBinding. */
export const roleBindingsResource = defineResource<RoleBinding>({
  group: RBAC_GROUP,
  version: "v1",
  kind: "RoleBinding",
  plural: "rolebindings",
  singular: "rolebinding",
  scope: "Namespaced",
  nameRule: "PathSegment",
  schema: kindSchema({
    group: RBAC_GROUP,
    version: "v1",
    kind: "RoleBinding",
    description:
      "RoleBinding references a role, but does not contain it.  It can reference a Role in the same namespace or a ClusterRole in the global namespace.",
    properties: { roleRef: roleRefSchema, subjects: subjectsSchema },
    required: ["roleRef"],
  }),
  printerColumns: bindingColumns(),
  strategy: {
    allowCreateOnUpdate: true,
    prepareForCreate: defaultBinding,
    prepareForUpdate: (object) => defaultBinding(object),
    validate: (object) => validateBinding(object, true),
    validateUpdate: (object, old) => validateBindingUpdate(object, old, true),
  },
});

/** rbac.authorization.k8s.io/v1 ClusterRoleBinding. */
export const clusterRoleBindingsResource = defineResource<ClusterRoleBinding>({
  group: RBAC_GROUP,
  version: "v1",
  kind: "ClusterRoleBinding",
  plural: "clusterrolebindings",
  singular: "clusterrolebinding",
  scope: "Cluster",
  nameRule: "PathSegment",
  schema: kindSchema({
    group: RBAC_GROUP,
    version: "v1",
    kind: "ClusterRoleBinding",
    description:
      "ClusterRoleBinding references a ClusterRole, but not contain it.  It can reference a ClusterRole in the global namespace, and adds who information via Subject.",
    properties: { roleRef: roleRefSchema, subjects: subjectsSchema },
    required: ["roleRef"],
  }),
  printerColumns: bindingColumns(),
  strategy: {
    allowCreateOnUpdate: true,
    prepareForCreate: defaultBinding,
    prepareForUpdate: (object) => defaultBinding(object),
    validate: (object) => validateBinding(object, false),
    validateUpdate: (object, old) => validateBindingUpdate(object, old, false),
  },
});

/** The four RBAC types, in upstream's discovery order. */
export const rbacResources = [clusterRoleBindingsResource, clusterRolesResource, roleBindingsResource, rolesResource];
