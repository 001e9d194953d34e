import type { KubeObject } from "../api/types.js";
import { badRequest, conflict } from "../api/errors/index.js";
import { fieldInvalid, invalidError, type FieldError } from "../validation/field-errors.js";
import { issueBoundToken, type ServiceAccountTokenConfig } from "./serviceaccount/tokens.js";

/** A TokenRequest (authentication.k8s.io/v1) as sent to `serviceaccounts/<name>/token`. */
export interface TokenRequest extends KubeObject {
  spec?: {
    audiences?: string[];
    expirationSeconds?: number;
    boundObjectRef?: { kind?: string; apiVersion?: string; name?: string; uid?: string };
  };
  status?: { token: string; expirationTimestamp: string };
}

/** upstream's default `spec.expirationSeconds` (1 hour). */
export const DEFAULT_EXPIRATION_SECONDS = 3600;
const MIN_EXPIRATION_SECONDS = 600;
const MAX_EXPIRATION_SECONDS = 2 ** 32;

export interface TokenRequestEnv {
  config: ServiceAccountTokenConfig;
  /** The service account (throws 404 when it does not exist). */
  getServiceAccount(namespace: string, name: string): Promise<KubeObject>;
  /** A bound Secret (throws 404 when it does not exist). */
  getSecret(namespace: string, name: string): Promise<KubeObject>;
  /** Longest lifetime a token may be given (`--service-account-max-token-expiration`); longer requests are shortened. */
  maxExpirationSeconds?: number;
}

/** upstream `ValidateTokenRequest`. */
function validate(request: TokenRequest): FieldError[] {
  const errors: FieldError[] = [];
  const seconds = request.spec?.expirationSeconds;
  if (seconds !== undefined) {
    if (!Number.isInteger(seconds)) errors.push(fieldInvalid("spec.expirationSeconds", seconds, "must be an integer"));
    else if (seconds < MIN_EXPIRATION_SECONDS)
      errors.push(fieldInvalid("spec.expirationSeconds", seconds, "may not specify a duration less than 10 minutes"));
    else if (seconds > MAX_EXPIRATION_SECONDS)
      errors.push(fieldInvalid("spec.expirationSeconds", seconds, "may not specify a duration larger than 2^32 seconds"));
  }
  const audiences = request.spec?.audiences;
  if (audiences !== undefined && (!Array.isArray(audiences) || audiences.some((a) => typeof a !== "string")))
    errors.push(fieldInvalid("spec.audiences", audiences, "must be a list of strings"));
  return errors;
}

/**
 * upstream `TokenREST.Create` (pkg/registry/core/serviceaccount/storage/token.go): signs a token for
 * the service account `name`, for the requested audiences (default the API audiences), for
 * `expirationSeconds` (default 1 h), bound to a Secret when `boundObjectRef` names one. Pods and
 * Nodes do not exist in this control plane, so tokens cannot be bound to them.
 */
export async function createToken(env: TokenRequestEnv, namespace: string, name: string, request: TokenRequest): Promise<TokenRequest> {
  const errors = validate(request);
  if (errors.length > 0) throw invalidError({ group: "authentication.k8s.io", kind: "TokenRequest" }, name, errors);
  const serviceAccount = await env.getServiceAccount(namespace, name);
  const spec = request.spec ?? {};
  const audiences = spec.audiences && spec.audiences.length > 0 ? spec.audiences : (env.config.apiAudiences ?? [env.config.issuer]);
  let expirationSeconds = spec.expirationSeconds ?? DEFAULT_EXPIRATION_SECONDS;
  if (env.maxExpirationSeconds !== undefined && expirationSeconds > env.maxExpirationSeconds) expirationSeconds = env.maxExpirationSeconds;

  let secret: KubeObject | undefined;
  const ref = spec.boundObjectRef;
  if (ref !== undefined) {
    const kind = `${ref.apiVersion ?? ""}, Kind=${ref.kind ?? ""}`;
    if (ref.kind !== "Secret" || (ref.apiVersion ?? "v1") !== "v1") {
      throw badRequest(`cannot bind token for serviceaccount ${JSON.stringify(name)} to object of type ${kind}`);
    }
    secret = await env.getSecret(namespace, ref.name ?? "");
    if (ref.uid && ref.uid !== secret.metadata?.uid) {
      throw conflict(
        { group: "", resource: "secrets" },
        ref.name ?? "",
        `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
      );
    }
  }
  const { token, expiresAt } = await issueBoundToken(env.config, {
    serviceAccount,
    audiences,
    expirationSeconds,
    ...(secret ? { secret } : {}),
  });
  return {
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenRequest",
    metadata: { ...(request.metadata ?? {}), name, namespace },
    spec: { ...spec, audiences: [...audiences], expirationSeconds, ...(ref ? { boundObjectRef: ref } : {}) },
    status: { token, expirationTimestamp: expiresAt.toISOString().replace(/\.\d{3}Z$/, "Z") },
  };
}
