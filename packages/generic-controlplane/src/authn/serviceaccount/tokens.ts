import { randomUUID } from "node:crypto";
import { createLocalJWKSet, decodeJwt, decodeProtectedHeader, errors as joseErrors, jwtVerify, SignJWT, type JWTPayload } from "jose";
import type { KubeObject } from "../../api/types.js";
import type { UserInfo } from "../user.js";
import { AuthenticationFailure, type AuthenticationResult, type TokenAuthenticator } from "../types.js";
import {
  CREDENTIAL_ID_EXTRA,
  LEGACY_CLAIMS,
  LEGACY_ISSUER,
  serviceAccountGroups,
  serviceAccountUsername,
  type BoundClaims,
} from "./claims.js";
import { publicJwks, type ServiceAccountKeys } from "./keys.js";

/** How service account tokens are issued and which ones are accepted. */
export interface ServiceAccountTokenConfig {
  keys: ServiceAccountKeys;
  /** `iss` of new tokens (`--service-account-issuer`, the first one). */
  issuer: string;
  /** More issuers whose tokens are still accepted (the rest of `--service-account-issuer`), for an issuer change. */
  acceptedIssuers?: readonly string[];
  /** What the API server accepts as a token's audience (`--api-audiences`); default `[issuer]`. */
  apiAudiences?: readonly string[];
  /** Verify secret-based tokens (`--service-account-lookup` of legacy tokens); default true. */
  legacyTokens?: boolean;
}

/** Where tokens look their service account and bound objects up, so deleted or recreated ones revoke them. */
export interface ServiceAccountGetter {
  /** The object, or undefined when it does not exist. */
  serviceAccount(namespace: string, name: string): Promise<KubeObject | undefined>;
  secret(namespace: string, name: string): Promise<KubeObject | undefined>;
}

/** upstream allows clocks to disagree by this much for `nbf`, `iat` and `exp`. */
const LEEWAY_SECONDS = 60;

export interface BoundTokenRequest {
  serviceAccount: KubeObject;
  audiences: readonly string[];
  expirationSeconds: number;
  secret?: KubeObject;
  now?: Date;
}

/** Signs a bound token (upstream `Claims`): the service account, the audiences, an expiry and optionally the Secret it lives and dies with. */
export async function issueBoundToken(
  config: ServiceAccountTokenConfig,
  request: BoundTokenRequest,
): Promise<{ token: string; expiresAt: Date }> {
  const nowSeconds = Math.floor((request.now ?? new Date()).getTime() / 1000);
  const sa = request.serviceAccount.metadata ?? {};
  const kubernetes: BoundClaims = { namespace: sa.namespace ?? "", serviceaccount: { name: sa.name ?? "", uid: sa.uid ?? "" } };
  if (request.secret) kubernetes.secret = { name: request.secret.metadata?.name ?? "", uid: request.secret.metadata?.uid ?? "" };
  const exp = nowSeconds + request.expirationSeconds;
  const token = await new SignJWT({ "kubernetes.io": kubernetes })
    .setProtectedHeader({ alg: config.keys.signing.alg, kid: config.keys.signing.kid })
    .setIssuer(config.issuer)
    .setSubject(serviceAccountUsername(kubernetes.namespace, kubernetes.serviceaccount.name))
    .setAudience([...request.audiences])
    .setIssuedAt(nowSeconds)
    .setNotBefore(nowSeconds)
    .setExpirationTime(exp)
    .setJti(randomUUID())
    .sign(config.keys.signing.key);
  return { token, expiresAt: new Date(exp * 1000) };
}

/** Signs a secret-based token as the legacy tokens controller did (no expiry, no audience), for a `kubernetes.io/service-account-token` Secret. */
export async function issueLegacyToken(config: ServiceAccountTokenConfig, serviceAccount: KubeObject, secret: KubeObject): Promise<string> {
  const namespace = serviceAccount.metadata?.namespace ?? "";
  const name = serviceAccount.metadata?.name ?? "";
  return new SignJWT({
    [LEGACY_CLAIMS.namespace]: namespace,
    [LEGACY_CLAIMS.secretName]: secret.metadata?.name ?? "",
    [LEGACY_CLAIMS.serviceAccountName]: name,
    [LEGACY_CLAIMS.serviceAccountUid]: serviceAccount.metadata?.uid ?? "",
  })
    .setProtectedHeader({ alg: config.keys.signing.alg, kid: config.keys.signing.kid })
    .setIssuer(LEGACY_ISSUER)
    .setSubject(serviceAccountUsername(namespace, name))
    .sign(config.keys.signing.key);
}

function audiencesOf(payload: JWTPayload): string[] {
  if (payload.aud === undefined) return [];
  return Array.isArray(payload.aud) ? payload.aud : [payload.aud];
}

function quoteList(values: readonly string[]): string {
  return `[${values.map((v) => JSON.stringify(v)).join(" ")}]`;
}

/**
 * upstream `serviceaccount.JWTTokenAuthenticator`: a JWT from one of the accepted issuers, signed by a
 * verification key, still valid, for one of `audiences` (default the API audiences), whose service
 * account (and bound Secret) still exist with the uids in the token. Tokens of other issuers and
 * tokens that are not JWTs are left to other authenticators.
 */
export function serviceAccountTokenAuthenticator(
  config: ServiceAccountTokenConfig,
  getter: ServiceAccountGetter,
): TokenAuthenticator & {
  /** The same check for a TokenReview's audiences. */
  authenticateTokenFor(token: string, audiences: readonly string[] | undefined): Promise<AuthenticationResult | undefined>;
} {
  const issuers = new Set([config.issuer, ...(config.acceptedIssuers ?? [])]);
  const apiAudiences = config.apiAudiences && config.apiAudiences.length > 0 ? [...config.apiAudiences] : [config.issuer];
  let keySet: ReturnType<typeof createLocalJWKSet> | undefined;
  const keys = async () => (keySet ??= createLocalJWKSet(await publicJwks(config.keys)));

  async function verify(token: string, issuer: string): Promise<JWTPayload> {
    try {
      const { payload } = await jwtVerify(token, await keys(), {
        issuer,
        clockTolerance: LEEWAY_SECONDS,
        algorithms: [...new Set(config.keys.verification.map((k) => k.alg))],
      });
      return payload;
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) throw new AuthenticationFailure("service account token has expired");
      if (error instanceof joseErrors.JWSSignatureVerificationFailed || error instanceof joseErrors.JWKSNoMatchingKey)
        throw new AuthenticationFailure("invalid bearer token, square/go-jose: error in cryptographic primitive");
      if (error instanceof joseErrors.JOSEError) throw new AuthenticationFailure(`invalid bearer token, ${error.message}`);
      throw error;
    }
  }

  async function checkServiceAccount(namespace: string, name: string, uid: string): Promise<KubeObject> {
    const sa = await getter.serviceAccount(namespace, name);
    if (sa === undefined) throw new AuthenticationFailure(`service account ${namespace}/${name} has been deleted`);
    if (sa.metadata?.deletionTimestamp) throw new AuthenticationFailure(`service account ${namespace}/${name} has been deleted`);
    if (uid !== "" && sa.metadata?.uid !== uid)
      throw new AuthenticationFailure(
        `service account UID (${uid}) does not match the service account ${namespace}/${name}, which was deleted and recreated`,
      );
    return sa;
  }

  function user(namespace: string, name: string, uid: string, extra?: Record<string, string[]>): UserInfo {
    return { name: serviceAccountUsername(namespace, name), uid, groups: serviceAccountGroups(namespace), ...(extra ? { extra } : {}) };
  }

  async function boundToken(token: string, issuer: string, audiences: readonly string[]): Promise<AuthenticationResult> {
    const payload = await verify(token, issuer);
    const tokenAudiences = audiencesOf(payload);
    const matched = audiences.filter((a) => tokenAudiences.includes(a));
    if (matched.length === 0)
      throw new AuthenticationFailure(
        `token audiences ${quoteList(tokenAudiences)} is invalid for the target audiences ${quoteList(audiences)}`,
      );
    const claims = payload["kubernetes.io"] as Partial<BoundClaims> | undefined;
    const namespace = claims?.namespace;
    const sa = claims?.serviceaccount;
    if (typeof namespace !== "string" || namespace === "" || typeof sa?.name !== "string" || sa.name === "")
      throw new AuthenticationFailure("service account token claims could not be validated");
    await checkServiceAccount(namespace, sa.name, sa.uid ?? "");
    if (claims?.secret) {
      const secret = await getter.secret(namespace, claims.secret.name);
      if (secret === undefined || secret.metadata?.deletionTimestamp)
        throw new AuthenticationFailure(`secret ${namespace}/${claims.secret.name} has been deleted`);
      if (secret.metadata?.uid !== claims.secret.uid)
        throw new AuthenticationFailure(
          `secret ${namespace}/${claims.secret.name} UID (${claims.secret.uid}) does not match the secret, which was deleted and recreated`,
        );
    }
    if (claims?.pod || claims?.node)
      throw new AuthenticationFailure("tokens bound to pods or nodes cannot be verified by a control plane without pods and nodes");
    const extra: Record<string, string[]> = {};
    if (typeof payload.jti === "string" && payload.jti !== "") extra[CREDENTIAL_ID_EXTRA] = [`JTI=${payload.jti}`];
    return { user: user(namespace, sa.name, sa.uid ?? "", Object.keys(extra).length > 0 ? extra : undefined), audiences: matched };
  }

  async function legacyToken(token: string, audiences: readonly string[]): Promise<AuthenticationResult> {
    const payload = await verify(token, LEGACY_ISSUER);
    const namespace = payload[LEGACY_CLAIMS.namespace];
    const secretName = payload[LEGACY_CLAIMS.secretName];
    const name = payload[LEGACY_CLAIMS.serviceAccountName];
    const uid = payload[LEGACY_CLAIMS.serviceAccountUid];
    if (
      typeof namespace !== "string" ||
      typeof secretName !== "string" ||
      typeof name !== "string" ||
      typeof uid !== "string" ||
      namespace === "" ||
      name === ""
    ) {
      throw new AuthenticationFailure("service account token claims could not be validated");
    }
    // A legacy token lives as long as its Secret holds it: deleting the Secret revokes it.
    const secret = await getter.secret(namespace, secretName);
    const stored = (secret?.["data"] as Record<string, string> | undefined)?.["token"];
    if (
      secret === undefined ||
      secret.metadata?.deletionTimestamp ||
      stored === undefined ||
      Buffer.from(stored, "base64").toString("utf8") !== token
    ) {
      throw new AuthenticationFailure(`token has been invalidated`);
    }
    await checkServiceAccount(namespace, name, uid);
    // Legacy tokens are good for any audience of this server (upstream: the API audiences).
    return { user: user(namespace, name, uid), audiences: [...audiences] };
  }

  async function authenticateTokenFor(token: string, requested: readonly string[] | undefined): Promise<AuthenticationResult | undefined> {
    let issuer: unknown;
    try {
      decodeProtectedHeader(token);
      issuer = decodeJwt(token).iss;
    } catch {
      return undefined;
    }
    const audiences = requested && requested.length > 0 ? requested : apiAudiences;
    if (typeof issuer === "string" && issuers.has(issuer)) return boundToken(token, issuer, audiences);
    if (issuer === LEGACY_ISSUER && config.legacyTokens !== false) return legacyToken(token, audiences);
    return undefined;
  }

  return {
    authenticateToken: (token) => authenticateTokenFor(token, undefined),
    authenticateTokenFor,
  };
}
