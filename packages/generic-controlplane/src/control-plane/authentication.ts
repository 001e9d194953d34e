import { randomBytes } from "node:crypto";
import { createCertificateAuthority, issueServingCertificate, type CertificateAndKey } from "../certs/authority.js";
import type { KubeObject } from "../api/types.js";
import { isControlPlaneError } from "../api/errors/control-plane-error.js";
import type { AnonymousPaths } from "../authn/anonymous.js";
import { requestAuthentication } from "../authn/authenticator.js";
import { bearerTokenAuthenticator } from "../authn/bearer-token.js";
import { authenticationEndpoints } from "../server/authentication-endpoints.js";
import { DEFAULT_ISSUER } from "../authn/serviceaccount/claims.js";
import { generateServiceAccountSigningKey, serviceAccountKeysFromPem, type ServiceAccountKeys } from "../authn/serviceaccount/keys.js";
import {
  serviceAccountTokenAuthenticator,
  type ServiceAccountGetter,
  type ServiceAccountTokenConfig,
} from "../authn/serviceaccount/tokens.js";
import { tokenFileAuthenticator } from "../authn/token-file.js";
import {
  ALL_AUTHENTICATED,
  SYSTEM_MASTERS,
  type AuthenticationResult,
  type RequestAuthenticator,
  type TokenAuthenticator,
} from "../authn/types.js";
import { x509Authenticator } from "../authn/x509.js";
import type { ResourceStore } from "../registry/types.js";
import type { ApiServerOptions, HandlerStage } from "../server/api-server.js";
import { secretEquals } from "../authn/secret-equal.js";

/** Who may call the server and how they prove it (kube-apiserver's authentication flags). */
export interface AuthenticationOptions {
  /** Static bearer tokens in kube-apiserver's `--token-auth-file` CSV format: `token,user,uid,"group1,group2"`. */
  tokenFile?: string;
  /**
   * Requests without credentials, as `system:anonymous` in `system:unauthenticated`. Default, when
   * an authorizer decides (RBAC, Webhook): every one reaches it, as kube-apiserver's
   * `--anonymous-auth=true`, so RBAC answers 403 where anonymous may not go; when every request is
   * allowed (no authorization, or AlwaysAllow, which kube-apiserver never combines with anonymous):
   * only health, version and discovery, any other gets 401. `"*"` or a list of paths chooses
   * explicitly; `false` refuses them all (`--anonymous-auth=false`).
   */
  anonymous?: false | AnonymousPaths;
}

/** How service account tokens are signed and verified (kube-apiserver's `--service-account-*` flags). */
export interface ServiceAccountTokenOptions {
  /** PEM private key new tokens are signed with (`--service-account-signing-key-file`). Default: a key generated at startup. */
  signingKey?: string;
  /** PEM public (or private) keys whose tokens stay valid, e.g. from before a rotation (`--service-account-key-file`). */
  verificationKeys?: readonly string[];
  /** `--service-account-issuer`: the first issues tokens, all are accepted. Default `https://kubernetes.default.svc.cluster.local`. */
  issuers?: readonly string[];
  /** `--api-audiences`; default the first issuer. */
  apiAudiences?: readonly string[];
  /** `--service-account-jwks-uri`: the `jwks_uri` of the OpenID discovery document. */
  jwksUri?: string;
  /** `--service-account-max-token-expiration` in seconds: longer TokenRequests are shortened. */
  maxExpirationSeconds?: number;
  /** Accept secret-based (legacy) tokens; default true. */
  legacyTokens?: boolean;
}

/** The server's own loopback identity, as kube-apiserver's `system:apiserver` loopback token. */
export const LOOPBACK_USER = "system:apiserver";
/** The name the loopback serving certificate answers to (SNI), as upstream's. */
export const LOOPBACK_SERVER_NAME = "apiserver-loopback-client";

export interface LoopbackCredentials {
  token: string;
  /** The CA of the loopback serving certificate, when the server speaks HTTPS. */
  ca?: string;
  serverName?: string;
  serving?: CertificateAndKey;
}

/** A fresh loopback token and, for HTTPS, a loopback serving certificate for `apiserver-loopback-client`. */
export async function loopbackCredentials(secure: boolean): Promise<LoopbackCredentials> {
  const token = randomBytes(32).toString("base64url");
  if (!secure) return { token };
  const ca = await createCertificateAuthority(`${LOOPBACK_SERVER_NAME}-ca`);
  const serving = await issueServingCertificate(ca, LOOPBACK_SERVER_NAME, [LOOPBACK_SERVER_NAME]);
  return { token, ca: ca.cert, serverName: LOOPBACK_SERVER_NAME, serving };
}

function loopbackTokenAuthenticator(token: string): TokenAuthenticator {
  return {
    authenticateToken(presented) {
      return Promise.resolve(
        secretEquals(presented, token) ? { user: { name: LOOPBACK_USER, uid: "", groups: [SYSTEM_MASTERS] } } : undefined,
      );
    },
  };
}

/** Reads through a store, with "not found" as undefined (a deleted service account revokes its tokens). */
function storeGetter(serviceAccounts: ResourceStore | undefined, secrets: ResourceStore | undefined): ServiceAccountGetter {
  const get = async (store: ResourceStore | undefined, namespace: string, name: string): Promise<KubeObject | undefined> => {
    if (store === undefined) return undefined;
    try {
      return await store.get(namespace, name);
    } catch (error) {
      if (isControlPlaneError(error) && error.code === "NotFound") return undefined;
      throw error;
    }
  };
  return { serviceAccount: (ns, name) => get(serviceAccounts, ns, name), secret: (ns, name) => get(secrets, ns, name) };
}

export async function serviceAccountTokenConfig(options: ServiceAccountTokenOptions = {}): Promise<ServiceAccountTokenConfig> {
  const keys: ServiceAccountKeys = serviceAccountKeysFromPem(
    options.signingKey ?? (await generateServiceAccountSigningKey()),
    options.verificationKeys ?? [],
  );
  const [issuer = DEFAULT_ISSUER, ...acceptedIssuers] = options.issuers ?? [];
  return {
    keys,
    issuer,
    acceptedIssuers,
    ...(options.apiAudiences && options.apiAudiences.length > 0 ? { apiAudiences: options.apiAudiences } : {}),
    ...(options.legacyTokens === false ? { legacyTokens: false } : {}),
  };
}

function withAuthenticatedGroup(result: AuthenticationResult | undefined): AuthenticationResult | undefined {
  if (result === undefined || result.user.groups.includes(ALL_AUTHENTICATED)) return result;
  return { ...result, user: { ...result.user, groups: [...result.user.groups, ALL_AUTHENTICATED] } };
}

export interface ControlPlaneAuthentication {
  /** The authentication filter's function; undefined leaves every request anonymous. */
  authenticate: ApiServerOptions["authenticate"];
  /** TokenRequest, TokenReview and the OpenID discovery endpoints. */
  endpoints: HandlerStage;
}

/**
 * kube-apiserver's authenticator for this control plane, in its order: client certificates (with a
 * client CA), bearer tokens (the loopback token, the token file, service account tokens), then
 * anonymous. TokenRequest and TokenReview are served whether or not requests are authenticated.
 */
export function controlPlaneAuthentication(input: {
  authentication: AuthenticationOptions | undefined;
  clientCertificates: boolean;
  /** Whether an authorizer that can deny decides anonymous requests (the default `anonymous` is then `"*"`). */
  anonymousToAuthorizer: boolean;
  tokens: ServiceAccountTokenConfig;
  tokenOptions: ServiceAccountTokenOptions;
  loopback: LoopbackCredentials;
  serviceAccounts: ResourceStore | undefined;
  secrets: ResourceStore | undefined;
  maxBodyBytes: number;
}): ControlPlaneAuthentication {
  const serviceAccountTokens = serviceAccountTokenAuthenticator(input.tokens, storeGetter(input.serviceAccounts, input.secrets));
  const tokenFile = input.authentication?.tokenFile === undefined ? undefined : tokenFileAuthenticator(input.authentication.tokenFile);
  const bearerTokens: TokenAuthenticator[] = [
    loopbackTokenAuthenticator(input.loopback.token),
    ...(tokenFile ? [tokenFile] : []),
    serviceAccountTokens,
  ];
  const reviewTokens = async (token: string, audiences: readonly string[] | undefined) => {
    // A TokenReview asks about tokens clients hold, never the server's own loopback token.
    const fromFile = tokenFile === undefined ? undefined : await tokenFile.authenticateToken(token);
    return withAuthenticatedGroup(fromFile ?? (await serviceAccountTokens.authenticateTokenFor(token, audiences)));
  };
  let authenticate: ApiServerOptions["authenticate"];
  if (input.authentication !== undefined) {
    const authenticators: RequestAuthenticator[] = [
      ...(input.clientCertificates ? [x509Authenticator()] : []),
      bearerTokenAuthenticator(bearerTokens),
    ];
    const anonymous = input.authentication.anonymous ?? (input.anonymousToAuthorizer ? "*" : undefined);
    authenticate = requestAuthentication({ authenticators, ...(anonymous !== undefined ? { anonymous } : {}) });
  }
  return {
    authenticate,
    endpoints: authenticationEndpoints({
      config: input.tokens,
      ...(input.tokenOptions.jwksUri !== undefined ? { jwksUri: input.tokenOptions.jwksUri } : {}),
      ...(input.tokenOptions.maxExpirationSeconds !== undefined ? { maxExpirationSeconds: input.tokenOptions.maxExpirationSeconds } : {}),
      maxBodyBytes: input.maxBodyBytes,
      serviceAccounts: input.serviceAccounts,
      secrets: input.secrets,
      reviewToken: reviewTokens,
    }),
  };
}
