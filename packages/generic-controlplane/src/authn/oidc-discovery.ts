import { publicJwks, type ServiceAccountKeys } from "./serviceaccount/keys.js";

/** The OpenID Provider configuration served at `/.well-known/openid-configuration` (upstream `routes/openidmetadata`). */
export interface OpenIdConfiguration {
  issuer: string;
  jwks_uri: string;
  response_types_supported: string[];
  subject_types_supported: string[];
  id_token_signing_alg_values_supported: string[];
}

/**
 * upstream `serviceaccount.NewOpenIDMetadataProvider`: the issuer, where its keys are
 * (`--service-account-jwks-uri`, default `<issuer>/openid/v1/jwks`) and the algorithms of the
 * verification keys, so relying parties can verify service account tokens without the API.
 * Undefined when the issuer is not an https URL, as kube-apiserver then serves no discovery.
 */
export function openIdConfiguration(issuer: string, keys: ServiceAccountKeys, jwksUri?: string): OpenIdConfiguration | undefined {
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    return undefined;
  }
  if (url.protocol !== "https:") return undefined;
  return {
    issuer,
    jwks_uri: jwksUri ?? `${issuer.replace(/\/$/, "")}/openid/v1/jwks`,
    response_types_supported: ["id_token"],
    subject_types_supported: ["public"],
    id_token_signing_alg_values_supported: [...new Set(keys.verification.map((k) => k.alg))].sort(),
  };
}

/** The verification keys as `/openid/v1/jwks` serves them. */
export const openIdKeySet = publicJwks;
