import { badRequest } from "../api/errors/index.js";
import type { KubeObject } from "../api/types.js";
import type { UserInfo } from "./user.js";
import { AuthenticationFailure, type AuthenticationResult } from "./types.js";

export interface TokenReview extends KubeObject {
  spec?: { token?: string; audiences?: string[] };
  status?: {
    authenticated?: boolean;
    user?: { username?: string; uid?: string; groups?: string[]; extra?: Record<string, string[]> };
    audiences?: string[];
    error?: string;
  };
}

/** The user as a TokenReview or SelfSubjectReview reports it (`authentication.k8s.io/v1` UserInfo). */
export function reviewUserInfo(user: UserInfo): NonNullable<NonNullable<TokenReview["status"]>["user"]> {
  return {
    username: user.name,
    ...(user.uid ? { uid: user.uid } : {}),
    groups: [...user.groups],
    ...(user.extra && Object.keys(user.extra).length > 0 ? { extra: user.extra } : {}),
  };
}

/**
 * upstream `tokenreview.REST.Create`: runs `token` through the server's token authenticators (for
 * `spec.audiences`, default the API audiences) and reports the user, or why it is not one. An
 * invalid token is an answer (`authenticated: false`), not an error.
 */
export async function reviewToken(
  review: TokenReview,
  authenticate: (token: string, audiences: readonly string[] | undefined) => Promise<AuthenticationResult | undefined>,
): Promise<TokenReview> {
  const token = review.spec?.token;
  if (typeof token !== "string" || token === "") throw badRequest("token is required for TokenReview in authentication");
  const audiences = Array.isArray(review.spec?.audiences) ? review.spec.audiences : undefined;
  let status: NonNullable<TokenReview["status"]>;
  try {
    const result = await authenticate(token, audiences);
    status =
      result === undefined
        ? { authenticated: false, user: {}, error: "invalid bearer token" }
        : { authenticated: true, user: reviewUserInfo(result.user), ...(result.audiences ? { audiences: result.audiences } : {}) };
  } catch (error) {
    if (!(error instanceof AuthenticationFailure)) throw error;
    status = { authenticated: false, user: {}, error: error.message };
  }
  return {
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenReview",
    metadata: { ...(review.metadata ?? {}) },
    spec: review.spec ?? {},
    status,
  };
}
