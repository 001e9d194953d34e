/** ValidatingAdmissionPolicy and ValidatingAdmissionPolicyBinding: the resources and the admission plugin. */
export { validatingAdmissionPoliciesResource, validatingAdmissionPolicyBindingsResource } from "./resources.js";
export { validatingAdmissionPolicy, type PolicyRequestContext, type ValidatingPolicyOptions } from "./plugin.js";
