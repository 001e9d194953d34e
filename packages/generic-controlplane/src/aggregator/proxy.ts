import { request as httpsRequest } from "node:https";
import type { OutgoingHttpHeaders } from "node:http";
import { readBody } from "../server/body.js";
import type { RequestContext } from "../server/context.js";
import type { HandlerStage } from "../server/filters/stages.js";
import { isLongRunning, isMutating } from "../server/filters/long-running.js";
import type { AvailabilityController, RemoteGroupVersion } from "./availability.js";
import { remoteUserHeaders, tlsOptions } from "./remote.js";

/** Headers never passed on: hop-by-hop ones, and the caller's credentials and identity claims (the proxy states who the user is). */
const DROPPED = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
  "te",
  "trailer",
  "host",
  "authorization",
  "content-length",
]);
const isIdentityHeader = (name: string) => name.startsWith("impersonate-") || name.startsWith("x-remote-");

/** Answers as upstream's `proxyError` does: a plain-text body with the status (`http.Error`). */
function plainError(ctx: RequestContext, code: number, text: string): void {
  if (ctx.res.headersSent) {
    ctx.res.destroy();
    return;
  }
  ctx.res.writeHead(code, { "Content-Type": "text/plain; charset=utf-8", "X-Content-Type-Options": "nosniff" });
  ctx.res.end(`${text}\n`);
}

/**
 * kube-aggregator's proxy handler: requests under `/apis/<group>/<version>` of a service-backed
 * APIService go to its extension server over TLS (the certificate checked against `caBundle` for
 * `<service>.<namespace>.svc`, or not at all with insecureSkipTLSVerify), the user named in
 * `X-Remote-User`/`X-Remote-Group`/`X-Remote-Extra-*`. Responses, watch streams included, are
 * passed back as they arrive. An unavailable APIService answers 503 `service unavailable`.
 */
export function aggregatorProxyStage(availability: AvailabilityController, options: { maxBodyBytes: number }): HandlerStage {
  return {
    name: "aggregator-proxy",
    handle(ctx) {
      // Every request passes this stage: most are answered here, at once, with "not mine".
      if (!ctx.path.startsWith("/apis/")) return false;
      const segments = ctx.path.split("/");
      if (segments.length < 4 || segments[2] === "" || segments[3] === "") return false;
      const remote = availability.remote(segments[2] ?? "", segments[3] ?? "");
      if (remote === undefined) return false;
      return proxy(ctx, remote, options.maxBodyBytes);
    },
  };
}

async function proxy(ctx: RequestContext, remote: RemoteGroupVersion, maxBodyBytes: number): Promise<true> {
  const endpoint = remote.endpoint;
  if (!remote.available || endpoint === undefined) {
    plainError(ctx, 503, "service unavailable");
    return true;
  }
  const body = isMutating(ctx.info) ? await readBody(ctx.req, maxBodyBytes) : undefined;
  const headers: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(ctx.req.headers)) {
    if (value !== undefined && !DROPPED.has(name) && !isIdentityHeader(name)) headers[name] = value;
  }
  Object.assign(headers, remoteUserHeaders(ctx.user));
  if (body !== undefined) headers["content-length"] = body.length;
  const target = new URL(ctx.req.url ?? "/", endpoint.base);
  const watch = isLongRunning(ctx.info);
  if (watch) ctx.longRunning = true;

  await new Promise<void>((resolve) => {
    const upstream = httpsRequest(target, { method: ctx.method, headers, agent: false, ...tlsOptions(endpoint) }, (response) => {
      const passed: OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(response.headers)) if (value !== undefined && !DROPPED.has(name)) passed[name] = value;
      ctx.res.writeHead(response.statusCode ?? 502, passed);
      if (watch) ctx.res.flushHeaders();
      // A watch has started: it no longer needs the seat flow control gave it.
      ctx.watchInitialized?.();
      response.pipe(ctx.res);
      response.on("end", resolve);
      response.on("error", () => {
        ctx.res.destroy();
        resolve();
      });
    });
    upstream.on("error", (error) => {
      plainError(ctx, 503, error.message);
      resolve();
    });
    // The client went away (a watch ended by the client): so does the upstream request.
    ctx.res.on("close", () => {
      upstream.destroy();
      resolve();
    });
    upstream.end(body);
  });
  return true;
}
