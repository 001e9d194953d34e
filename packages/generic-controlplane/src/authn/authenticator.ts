import type { UserInfo } from "./user.js";
import type { IncomingMessage } from "node:http";
import { anonymousAllowed, DEFAULT_ANONYMOUS_PATHS, type AnonymousPaths, type AnonymousRequestInfo } from "./anonymous.js";
import {
  ALL_AUTHENTICATED,
  ALL_UNAUTHENTICATED,
  ANONYMOUS_USER,
  AuthenticationFailure,
  type AuthenticationResult,
  type RequestAuthenticator,
} from "./types.js";

/** What authentication reads of a request as it travels through the handler chain (the server's RequestContext). */
export interface AuthenticatingRequest {
  readonly req: IncomingMessage;
  /** The path without the query string. */
  readonly path: string;
  readonly info: AnonymousRequestInfo | undefined;
}

export interface RequestAuthenticationOptions {
  /** Tried in order (kube-apiserver: client certificates, then bearer tokens); the first that knows the request decides. */
  authenticators: readonly RequestAuthenticator[];
  /** Requests without credentials: `false` answers them all 401; default health, version and discovery only. */
  anonymous?: false | AnonymousPaths;
}

/** Adds `system:authenticated` to an authenticated user (upstream `group.AuthenticatedGroupAdder`). */
function withAuthenticatedGroup(result: AuthenticationResult): AuthenticationResult {
  const user = result.user;
  if (user.groups.includes(ALL_AUTHENTICATED)) return result;
  // Like upstream, system:anonymous coming from a credential (a token file line) is not made authenticated.
  if (user.name === ANONYMOUS_USER) return result;
  return { ...result, user: { ...user, groups: [...user.groups, ALL_AUTHENTICATED] } };
}

/**
 * kube-apiserver's authenticator: the union of `authenticators` (the first to recognise the request's
 * credentials decides; a failure is remembered and the next one asked), `system:authenticated`
 * added to whoever it finds, and anonymous for a request that presents no credentials at all (never
 * for one whose credentials failed: `union.NewFailOnError`). Resolves to the user, or undefined for
 * a request without credentials that anonymous may not serve; rejects with `AuthenticationFailure`.
 */
export function requestAuthentication(
  options: RequestAuthenticationOptions,
): (ctx: AuthenticatingRequest) => Promise<UserInfo | undefined> {
  const anonymous = options.anonymous === undefined ? DEFAULT_ANONYMOUS_PATHS : options.anonymous;
  return async (ctx) => {
    const failures: string[] = [];
    for (const authenticator of options.authenticators) {
      try {
        const result = await authenticator.authenticateRequest(ctx.req);
        if (result !== undefined) return withAuthenticatedGroup(result).user;
      } catch (error) {
        if (!(error instanceof AuthenticationFailure)) throw error;
        failures.push(error.message);
      }
    }
    if (failures.length > 0) throw new AuthenticationFailure(failures.join(", "));
    if (anonymous !== false && anonymousAllowed(anonymous, ctx.path, ctx.info))
      return { name: ANONYMOUS_USER, groups: [ALL_UNAUTHENTICATED] };
    throw new AuthenticationFailure("no credentials, and anonymous requests are not allowed here");
  };
}
