import type { ServerResponse } from "node:http";
import type { AuditBackend } from "../../audit/log-backend.js";
import { evaluateAuditPolicy, type AuditAttributes, type AuditDecision, type AuditPolicy, type AuditStage } from "../../audit/policy.js";
import { bodyIfRead } from "../body.js";
import type { RequestContext } from "../context.js";
import { passThrough, type RequestFilter } from "./chain.js";
import { parseExactJson } from "../../api/exact-json.js";

/** Audit logging: which requests at which level (the policy) and where the events go. */
export interface AuditOptions {
  policy: AuditPolicy;
  backend: AuditBackend;
}

/** Response bytes kept for `responseObject` and failure Statuses; a larger response is logged without its body. */
const MAX_CAPTURED_RESPONSE_BYTES = 1024 * 1024;

type User = NonNullable<RequestContext["user"]>;

/**
 * upstream `WithAudit`, after authentication so events name the user: each request the policy
 * does not level `None` yields audit.k8s.io/v1 Events at `RequestReceived`, `ResponseStarted`
 * (long-running requests, once the response began) and `ResponseComplete`, less the stages the
 * policy omits. `Request` adds the request body, `RequestResponse` the response body too (JSON
 * bodies; others are recorded without them), and a failed request's Status is its
 * `responseStatus` at every level. Without options the stage passes every request on; each
 * response already carries the `Audit-Id` the events are keyed by.
 */
export function withAudit(options?: AuditOptions): RequestFilter {
  if (options === undefined) return passThrough("audit");
  const { policy, backend } = options;
  return {
    name: "audit",
    async handle(ctx, next) {
      const decision = evaluateAuditPolicy(policy, auditAttributes(ctx));
      if (decision.level === "None") return next(ctx);
      const user = ctx.user;
      const received = arrivalTime(ctx);
      const emit = (stage: AuditStage, extra: Record<string, unknown> = {}): void => {
        if (decision.omitStages.includes(stage)) return;
        backend.write({ ...baseEvent(ctx, decision, user, received), stage, stageTimestamp: microTime(new Date()), ...extra });
      };
      emit("RequestReceived");
      const captured = captureResponse(
        ctx.res,
        () => (decision.level === "RequestResponse" && !ctx.longRunning) || ctx.res.statusCode >= 400,
      );
      let started = false;
      const onHeaders = (): void => {
        if (!ctx.longRunning || started) return;
        started = true;
        emit("ResponseStarted", { responseStatus: { metadata: {}, code: ctx.res.statusCode } });
      };
      captured.onHeaders = onHeaders;
      const complete = (): void => {
        void completeEvent(ctx, decision, user, captured.body()).then((extra) => emit("ResponseComplete", extra));
      };
      ctx.res.once("finish", complete);
      ctx.res.once("close", () => {
        if (!ctx.res.writableFinished) complete();
      });
      await next(ctx);
    },
  };
}

function auditAttributes(ctx: RequestContext): AuditAttributes {
  const info = ctx.info;
  if (info?.isResourceRequest) {
    return {
      user: ctx.user,
      verb: info.verb,
      resource: { group: info.group, resource: info.resource, subresource: info.subresource, namespace: info.namespace, name: info.name },
    };
  }
  return { user: ctx.user, verb: ctx.method.toLowerCase(), path: ctx.path };
}

/** Wall-clock arrival, from the monotonic stamp taken when the request came in. */
function arrivalTime(ctx: RequestContext): Date {
  return new Date(Date.now() - Number(process.hrtime.bigint() - ctx.startedAt) / 1e6);
}

/** RFC 3339 with microseconds, as `metav1.MicroTime` marshals. */
function microTime(at: Date): string {
  return at.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

function baseEvent(ctx: RequestContext, decision: AuditDecision, user: User | undefined, received: Date): Record<string, unknown> {
  const info = ctx.info;
  const forwarded = String(ctx.req.headers["x-forwarded-for"] ?? "")
    .split(",")
    .map((ip) => ip.trim())
    .filter(Boolean);
  const remote = ctx.req.socket.remoteAddress;
  return {
    kind: "Event",
    apiVersion: "audit.k8s.io/v1",
    level: decision.level,
    auditID: ctx.auditID,
    requestURI: ctx.req.url ?? ctx.path,
    verb: info?.isResourceRequest ? info.verb : ctx.method.toLowerCase(),
    user: user === undefined ? { username: "system:anonymous", groups: ["system:unauthenticated"] } : auditUser(user),
    sourceIPs: [...forwarded, ...(remote !== undefined && !forwarded.includes(remote) ? [remote] : [])],
    ...(ctx.req.headers["user-agent"] !== undefined ? { userAgent: ctx.req.headers["user-agent"] } : {}),
    ...(info?.isResourceRequest
      ? {
          objectRef: {
            resource: info.resource,
            ...(info.namespace !== undefined ? { namespace: info.namespace } : {}),
            ...(info.name !== "" ? { name: info.name } : {}),
            apiGroup: info.group,
            apiVersion: info.version,
            ...(info.subresource !== "" ? { subresource: info.subresource } : {}),
          },
        }
      : {}),
    requestReceivedTimestamp: microTime(received),
  };
}

/** The `ResponseComplete` fields: status, bodies the level asks for, and who was impersonated. */
async function completeEvent(
  ctx: RequestContext,
  decision: AuditDecision,
  user: User | undefined,
  response: Buffer | undefined,
): Promise<Record<string, unknown>> {
  const code = ctx.res.statusCode;
  const extra: Record<string, unknown> = {};
  const status = code >= 400 ? jsonOf(response) : undefined;
  extra["responseStatus"] =
    status !== undefined && status["kind"] === "Status"
      ? { metadata: {}, ...pick(status, ["status", "message", "reason", "details"]), code }
      : { metadata: {}, code };
  if (ctx.user !== undefined && user !== undefined && ctx.user.name !== user.name) {
    extra["impersonatedUser"] = auditUser(ctx.user);
  }
  if (decision.level === "Request" || decision.level === "RequestResponse") {
    const request = jsonOf(await bodyIfRead(ctx.req)?.catch(() => undefined), ctx.req.headers["content-type"]);
    if (request !== undefined) extra["requestObject"] = withoutManagedFields(request, decision.omitManagedFields);
  }
  if (decision.level === "RequestResponse" && code < 400) {
    const object = jsonOf(response, String(ctx.res.getHeader("content-type") ?? ""));
    if (object !== undefined) extra["responseObject"] = withoutManagedFields(object, decision.omitManagedFields);
  }
  return extra;
}

/** authentication/v1 `UserInfo` as audit events carry it. */
function auditUser(user: User): Record<string, unknown> {
  return {
    username: user.name,
    ...(user.uid ? { uid: user.uid } : {}),
    groups: user.groups,
    ...(user.extra !== undefined && Object.keys(user.extra).length > 0 ? { extra: user.extra } : {}),
  };
}

function pick(object: Record<string, unknown>, keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.filter((key) => object[key] !== undefined).map((key) => [key, object[key]]));
}

/** A JSON body as an object; anything else (YAML, protobuf, a truncated capture) is left out. */
function jsonOf(body: Buffer | undefined, contentType = "application/json"): Record<string, unknown> | undefined {
  if (body === undefined || body.length === 0 || !contentType.includes("json")) return undefined;
  try {
    const value = parseExactJson(body.toString("utf8"));
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function withoutManagedFields(object: Record<string, unknown>, omit: boolean): Record<string, unknown> {
  if (!omit) return object;
  const metadata = object["metadata"] as Record<string, unknown> | undefined;
  if (metadata?.["managedFields"] === undefined) return object;
  const { managedFields: _dropped, ...rest } = metadata;
  return { ...object, metadata: rest };
}

/**
 * Keeps a copy of what the response writes while `wanted()` says so (decided once the status is
 * known), up to a limit; `onHeaders` runs when the response begins.
 */
function captureResponse(res: ServerResponse, wanted: () => boolean): { body(): Buffer | undefined; onHeaders: () => void } {
  const chunks: Buffer[] = [];
  let size = 0;
  let keep: boolean | undefined;
  let overflow = false;
  const state = { onHeaders: () => {}, body: () => (keep && !overflow ? Buffer.concat(chunks) : undefined) };
  const record = (chunk: unknown, encoding?: unknown): void => {
    keep ??= wanted();
    if (!keep || overflow || chunk === undefined || chunk === null || typeof chunk === "function") return;
    // A copy: a streamed list reuses its write buffers once the socket has taken their bytes.
    const buffer = Buffer.isBuffer(chunk)
      ? Buffer.from(chunk)
      : typeof chunk === "string"
        ? Buffer.from(chunk, typeof encoding === "string" ? (encoding as BufferEncoding) : "utf8")
        : Buffer.from(chunk as Uint8Array);
    size += buffer.length;
    if (size > MAX_CAPTURED_RESPONSE_BYTES) {
      overflow = true;
      chunks.length = 0;
      return;
    }
    chunks.push(buffer);
  };
  const write = res.write.bind(res) as (...args: unknown[]) => boolean;
  const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
  const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
  res.writeHead = (...args: unknown[]) => {
    const result = writeHead(...args);
    state.onHeaders();
    return result;
  };
  res.write = ((...args: unknown[]) => {
    record(args[0], args[1]);
    return write(...args);
  }) as ServerResponse["write"];
  res.end = ((...args: unknown[]) => {
    record(args[0], args[1]);
    return end(...args);
  }) as ServerResponse["end"];
  return state;
}
