import { request as httpsRequest } from "node:https";
import type { IncomingMessage } from "node:http";
import { isIP } from "node:net";
import type { PeerCertificate } from "node:tls";
import { genericServerResponse, unknownServerResponse } from "../api/errors/index.js";
import type { Status } from "../api/types.js";
import { defaultServiceResolver, serviceServerName, type ServiceResolver, type WebhookClientConfig } from "./client-config.js";
import { parseExactJson, stringifyExactJson } from "../api/exact-json.js";

/** Largest webhook answer read (upstream bounds responses too; a runaway webhook must not exhaust memory). */
const MAX_RESPONSE_BYTES = 30 * 1024 * 1024;

export interface WebhookCallOptions {
  /** The call's deadline; also sent as the `timeout` query parameter, as client-go's rest client does. */
  timeoutMs: number;
  /** Resolves `service` client configs; default the cluster DNS name. */
  resolver?: ServiceResolver;
  /** Ends the call early (e.g. the request that needed it went away). */
  signal?: AbortSignal;
}

/**
 * Why a call failed, worded as Go's HTTP client and client-go word it (`Post "<url>": context
 * deadline exceeded`), so callers can wrap it the way upstream does
 * (`failed calling webhook "x": failed to call webhook: ...`, `conversion webhook for ... failed: ...`).
 * `status` is set when the webhook answered with a kube Status or an HTTP error.
 */
export class WebhookCallError extends Error {
  override readonly name = "WebhookCallError";
  readonly status: Status | undefined;
  /** True when the deadline passed before an answer arrived. */
  readonly timedOut: boolean;

  constructor(message: string, options: { status?: Status; timedOut?: boolean; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = options.status;
    this.timedOut = options.timedOut === true;
  }
}

/** Go's `time.Duration` text for whole milliseconds: `10s`, `1.5s`, `250ms`. */
function goDuration(ms: number): string {
  if (ms >= 1000) return `${ms / 1000}s`;
  return `${ms}ms`;
}

interface Endpoint {
  url: URL;
  /** Go keeps an explicit `:443` in a resolved service URL, which WHATWG URLs drop; errors print it as Go does. */
  keepsDefaultPort: boolean;
  /** The name the serving certificate is checked against. */
  serverName: string;
  ca: string | undefined;
}

async function endpointOf(config: WebhookClientConfig, resolver: ServiceResolver): Promise<Endpoint> {
  const ca = config.caBundle ? Buffer.from(config.caBundle, "base64").toString("utf8") : undefined;
  if (config.url !== undefined && config.service === undefined) {
    const url = new URL(config.url);
    if (url.protocol !== "https:")
      throw new WebhookCallError(`unsupported scheme ${JSON.stringify(url.protocol.slice(0, -1))}: webhooks are called over https`);
    return { url, keepsDefaultPort: false, serverName: url.hostname.replace(/^\[|\]$/g, ""), ca };
  }
  if (config.service !== undefined && config.url === undefined) {
    const service = config.service;
    let base: URL;
    try {
      base = await resolver.resolveEndpoint(service.namespace, service.name, service.port ?? 443);
    } catch (error) {
      throw new WebhookCallError(error instanceof Error ? error.message : String(error), { cause: error });
    }
    const url = new URL(base.href);
    url.pathname = service.path ?? "/";
    return { url, keepsDefaultPort: true, serverName: serviceServerName(service), ca };
  }
  throw new WebhookCallError("exactly one of url and service must be set in the webhook client config");
}

/** The text of a transport failure as Go's net and crypto/tls packages give it (shared with the aggregator's proxy and health checks). */
export function transportMessage(
  error: NodeJS.ErrnoException & { address?: string; port?: number; cert?: PeerCertificate; host?: string },
  url: URL,
): string {
  const address = `${error.address ?? url.hostname}:${error.port ?? url.port}`;
  switch (error.code) {
    case "ECONNREFUSED":
      return `dial tcp ${address}: connect: connection refused`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `dial tcp: lookup ${url.hostname}: no such host`;
    case "ECONNRESET":
      return `read tcp ${address}: read: connection reset by peer`;
    case "UNABLE_TO_VERIFY_LEAF_SIGNATURE":
    case "UNABLE_TO_GET_ISSUER_CERT_LOCALLY":
    case "SELF_SIGNED_CERT_IN_CHAIN":
    case "DEPTH_ZERO_SELF_SIGNED_CERT":
    case "CERT_SIGNATURE_FAILURE":
      return "tls: failed to verify certificate: x509: certificate signed by unknown authority";
    case "CERT_HAS_EXPIRED":
    case "CERT_NOT_YET_VALID":
      return "tls: failed to verify certificate: x509: certificate has expired or is not yet valid";
    case "ERR_TLS_CERT_ALTNAME_INVALID": {
      const names = (error.cert?.subjectaltname ?? "")
        .split(", ")
        .filter((entry) => entry !== "")
        .map((entry) => entry.replace(/^(DNS|IP Address):/, ""));
      return `tls: failed to verify certificate: x509: certificate is valid for ${names.join(", ")}, not ${error.host ?? url.hostname}`;
    }
    default:
      return error.message;
  }
}

function readBody(res: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    res.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_RESPONSE_BYTES) {
        res.destroy(new Error(`response body larger than ${MAX_RESPONSE_BYTES} bytes`));
        return;
      }
      chunks.push(chunk);
    });
    res.on("end", () => resolve(Buffer.concat(chunks)));
    res.on("error", reject);
  });
}

function isStatus(value: unknown): value is Status {
  return value !== null && typeof value === "object" && (value as { kind?: unknown }).kind === "Status";
}

/** What client-go makes of a non-2xx answer: the Status the body carries, else one from the HTTP code. */
function statusOfErrorResponse(code: number, body: string): Status {
  try {
    const parsed: unknown = parseExactJson(body);
    if (isStatus(parsed)) return parsed;
  } catch {
    // Not JSON: the generic Status below.
  }
  try {
    return genericServerResponse({ code, verb: "POST", serverMessage: body, isUnexpectedResponse: true }).toStatus();
  } catch {
    return unknownServerResponse(code);
  }
}

/**
 * POSTs `body` as JSON to the webhook `config` names and returns its parsed JSON answer
 * (k8s.io/apiserver's `util/webhook` client): https only, the serving certificate checked against
 * `caBundle` (or the system roots) for the URL's host or the Service's DNS name, and the whole call
 * bounded by `timeoutMs`. Failures are WebhookCallErrors; the caller decides what they mean
 * (failurePolicy, conversion errors).
 */
export async function callWebhook(config: WebhookClientConfig, body: unknown, options: WebhookCallOptions): Promise<unknown> {
  const endpoint = await endpointOf(config, options.resolver ?? defaultServiceResolver);
  const url = new URL(endpoint.url.href);
  url.searchParams.set("timeout", goDuration(options.timeoutMs));
  // Go prints the URL the client requested.
  const shown = endpoint.keepsDefaultPort && url.port === "" ? `${url.protocol}//${url.host}:443${url.pathname}${url.search}` : url.href;
  const requested = `Post ${JSON.stringify(shown)}`;
  const payload = Buffer.from(stringifyExactJson(body));
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([deadline, options.signal]) : deadline;

  return new Promise<unknown>((resolve, reject) => {
    const fail = (message: string, extra: { status?: Status; timedOut?: boolean; cause?: unknown } = {}) =>
      reject(new WebhookCallError(message, extra));
    const req = httpsRequest(
      url,
      {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json, */*", "Content-Length": payload.length },
        ...(endpoint.ca === undefined ? {} : { ca: endpoint.ca }),
        // SNI carries host names only; an IP address is still checked against the certificate's IP SANs.
        ...(isIP(endpoint.serverName) === 0 ? { servername: endpoint.serverName } : {}),
        // A fresh connection per call: nothing lingers after the caller is done, and a changed
        // caBundle applies to the very next call.
        agent: false,
        signal,
      },
      (res) => {
        readBody(res).then(
          (raw) => {
            const text = raw.toString("utf8");
            const code = res.statusCode ?? 0;
            if (code < 200 || code > 299) {
              const status = statusOfErrorResponse(code, text);
              fail(status.message ?? `HTTP ${code}`, { status });
              return;
            }
            try {
              resolve(parseExactJson(text));
            } catch (error) {
              fail(`${requested}: invalid JSON in the response: ${error instanceof Error ? error.message : String(error)}`, {
                cause: error,
              });
            }
          },
          (error: unknown) => {
            if (deadline.aborted) fail(`${requested}: context deadline exceeded`, { timedOut: true, cause: error });
            else fail(`${requested}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
          },
        );
      },
    );
    req.on("error", (error: NodeJS.ErrnoException) => {
      if (deadline.aborted) fail(`${requested}: context deadline exceeded`, { timedOut: true, cause: error });
      else if (signal.aborted) fail(`${requested}: context canceled`, { cause: error });
      else fail(`${requested}: ${transportMessage(error, url)}`, { cause: error });
    });
    req.end(payload);
  });
}
