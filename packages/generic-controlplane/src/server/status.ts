import { ControlPlaneError, isControlPlaneError } from "../errors.js";
import type { Status } from "../api/types.js";
import type { RequestContext } from "./context.js";

/** Writes any error as a kube `Status` (JSON, which every client accepts, protobuf ones included). */
export function writeError(ctx: RequestContext, error: unknown): void {
  const status = toStatus(error);
  writeStatus(ctx, status);
}

export function toStatus(error: unknown): Status {
  if (isControlPlaneError(error)) return error.toStatus();
  const message = error instanceof Error ? error.message : String(error);
  return new ControlPlaneError("InternalError", `Internal error occurred: ${message}`).toStatus();
}

export function writeStatus(ctx: RequestContext, status: Status): void {
  const { res } = ctx;
  if (res.headersSent) {
    res.end();
    return;
  }
  const body = JSON.stringify(status);
  const headers: Record<string, string | string[] | number> = {
    "Content-Type": "application/json",
    "Cache-Control": "no-cache, private",
    "Content-Length": Buffer.byteLength(body),
  };
  if (ctx.warnings.length > 0) headers["Warning"] = ctx.warnings;
  const retryAfter = status.details?.retryAfterSeconds;
  if (retryAfter !== undefined) headers["Retry-After"] = String(retryAfter);
  res.writeHead(status.code, headers);
  res.end(ctx.method === "HEAD" ? undefined : body);
}

export function badRequest(message: string): ControlPlaneError {
  return new ControlPlaneError("BadRequest", message);
}

export function notAcceptable(): ControlPlaneError {
  return new ControlPlaneError("NotAcceptable", "only the following media types are accepted: application/json, application/yaml, application/vnd.kubernetes.protobuf");
}

export function methodNotAllowed(method: string, path: string): ControlPlaneError {
  return new ControlPlaneError("MethodNotAllowed", `the server does not allow this method on the requested resource (${method} ${path})`);
}

/** The 404 kube-apiserver gives for a path it does not serve at all. */
export function pathNotFound(): ControlPlaneError {
  return new ControlPlaneError("NotFound", "the server could not find the requested resource");
}

/** Quotes a warning the way kube-apiserver's Warning header does: `299 - "text"`. */
export function warningHeader(text: string): string {
  const escaped = text.replace(/\\/g, "\\\\").replace(/"/g, '\\"');
  return `299 - "${escaped}"`;
}
