import { request as httpsRequest, type RequestOptions } from "node:https";
import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";
import { defaultServiceResolver, type ServiceResolver } from "../webhook/client-config.js";
import { transportMessage } from "../webhook/client.js";
import type { APIService } from "./types.js";

/** Where an APIService's extension server listens and how its certificate is checked. */
export interface RemoteEndpoint {
  /** `https://host:port` of the resolved service. */
  base: URL;
  /** `<name>.<namespace>.svc`: the name the serving certificate must carry. */
  serverName: string;
  ca: string | undefined;
  insecureSkipTLSVerify: boolean;
}

/** The reason and message of an APIService whose service cannot be resolved (upstream `ServiceNotFound`). */
export class ServiceNotFoundError extends Error {
  override readonly name = "ServiceNotFoundError";
}

export async function resolveRemote(apiService: APIService, resolver: ServiceResolver = defaultServiceResolver): Promise<RemoteEndpoint> {
  const spec = apiService.spec ?? {};
  const service = spec.service ?? {};
  const namespace = service.namespace ?? "";
  const name = service.name ?? "";
  let base: URL;
  try {
    base = await resolver.resolveEndpoint(namespace, name, service.port ?? 443);
  } catch (error) {
    throw new ServiceNotFoundError(`service/${name} in ${JSON.stringify(namespace)} is not present`, { cause: error });
  }
  return {
    base,
    serverName: `${name}.${namespace}.svc`,
    ca: spec.caBundle ? Buffer.from(spec.caBundle, "base64").toString("utf8") : undefined,
    insecureSkipTLSVerify: spec.insecureSkipTLSVerify === true,
  };
}

/** TLS options of a connection to `endpoint`: its CA (or none checked with insecureSkipTLSVerify) and the service's name. */
export function tlsOptions(
  endpoint: RemoteEndpoint,
): Pick<RequestOptions, "ca" | "servername" | "rejectUnauthorized" | "checkServerIdentity"> {
  const options: Pick<RequestOptions, "ca" | "servername" | "rejectUnauthorized" | "checkServerIdentity"> = {};
  if (endpoint.insecureSkipTLSVerify) options.rejectUnauthorized = false;
  else if (endpoint.ca !== undefined) options.ca = endpoint.ca;
  if (isIP(endpoint.serverName) === 0) options.servername = endpoint.serverName;
  return options;
}

/** The headers an extension server trusts to name the user (upstream's request-header authentication). */
export function remoteUserHeaders(user: {
  name: string;
  groups: readonly string[];
  uid?: string | undefined;
  extra?: Record<string, string[]> | undefined;
}): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = { "X-Remote-User": user.name };
  if (user.groups.length > 0) headers["X-Remote-Group"] = [...user.groups];
  if (user.uid) headers["X-Remote-Uid"] = user.uid;
  for (const [key, values] of Object.entries(user.extra ?? {})) headers[`X-Remote-Extra-${encodeURIComponent(key)}`] = values;
  return headers;
}

/**
 * GETs `path` from the extension server as `system:kube-aggregator` in `system:masters` (as the
 * availability controller does) and returns the status and body; transport failures are thrown
 * worded as Go's client words them (`Get "<url>": ...`).
 */
export function getFromRemote(endpoint: RemoteEndpoint, path: string, timeoutMs: number): Promise<{ status: number; body: Buffer }> {
  const url = new URL(path, endpoint.base);
  const shown = `Get ${JSON.stringify(url.port === "" ? `${url.protocol}//${url.host}:443${url.pathname}` : url.href)}`;
  const deadline = AbortSignal.timeout(timeoutMs);
  return new Promise((resolve, reject) => {
    const req = httpsRequest(
      url,
      {
        method: "GET",
        headers: { Accept: "application/json", ...remoteUserHeaders({ name: "system:kube-aggregator", groups: ["system:masters"] }) },
        agent: false,
        signal: deadline,
        ...tlsOptions(endpoint),
      },
      (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on("error", (error) => reject(new Error(`${shown}: ${error.message}`)));
      },
    );
    req.on("error", (error: NodeJS.ErrnoException) => {
      reject(new Error(`${shown}: ${deadline.aborted ? "context deadline exceeded" : transportMessage(error, url)}`));
    });
    req.end();
  });
}
