import type { IncomingMessage } from "node:http";
import { AuthenticationFailure, type AuthenticationResult, type RequestAuthenticator, type TokenAuthenticator } from "./types.js";

/**
 * upstream `request/bearertoken`: `Authorization: Bearer <token>` is tried against each token
 * authenticator in order. A request without that header (or with another scheme) is left to the
 * next authenticator; a bearer token no authenticator accepts is a 401, as is an empty one.
 */
export function bearerTokenAuthenticator(tokens: readonly TokenAuthenticator[]): RequestAuthenticator {
  return {
    async authenticateRequest(req: IncomingMessage): Promise<AuthenticationResult | undefined> {
      const header = req.headers.authorization?.trim();
      if (header === undefined) return undefined;
      const parts = header.split(" ");
      if (parts.length < 2 || parts[0]!.toLowerCase() !== "bearer") return undefined;
      const token = parts[1]!;
      if (token === "") throw new AuthenticationFailure("invalid bearer token");
      const failures: string[] = [];
      for (const authenticator of tokens) {
        try {
          const result = await authenticator.authenticateToken(token);
          if (result !== undefined) return result;
        } catch (error) {
          if (!(error instanceof AuthenticationFailure)) throw error;
          failures.push(error.message);
        }
      }
      throw new AuthenticationFailure(failures.length > 0 ? failures.join(", ") : "invalid bearer token");
    },
  };
}
