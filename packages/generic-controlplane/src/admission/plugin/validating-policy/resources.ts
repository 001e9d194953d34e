import { defineResource } from "../../../resources/define.js";
import { ageColumn } from "../../../resources/printer-columns.js";
import { bindingSchema, policySchema } from "./schema.js";
import { GROUP, VERSION, type MatchResources, type ValidatingAdmissionPolicy, type ValidatingAdmissionPolicyBinding } from "./types.js";
import { validateBinding, validatePolicy } from "./validation.js";

/** Upstream's defaults: matchPolicy Equivalent, selectors that match everything, rule scope `*`. */
function defaultMatchResources(match: MatchResources | undefined): void {
  if (match === undefined) return;
  match.matchPolicy ??= "Equivalent";
  match.namespaceSelector ??= {};
  match.objectSelector ??= {};
  for (const rule of [...(match.resourceRules ?? []), ...(match.excludeResourceRules ?? [])]) rule.scope ??= "*";
}

function defaultPolicy(policy: ValidatingAdmissionPolicy): void {
  policy.spec ??= {};
  policy.spec.failurePolicy ??= "Fail";
  defaultMatchResources(policy.spec.matchConstraints);
}

function defaultBinding(binding: ValidatingAdmissionPolicyBinding): void {
  binding.spec ??= {};
  defaultMatchResources(binding.spec.matchResources);
}

/** admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy (cluster-scoped, with a status subresource). */
export const validatingAdmissionPoliciesResource = defineResource<ValidatingAdmissionPolicy>({
  group: GROUP,
  version: VERSION,
  kind: "ValidatingAdmissionPolicy",
  plural: "validatingadmissionpolicies",
  singular: "validatingadmissionpolicy",
  scope: "Cluster",
  categories: ["api-extensions"],
  schema: policySchema,
  statusSubresource: true,
  tracksGeneration: true,
  printerColumns: [
    {
      name: "Validations",
      type: "integer",
      description: "Validations is the number of validation expressions.",
      cell: (policy) => policy.spec?.validations?.length ?? 0,
    },
    {
      name: "ParamKind",
      type: "string",
      description: "ParamKind is the kind of resources that parameterize the policy.",
      cell: (policy) =>
        policy.spec?.paramKind === undefined ? "<unset>" : `${policy.spec.paramKind.apiVersion ?? ""}/${policy.spec.paramKind.kind ?? ""}`,
    },
    ageColumn(),
  ],
  strategy: {
    prepareForCreate: defaultPolicy,
    prepareForUpdate: defaultPolicy,
    validate: validatePolicy,
    validateUpdate: validatePolicy,
  },
});

/** admissionregistration.k8s.io/v1 ValidatingAdmissionPolicyBinding (cluster-scoped). */
export const validatingAdmissionPolicyBindingsResource = defineResource<ValidatingAdmissionPolicyBinding>({
  group: GROUP,
  version: VERSION,
  kind: "ValidatingAdmissionPolicyBinding",
  plural: "validatingadmissionpolicybindings",
  singular: "validatingadmissionpolicybinding",
  scope: "Cluster",
  categories: ["api-extensions"],
  schema: bindingSchema,
  tracksGeneration: true,
  printerColumns: [
    {
      name: "PolicyName",
      type: "string",
      description: "PolicyName is the name of the bound policy.",
      cell: (binding) => binding.spec?.policyName ?? "",
    },
    {
      name: "ParamRef",
      type: "string",
      description: "ParamRef names the parameter resource.",
      cell: (binding) => {
        const ref = binding.spec?.paramRef;
        if (ref === undefined) return "<unset>";
        const name = ref.name ?? "*";
        return ref.namespace === undefined ? name : `${ref.namespace}/${name}`;
      },
    },
    ageColumn(),
  ],
  strategy: {
    prepareForCreate: defaultBinding,
    prepareForUpdate: defaultBinding,
    validate: validateBinding,
    validateUpdate: validateBinding,
  },
});
