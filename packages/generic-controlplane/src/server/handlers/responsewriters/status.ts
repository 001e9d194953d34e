import { internalError } from "../../../api/errors/index.js";
import { isControlPlaneError } from "../../../api/errors/control-plane-error.js";
import type { Status } from "../../../api/types.js";
import type { RequestContext } from "../../context.js";

/** Writes any error as a kube `Status` (JSON, which every client accepts, protobuf ones included). */
export function writeError(ctx: RequestContext, error: unknown): void {
  const status = toStatus(error);
  writeStatus(ctx, status);
}

export function toStatus(error: unknown): Status {
  if (isControlPlaneError(error)) return inWireOrder(error.toStatus());
  return inWireOrder(internalError(error).toStatus());
}

/** metav1.Status in Go field order (kind, apiVersion, metadata, status, message, reason, details, code), as clients compare bytes. */
function inWireOrder(status: Status): Status {
  const ordered: Partial<Status> = { kind: status.kind, apiVersion: status.apiVersion, metadata: status.metadata, status: status.status };
  if (status.message !== undefined) ordered.message = status.message;
  if (status.reason !== undefined) ordered.reason = status.reason;
  if (status.details !== undefined) {
    const { name, group, kind, uid, causes, retryAfterSeconds } = status.details;
    const details: NonNullable<Status["details"]> = {};
    if (name !== undefined) details.name = name;
    if (group !== undefined) details.group = group;
    if (kind !== undefined) details.kind = kind;
    if (uid !== undefined) details.uid = uid;
    if (causes !== undefined)
      details.causes = causes.map((c) => ({
        ...(c.reason === undefined ? {} : { reason: c.reason }),
        ...(c.message === undefined ? {} : { message: c.message }),
        ...(c.field === undefined ? {} : { field: c.field }),
      }));
    if (retryAfterSeconds !== undefined) details.retryAfterSeconds = retryAfterSeconds;
    ordered.details = details;
  }
  ordered.code = status.code;
  return ordered as Status;
}

export function writeStatus(ctx: RequestContext, status: Status): void {
  const { res } = ctx;
  if (res.headersSent) {
    res.end();
    return;
  }
  // json.Encoder ends every body with a newline.
  const body = JSON.stringify(status) + "\n";
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

/** Quotes a warning the way kube-apiserver's Warning header does: `299 - "text"`. */
export function warningHeader(text: string): string {
  const escaped = text
    .replace(/\\/g, "\\\\")
    .replace(/"/g, '\\"')
    // A header value must stay printable ASCII: field names from a request body may not be.
    .replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
  return `299 - "${escaped}"`;
}
