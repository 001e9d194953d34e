import { unauthorized } from "../../api/errors/index.js";
import { AuthenticationFailure } from "../../authn/types.js";
import type { RequestContext } from "../context.js";
import { ANONYMOUS, type UserInfo } from "../access-reviews.js";
import type { RequestFilter } from "./chain.js";

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
  return {
    name: "authentication",
    async handle(ctx, next) {
      if (authenticate) {
        try {
          ctx.user = (await authenticate(ctx)) ?? ANONYMOUS;
        } catch (error) {
          if (error instanceof AuthenticationFailure) throw unauthorized("Unauthorized");
          throw error;
        }
        delete ctx.req.headers.authorization;
      }
      await next();
    },
  };
}
