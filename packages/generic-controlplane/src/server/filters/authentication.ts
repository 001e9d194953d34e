import { unauthorized } from "../../api/errors/index.js";
import { AuthenticationFailure } from "../../authn/types.js";
import type { RequestContext } from "../context.js";
import { ANONYMOUS, type UserInfo } from "../access-reviews.js";
import { passThrough, type RequestFilter } from "./chain.js";

/**
 * Says who sent a request; `undefined` leaves it anonymous. Rejecting with an
 * `AuthenticationFailure` (invalid credentials, or none where anonymous is not allowed) answers 401.
 */
export type Authenticate = (ctx: RequestContext) => UserInfo | undefined | Promise<UserInfo | undefined>;

/**
 * upstream `WithAuthentication`: sets `ctx.user` for the stages after it (flow control classifies
 * by user). Without an authenticator every request is `system:anonymous`, as kube-apiserver with
 * anonymous auth and no other authenticator. A request whose credentials do not hold gets upstream's
 * 401 `Unauthorized`, and the `Authorization` header is not passed further on.
 */
export function withAuthentication(authenticate: Authenticate | undefined): RequestFilter {
  if (authenticate === undefined) return passThrough("authentication");
  const accept = (ctx: RequestContext, user: UserInfo | undefined): void => {
    ctx.user = user ?? ANONYMOUS;
    delete ctx.req.headers.authorization;
  };
  return {
    name: "authentication",
    handle(ctx, next) {
      // Most authenticators answer at once (a client certificate, a cached token): no promise then.
      let user: UserInfo | undefined | Promise<UserInfo | undefined>;
      try {
        user = authenticate(ctx);
      } catch (error) {
        return failure(error);
      }
      if (user instanceof Promise) {
        return user.then(
          (found) => {
            accept(ctx, found);
            return next(ctx);
          },
          (error: unknown) => failure(error),
        );
      }
      accept(ctx, user);
      return next(ctx);
    },
  };
}

/** An authenticator's rejection of the credentials is upstream's 401; anything else passes as it is. */
function failure(error: unknown): never {
  if (error instanceof AuthenticationFailure) throw unauthorized("Unauthorized");
  throw error;
}
