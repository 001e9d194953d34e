import { request } from "node:https";
import { createCertificateAuthority, issueClientCertificate, issueServingCertificate, type CertificateAndKey } from "../certs/authority.js";
import { createControlPlane, type ControlPlane, type ControlPlaneOptions } from "../control-plane.js";

export interface Reply {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read arbitrary response shapes
  json: any;
  text: string;
  headers: Record<string, string | string[] | undefined>;
}

export interface Credentials {
  client?: CertificateAndKey;
  token?: string;
  headers?: Record<string, string | string[]>;
}

/** An HTTPS request trusting `ca`, with a client certificate and/or bearer token. */
export function httpsCall(
  url: string,
  ca: string,
  method: string,
  path: string,
  credentials: Credentials = {},
  body?: unknown,
): Promise<Reply> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const headers: Record<string, string | string[]> = { Accept: "application/json", ...(credentials.headers ?? {}) };
  if (credentials.token !== undefined) headers["Authorization"] = `Bearer ${credentials.token}`;
  if (payload !== undefined) headers["Content-Type"] = "application/json";
  return new Promise((resolve, reject) => {
    const req = request(url + path, { method, headers, ca, ...(credentials.client ?? {}), agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        const text = Buffer.concat(chunks).toString();
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, json, text, headers: res.headers });
      });
    });
    req.on("error", reject);
    req.end(payload);
  });
}

export interface SecurePlane {
  plane: ControlPlane;
  ca: CertificateAndKey;
  admin: CertificateAndKey;
  call(method: string, path: string, credentials?: Credentials, body?: unknown): Promise<Reply>;
  /** The same call with the admin client certificate. */
  asAdmin(method: string, path: string, body?: unknown, headers?: Record<string, string | string[]>): Promise<Reply>;
  close(): Promise<void>;
}

/**
 * A control plane over HTTPS with a fresh CA (or `ca`, e.g. one the options sign with too),
 * client-certificate authentication and the given options.
 */
export async function startSecurePlane(options: ControlPlaneOptions = {}, ca?: CertificateAndKey): Promise<SecurePlane> {
  ca ??= await createCertificateAuthority("kubernetes");
  const serving = await issueServingCertificate(ca, "kube-apiserver", ["localhost", "127.0.0.1", "::1"]);
  const admin = await issueClientCertificate(ca, { name: "kubernetes-admin", groups: ["system:masters"] });
  const plane = await createControlPlane({
    port: 0,
    host: "127.0.0.1",
    processMetrics: false,
    // No `authentication` option: the client CA turns authentication on.
    tls: { cert: serving.cert, key: serving.key, clientCA: ca.cert },
    kubeconfigCredentials: { certificateAuthority: ca.cert, clientCertificate: admin.cert, clientKey: admin.key },
    ...options,
  });
  const call = (method: string, path: string, credentials: Credentials = {}, body?: unknown) =>
    httpsCall(plane.url, ca.cert, method, path, credentials, body);
  return {
    plane,
    ca,
    admin,
    call,
    asAdmin: (method, path, body, headers) => call(method, path, { client: admin, ...(headers ? { headers } : {}) }, body),
    close: () => plane.close(),
  };
}
