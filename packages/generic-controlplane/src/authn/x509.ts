import type { IncomingMessage } from "node:http";
import type { TLSSocket } from "node:tls";
import { AuthenticationFailure, type AuthenticationResult, type RequestAuthenticator } from "./types.js";

const EXT_KEY_USAGE_CLIENT_AUTH = "1.3.6.1.5.5.7.3.2";

function asList(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

/**
 * upstream `request/x509`: a client certificate verified against the client CA authenticates its
 * subject's CommonName as the user and its Organizations as the groups. The TLS server asks for
 * certificates without requiring them (`requestCert`), so a request without one falls through to the
 * other authenticators; one that does not verify (another CA, expired, not for client auth) is a 401.
 */
export function x509Authenticator(): RequestAuthenticator {
  return {
    authenticateRequest(req: IncomingMessage): Promise<AuthenticationResult | undefined> {
      const socket = req.socket as Partial<TLSSocket>;
      if (typeof socket.getPeerCertificate !== "function") return Promise.resolve(undefined);
      const peer = socket.getPeerCertificate();
      if (peer === null || peer === undefined || Object.keys(peer).length === 0) return Promise.resolve(undefined);
      if (socket.authorized !== true) {
        return Promise.reject(
          new AuthenticationFailure(
            `verifying certificate ${describe(peer.subject?.CN, peer.serialNumber)} failed: ${String(socket.authorizationError ?? "unknown authority")}`,
          ),
        );
      }
      const usages = peer.ext_key_usage;
      if (usages !== undefined && !usages.includes(EXT_KEY_USAGE_CLIENT_AUTH)) {
        return Promise.reject(
          new AuthenticationFailure(
            `verifying certificate ${describe(peer.subject?.CN, peer.serialNumber)} failed: x509: certificate specifies an incompatible key usage`,
          ),
        );
      }
      const name = asList(peer.subject?.CN)[0] ?? "";
      if (name === "") return Promise.reject(new AuthenticationFailure("x509: client certificate has no common name"));
      return Promise.resolve({ user: { name, groups: asList(peer.subject?.O) } });
    },
  };
}

function describe(commonName: string | string[] | undefined, serial: string | undefined): string {
  return `SN=${serial ?? ""}, CN=${asList(commonName)[0] ?? ""}`;
}
