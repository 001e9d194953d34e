import { createHash } from "node:crypto";
import type { RequestContext } from "./context.js";
import type { DiscoveryDocuments, OpenApiDocuments } from "./documents.js";
import { runHealthChecks, type HealthCheck, type HealthEndpoint } from "./health.js";
import { acceptsJson, negotiateDiscovery, parseAccept } from "./handlers/negotiation/negotiation.js";
import { writeJson } from "./handlers/responsewriters/respond.js";
import { methodNotAllowed, notAcceptable, pathNotFound } from "../api/errors/index.js";
import type { ApiMetrics } from "../metrics/api-metrics.js";

export interface NonResourceEnv {
  version: unknown;
  discovery: DiscoveryDocuments | undefined;
  openapi: OpenApiDocuments | undefined;
  health: Record<HealthEndpoint, readonly HealthCheck[]>;
  metrics: ApiMetrics | undefined;
}

const OPENAPI_V2_PROTOBUF = "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";
const AGGREGATED = {
  v2: "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList",
  v2beta1: "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList",
} as const;

/** Serves `/version`, discovery, OpenAPI, health and metrics. Returns false when the path is none of them. */
export async function serveNonResource(ctx: RequestContext, segments: string[], env: NonResourceEnv): Promise<boolean> {
  const head = segments[0];
  const accept = ctx.req.headers.accept;
  if (ctx.method !== "GET" && ctx.method !== "HEAD") {
    if (head === "api" || head === "apis" || head === "version" || head === "openapi" || head === "metrics") throw methodNotAllowedFor(ctx);
    return false;
  }
  switch (head) {
    case undefined:
      // `GET /`: the served paths, as kube-apiserver's index lists them.
      writeJson(ctx, 200, { paths: rootPaths(env) });
      return true;
    case "version":
      if (segments.length !== 1) return false;
      writeJson(ctx, 200, env.version);
      return true;
    case "healthz":
    case "livez":
    case "readyz": {
      const result = await runHealthChecks(head, env.health[head], segments.slice(1).join("/"), ctx.query);
      ctx.res.writeHead(result.code, {
        "Content-Type": "text/plain; charset=utf-8",
        "X-Content-Type-Options": "nosniff",
        "Cache-Control": "no-cache, private",
      });
      ctx.res.end(result.body);
      return true;
    }
    case "metrics": {
      if (!env.metrics || segments.length !== 1) return false;
      const { contentType, body } = await env.metrics.render();
      ctx.res.writeHead(200, { "Content-Type": contentType });
      ctx.res.end(body);
      return true;
    }
    case "api":
    case "apis":
      return serveDiscovery(ctx, head, segments, env.discovery, accept);
    case "openapi":
      return serveOpenApi(ctx, segments, env.openapi, accept);
    default:
      return false;
  }
}

function methodNotAllowedFor(ctx: RequestContext) {
  return methodNotAllowed(ctx.method, ctx.path);
}

function rootPaths(env: NonResourceEnv): string[] {
  const paths = ["/healthz", "/livez", "/readyz", "/version"];
  if (env.metrics) paths.push("/metrics");
  if (env.openapi) paths.push("/openapi/v2", "/openapi/v3");
  const discovery = env.discovery;
  if (discovery) {
    paths.push("/api", "/apis");
    for (const version of (discovery.legacyVersions() as { versions?: string[] }).versions ?? []) paths.push(`/api/${version}`);
    for (const group of (discovery.groupList() as { groups?: Array<{ name: string; versions: Array<{ groupVersion: string }> }> }).groups ??
      []) {
      paths.push(`/apis/${group.name}`);
      for (const version of group.versions) paths.push(`/apis/${version.groupVersion}`);
    }
  }
  return paths.sort();
}

function serveDiscovery(
  ctx: RequestContext,
  head: "api" | "apis",
  segments: string[],
  discovery: DiscoveryDocuments | undefined,
  accept: string | undefined,
): boolean {
  if (!discovery) return false;
  if (segments.length === 1) {
    const negotiated = negotiateDiscovery(accept);
    if (negotiated === undefined) throw notAcceptable();
    if (negotiated !== "legacy") {
      writeJsonEtag(ctx, discovery.aggregated(head, negotiated), AGGREGATED[negotiated]);
      return true;
    }
    writeJsonEtag(ctx, head === "api" ? discovery.legacyVersions() : discovery.groupList(), "application/json");
    return true;
  }
  if (!acceptsJson(accept)) throw notAcceptable();
  let body: unknown;
  if (head === "api" && segments.length === 2) body = discovery.resourceList("", segments[1] as string);
  else if (head === "apis" && segments.length === 2) body = discovery.group(segments[1] as string);
  else if (head === "apis" && segments.length === 3) body = discovery.resourceList(segments[1] as string, segments[2] as string);
  if (body === undefined) throw pathNotFound();
  writeJson(ctx, 200, body);
  return true;
}

/** Aggregated discovery carries an ETag so clients can revalidate cheaply, as kube-apiserver does. */
function writeJsonEtag(ctx: RequestContext, body: unknown, contentType: string): void {
  const text = JSON.stringify(body) + "\n";
  const etag = `"${createHash("sha256").update(text).digest("hex").slice(0, 32)}"`;
  if (ctx.req.headers["if-none-match"] === etag) {
    ctx.res.writeHead(304, { ETag: etag, "Content-Type": contentType });
    ctx.res.end();
    return;
  }
  ctx.res.writeHead(200, {
    "Content-Type": contentType,
    ETag: etag,
    "Cache-Control": "no-cache, private",
    Vary: "Accept",
    "Content-Length": Buffer.byteLength(text),
  });
  ctx.res.end(ctx.method === "HEAD" ? undefined : text);
}

function serveOpenApi(ctx: RequestContext, segments: string[], openapi: OpenApiDocuments | undefined, accept: string | undefined): boolean {
  if (!openapi) return false;
  const version = segments[1];
  if (version === "v2" && segments.length === 2) {
    if (wantsProtobufV2(accept)) {
      const bytes = openapi.v2Protobuf();
      ctx.res.writeHead(200, {
        "Content-Type": OPENAPI_V2_PROTOBUF,
        "Content-Length": bytes.byteLength,
        "Cache-Control": "no-cache, private",
      });
      ctx.res.end(ctx.method === "HEAD" ? undefined : bytes);
      return true;
    }
    const json = openapi.v2Json();
    ctx.res.writeHead(200, {
      "Content-Type": "application/json",
      "Content-Length": Buffer.byteLength(json),
      "Cache-Control": "no-cache, private",
    });
    ctx.res.end(ctx.method === "HEAD" ? undefined : json);
    return true;
  }
  if (version !== "v3") return false;
  if (segments.length === 2) {
    writeJson(ctx, 200, openapi.v3Index());
    return true;
  }
  const doc = openapi.v3Document(segments.slice(2).join("/"));
  if (doc === undefined) throw pathNotFound();
  const hash = ctx.query.get("hash");
  const etag = `"${doc.hash}"`;
  const headers: Record<string, string | number> = {
    "Content-Type": "application/json",
    ETag: etag,
    "Content-Length": Buffer.byteLength(doc.json),
  };
  // A request carrying the current hash may cache for a long time: the URL changes with the content.
  headers["Cache-Control"] = hash === doc.hash ? "public, immutable, max-age=31536000" : "no-cache, private";
  if (ctx.req.headers["if-none-match"] === etag) {
    ctx.res.writeHead(304, { ETag: etag });
    ctx.res.end();
    return true;
  }
  ctx.res.writeHead(200, headers);
  ctx.res.end(ctx.method === "HEAD" ? undefined : doc.json);
  return true;
}

function wantsProtobufV2(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  for (const range of parseAccept(accept)) {
    if (range.type.startsWith("application/com.github.proto-openapi.spec.v2")) return true;
    if (range.type === "application/json" || range.type === "*/*") return false;
  }
  return false;
}
