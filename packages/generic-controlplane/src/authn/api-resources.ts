import type { SubresourceSpec } from "../discovery/discovery.js";
import type { ResourceDefinition } from "../registry/rest/resource-definition.js";

/** authentication.k8s.io/v1 TokenReview: create-only and never stored, as upstream serves it. */
export const tokenReviewsResource: ResourceDefinition = {
  group: "authentication.k8s.io",
  version: "v1",
  kind: "TokenReview",
  plural: "tokenreviews",
  singular: "tokenreview",
  scope: "Cluster",
  restVerbs: ["create"],
};

/** authentication.k8s.io/v1 SelfSubjectReview (`kubectl auth whoami`). */
export const selfSubjectReviewsResource: ResourceDefinition = {
  group: "authentication.k8s.io",
  version: "v1",
  kind: "SelfSubjectReview",
  plural: "selfsubjectreviews",
  singular: "selfsubjectreview",
  scope: "Cluster",
  restVerbs: ["create"],
};

/** The authentication API as discovery lists it. */
export const authenticationApiResources: readonly ResourceDefinition[] = [selfSubjectReviewsResource, tokenReviewsResource];

/** `serviceaccounts/token`, which speaks TokenRequest. */
export const serviceAccountTokenSubresource: Record<string, SubresourceSpec[]> = {
  serviceaccounts: [{ name: "token", verbs: ["create"], kind: { group: "authentication.k8s.io", version: "v1", kind: "TokenRequest" } }],
};
