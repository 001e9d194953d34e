import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import {
  loadOrCreateServiceAccountKeyFiles,
  loadOrCreateServingPki,
  rotateServiceAccountKeys,
  type ControlPlaneOptions,
} from "@kubekit/generic-controlplane";
import type { SecurityOptions } from "./options.js";

/** What the security flags turn into: the control plane's TLS, authentication and token options, and what the kubeconfig carries. */
export type SecuritySettings = Pick<ControlPlaneOptions, "tls" | "authentication" | "serviceAccountTokens" | "kubeconfigCredentials">;

/**
 * TLS by default: a CA, a serving certificate (localhost, 127.0.0.1, ::1 and `--tls-san` names) and
 * an admin client certificate (kubernetes-admin in system:masters) kept in `--cert-dir` and reused,
 * or the user's `--tls-cert-file`/`--tls-private-key-file`. Clients authenticate with certificates
 * from the generated CA (and `--client-ca-file`'s), the token file or service account tokens signed
 * with the key in `--cert-dir` (or `--service-account-signing-key-file`).
 */
export async function securitySettings(options: SecurityOptions): Promise<SecuritySettings> {
  if (options.insecureHttp) return {};
  const certDir = resolve(options.certDir);
  const pki = await loadOrCreateServingPki(certDir, options.tlsSans);
  const userServing =
    options.tlsCertFile !== undefined && options.tlsPrivateKeyFile !== undefined
      ? { cert: await readFile(options.tlsCertFile, "utf8"), key: await readFile(options.tlsPrivateKeyFile, "utf8") }
      : undefined;
  const clientCA = pki.ca.cert + (options.clientCaFile === undefined ? "" : `\n${await readFile(options.clientCaFile, "utf8")}`);

  let keys: { signingKey: string; verificationKeys: string[] };
  if (options.serviceAccountSigningKeyFile !== undefined)
    keys = { signingKey: await readFile(options.serviceAccountSigningKeyFile, "utf8"), verificationKeys: [] };
  else if (options.rotateServiceAccountKey) keys = await rotateServiceAccountKeys(certDir);
  else keys = await loadOrCreateServiceAccountKeyFiles(certDir);
  for (const file of options.serviceAccountKeyFiles) keys.verificationKeys.push(await readFile(file, "utf8"));

  return {
    tls: { ...(userServing ?? pki.serving), clientCA },
    authentication: {
      ...(options.tokenAuthFile === undefined ? {} : { tokenFile: await readFile(options.tokenAuthFile, "utf8") }),
      ...(options.anonymousAuth ? {} : { anonymous: false as const }),
    },
    serviceAccountTokens: {
      signingKey: keys.signingKey,
      verificationKeys: keys.verificationKeys,
      ...(options.serviceAccountIssuers.length > 0 ? { issuers: options.serviceAccountIssuers } : {}),
      ...(options.apiAudiences.length > 0 ? { apiAudiences: options.apiAudiences } : {}),
      ...(options.serviceAccountMaxTokenExpiration > 0
        ? { maxExpirationSeconds: Math.floor(options.serviceAccountMaxTokenExpiration / 1000) }
        : {}),
    },
    // With the user's serving certificate the client trusts the system's CAs; with the generated one, ours.
    kubeconfigCredentials: {
      ...(userServing ? {} : { certificateAuthority: pki.ca.cert }),
      clientCertificate: pki.admin.cert,
      clientKey: pki.admin.key,
    },
  };
}
