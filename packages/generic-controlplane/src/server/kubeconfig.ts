import { stringify } from "yaml";

/** What a kubeconfig carries beyond the server URL, all PEM text or a token. */
export interface KubeconfigCredentials {
  /** The CA that signed the serving certificate (`certificate-authority-data`). */
  certificateAuthority?: string;
  /** A client certificate and its key (`client-certificate-data`, `client-key-data`). */
  clientCertificate?: string;
  clientKey?: string;
  /** A bearer token (`token`). */
  token?: string;
}

const base64 = (pem: string) => Buffer.from(pem).toString("base64");

/**
 * A kubeconfig for the server: one cluster, one user and one context, all named `name`, with
 * `namespace` as the context's default namespace. Credentials are embedded as `*-data`, so the
 * file is all a client needs.
 */
export function kubeconfigFor(url: string, name: string, namespace = "default", credentials: KubeconfigCredentials = {}): string {
  const cluster: Record<string, unknown> = { server: url };
  if (credentials.certificateAuthority !== undefined) cluster["certificate-authority-data"] = base64(credentials.certificateAuthority);
  // client-node 2.x refuses plain http unless TLS verification is declared skipped; kubectl and python accept it.
  else if (url.startsWith("http://")) cluster["insecure-skip-tls-verify"] = true;
  const user: Record<string, unknown> = {};
  if (credentials.clientCertificate !== undefined) user["client-certificate-data"] = base64(credentials.clientCertificate);
  if (credentials.clientKey !== undefined) user["client-key-data"] = base64(credentials.clientKey);
  if (credentials.token !== undefined) user["token"] = credentials.token;
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    preferences: {},
    clusters: [{ name, cluster }],
    users: [{ name, user }],
    contexts: [{ name, context: { cluster: name, user: name, namespace } }],
    "current-context": name,
  });
}
