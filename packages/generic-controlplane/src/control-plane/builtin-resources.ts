import { customResourceDefinitionsResource } from "../apiextensions/crd-resource.js";
import type { ResourceDefinition } from "../registry/rest/resource-definition.js";
import { configMapsResource } from "../resources/config-maps.js";
import { eventsResource } from "../resources/events.js";
import { eventsV1Resource } from "../resources/events-v1.js";
import { leasesResource } from "../resources/leases.js";
import { limitRangesResource } from "../resources/limit-ranges.js";
import { apiServicesResource } from "../aggregator/api-services.js";
import {
  mutatingWebhookConfigurationsResource,
  validatingWebhookConfigurationsResource,
} from "../admission/plugin/webhooks/configurations.js";
import {
  validatingAdmissionPoliciesResource,
  validatingAdmissionPolicyBindingsResource,
} from "../admission/plugin/validating-policy/resources.js";
import { namespacesResource } from "../resources/namespaces.js";
import { resourceQuotasResource } from "../resources/resource-quotas.js";
import { secretsResource } from "../resources/secrets.js";
import { serviceAccountsResource } from "../resources/service-accounts.js";

import { certificateSigningRequestsResource } from "../certificates/resource.js";
/** The built-in resources by `<plural>` (core group) or `<plural>.<group>`, as `kubectl api-resources` names them. */
export const builtinResources = {
  namespaces: namespacesResource,
  configmaps: configMapsResource,
  secrets: secretsResource,
  resourcequotas: resourceQuotasResource,
  limitranges: limitRangesResource,
  serviceaccounts: serviceAccountsResource,
  events: eventsResource,
  "events.events.k8s.io": eventsV1Resource,
  "leases.coordination.k8s.io": leasesResource,
  "validatingwebhookconfigurations.admissionregistration.k8s.io": validatingWebhookConfigurationsResource,
  "mutatingwebhookconfigurations.admissionregistration.k8s.io": mutatingWebhookConfigurationsResource,
  "validatingadmissionpolicies.admissionregistration.k8s.io": validatingAdmissionPoliciesResource,
  "validatingadmissionpolicybindings.admissionregistration.k8s.io": validatingAdmissionPolicyBindingsResource,
  "apiservices.apiregistration.k8s.io": apiServicesResource,
  "certificatesigningrequests.certificates.k8s.io": certificateSigningRequestsResource,
  "customresourcedefinitions.apiextensions.k8s.io": customResourceDefinitionsResource(),
} as const satisfies Record<string, ResourceDefinition>;

export type BuiltinResourceName = keyof typeof builtinResources;

/** Every built-in, in upstream's discovery order, or just the named ones. */
export function selectBuiltinResources(names?: readonly BuiltinResourceName[]): ResourceDefinition[] {
  const chosen = names ?? (Object.keys(builtinResources) as BuiltinResourceName[]);
  return chosen.map((name) => {
    const definition = builtinResources[name] as ResourceDefinition | undefined;
    if (definition === undefined)
      throw new TypeError(`unknown built-in resource ${JSON.stringify(name)}; known: ${Object.keys(builtinResources).join(", ")}`);
    return definition;
  });
}

export {
  configMapsResource,
  eventsResource,
  eventsV1Resource,
  leasesResource,
  limitRangesResource,
  namespacesResource,
  resourceQuotasResource,
  secretsResource,
  serviceAccountsResource,
};
