import type { RequestContext } from "../context.js";
import type { UserInfo } from "../access-reviews.js";
import type { RequestFilter } from "./chain.js";

/** Says who sent a request; `undefined` leaves it anonymous. */
export type Authenticate = (ctx: RequestContext) => UserInfo | undefined | Promise<UserInfo | undefined>;

/**
 * upstream `WithAuthentication`: sets `ctx.user` for the stages after it (flow control classifies
 * by user). Without an authenticator every request is `system:anonymous`, as kube-apiserver with
 * anonymous auth and no other authenticator.
 */
export function withAuthentication(authenticate: Authenticate | undefined): RequestFilter {
  return {
    name: "authentication",
    async handle(ctx, next) {
      if (authenticate) ctx.user = (await authenticate(ctx)) ?? undefined;
      await next();
    },
  };
}
