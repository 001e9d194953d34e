import type { Readable } from "node:stream";

/** One request of a `KubeClient` as it would go on the wire, handed to a `Transport` instead. */
export interface TransportRequest {
  method: string;
  /** Path (under the server URL's path) and query, as in the request line: `/api/v1/namespaces/a/pods?limit=500`. */
  target: string;
  /** The headers the client would send (`Host`, `Accept`, `Authorization`, `User-Agent`, `Content-Type`, `Content-Length`). */
  headers: Record<string, string>;
  /** The encoded request body, if any. */
  body?: Buffer;
  /**
   * The caller's signal. Once it aborts, the transport rejects with an `AbortError` (before an
   * answer) or destroys the answer's body with one (after), and ends the request at the server.
   */
  signal?: AbortSignal;
}

/** The server's answer to a `TransportRequest`. */
export interface TransportResponse {
  statusCode: number;
  /** Header names in lower case, as `node:http` gives them. */
  headers: Record<string, string | string[] | undefined>;
  /**
   * The body as it streams in; it ends when the server ends the response. Destroying it ends the
   * request at the server as a closed connection would (a watch's `stop()` does).
   */
  body: Readable;
}

/**
 * Carries a client's requests instead of `node:http(s)`, e.g. straight into an API server in the
 * same process (`@kubekit/generic-controlplane`'s `inProcessTransport`). The client still builds
 * every request (path, query, credentials, body) and reads every answer (JSON, watch lines,
 * `ApiError`) itself; TLS, proxy and client-certificate settings do not apply.
 */
export type Transport = (request: TransportRequest) => Promise<TransportResponse>;
