import type { IncomingMessage, ServerResponse } from "node:http";
import type { Readable } from "node:stream";
import type { Transport, TransportRequest, TransportResponse } from "@kubekit/client";
import inject from "light-my-request";

/** What an in-process transport hands requests to: an `ApiServer`, or anything with its `handle`. */
export interface RequestHandler {
  /** Serves one request, as a `node:http` server's request listener. */
  handle(req: IncomingMessage, res: ServerResponse): Promise<void> | void;
}

/** The loopback address a request through the transport comes from, as a loopback connection's would. */
const LOOPBACK_ADDRESS = "127.0.0.1";

/**
 * A `@kubekit/client` transport into `server.handle` in this process: each request is a simulated
 * `IncomingMessage`/`ServerResponse` pair (light-my-request) instead of an HTTP exchange over a
 * socket, and passes every filter an HTTP request does (authentication of its bearer token,
 * audit, flow control, authorization, admission). The answer streams as the server writes it, so
 * a watch delivers each event at once; destroying the body (a watch's `stop()`), or aborting the
 * request's signal, closes the server's response as a dropped connection would.
 */
export function inProcessTransport(server: RequestHandler): Transport {
  return (request) => send(server, request);
}

function send(server: RequestHandler, request: TransportRequest): Promise<TransportResponse> {
  const { signal } = request;
  if (signal?.aborted) return Promise.reject(abortError(signal));
  return new Promise((resolve, reject) => {
    let served: { req: IncomingMessage; res: ServerResponse } | undefined;
    let body: Readable | undefined;
    const onAbort = (): void => {
      const error = abortError(signal!);
      if (body !== undefined) body.destroy(error);
      else reject(error);
      hangUp();
    };
    // What the server sees when a client goes away before its answer ended: the request and its response close.
    const hangUp = (): void => {
      signal?.removeEventListener("abort", onAbort);
      if (served === undefined || served.res.writableEnded) return;
      served.req.destroy();
      served.res.destroy();
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    inject(
      (req, res) => {
        served = { req, res };
        void server.handle(req, res);
      },
      {
        method: request.method,
        url: request.target,
        // Without a User-Agent the simulated request would name light-my-request in one.
        headers: { "user-agent": undefined, ...request.headers },
        ...(request.body !== undefined ? { payload: request.body } : {}),
        remoteAddress: LOOPBACK_ADDRESS,
        payloadAsStream: true,
        validate: false,
      },
      (error, answer) => {
        if (error || answer === undefined) {
          hangUp();
          reject(error ?? new Error("the in-process request ended without an answer"));
          return;
        }
        body = answer.stream();
        body.once("close", hangUp);
        resolve({ statusCode: answer.statusCode, headers: answer.headers as TransportResponse["headers"], body });
      },
    );
  });
}

/** The error node:http rejects an aborted request with. */
function abortError(signal: AbortSignal): Error {
  return Object.assign(new Error("The operation was aborted", { cause: signal.reason }), { name: "AbortError", code: "ABORT_ERR" });
}
