import type { IncomingMessage } from "node:http";
import type { UserInfo } from "./user.js";

/** Who a request or token is from, and which audiences the credential was valid for. */
export interface AuthenticationResult {
  user: UserInfo;
  /** The audiences the credential was issued for that this server accepts (a bound token's `aud` ∩ the API audiences). */
  audiences?: string[];
}

/**
 * One way to tell who sent a request (upstream `authenticator.Request`): undefined when the
 * request carries no credential of this kind, so the next authenticator is asked; throws
 * `AuthenticationFailure` when it carries one that is not valid.
 */
export interface RequestAuthenticator {
  authenticateRequest(req: IncomingMessage): Promise<AuthenticationResult | undefined>;
}

/**
 * One kind of bearer token (upstream `authenticator.Token`): undefined when the token is not of this
 * kind; throws `AuthenticationFailure` when it is but does not hold (expired, revoked, bad signature).
 */
export interface TokenAuthenticator {
  authenticateToken(token: string): Promise<AuthenticationResult | undefined>;
}

/** A credential that was presented and is not valid: the request is answered 401, never treated as anonymous. */
export class AuthenticationFailure extends Error {
  override readonly name = "AuthenticationFailure";
}

/** Groups kube-apiserver's authenticators assign (k8s.io/apiserver/pkg/authentication/user). */
export const SYSTEM_MASTERS = "system:masters";
export const ALL_AUTHENTICATED = "system:authenticated";
export const ALL_UNAUTHENTICATED = "system:unauthenticated";
export const ANONYMOUS_USER = "system:anonymous";
