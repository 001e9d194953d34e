import type { ApiMetrics, RequestLabels } from "../../metrics/api-metrics.js";
import type { RequestContext } from "../context.js";
import type { Logger } from "../logger.js";
import type { ResourceRequestInfo } from "../request-info.js";
import type { RequestFilter } from "./chain.js";
import { isMutating } from "./long-running.js";

export interface RequestLogOptions {
  metrics?: ApiMetrics | undefined;
  logger?: Logger | undefined;
  /** Whether the request addresses a served resource; other paths stay out of the resource labels. */
  isServed: (info: ResourceRequestInfo) => boolean;
}

/**
 * upstream `WithHTTPLogging` and `WithLatencyTrackers`: when the response is done (finished, or
 * cut short by the connection closing), the request is counted in the request metrics and logged
 * once, with its `Audit-Id`.
 */
export function withRequestLog(options: RequestLogOptions): RequestFilter {
  const { metrics, logger } = options;
  const record = (ctx: RequestContext): void => {
    const seconds = Number(process.hrtime.bigint() - ctx.startedAt) / 1e9;
    const code = ctx.res.statusCode;
    const info = ctx.info;
    // Arbitrary URLs must not grow the series.
    const served = info !== undefined && info.isResourceRequest && options.isServed(info);
    const labels = metricLabels(ctx, served && info.isResourceRequest ? info : undefined);
    metrics?.observe(labels, code, seconds);
    logger?.({
      msg: "request",
      level: code >= 500 ? "error" : "info",
      auditID: ctx.auditID,
      verb: labels.verb,
      path: ctx.path,
      code,
      latencyMs: Math.round(seconds * 1e6) / 1e3,
      resource: labels.resource || undefined,
      namespace: info && info.isResourceRequest ? info.namespace : undefined,
      userAgent: ctx.req.headers["user-agent"],
      mutating: isMutating(info),
    });
  };
  return {
    name: "request-log",
    handle(ctx, next) {
      // A response emits "close" once, after "finish" or when the connection went first.
      if (metrics || logger) ctx.res.once("close", () => record(ctx));
      return next(ctx);
    },
  };
}

function metricLabels(ctx: RequestContext, info: ResourceRequestInfo | undefined): RequestLabels {
  if (info === undefined) {
    return { verb: ctx.method, dry_run: "", group: "", version: "", resource: "", subresource: "", scope: "", component: "apiserver" };
  }
  let verb: string;
  switch (info.verb) {
    case "create":
      verb = "POST";
      break;
    case "update":
      verb = "PUT";
      break;
    case "patch":
      verb = ctx.req.headers["content-type"]?.startsWith("application/apply-patch") ? "APPLY" : "PATCH";
      break;
    default:
      verb = info.verb.toUpperCase();
  }
  return {
    verb,
    dry_run: ctx.dryRun ? "All" : "",
    group: info.group,
    version: info.version,
    resource: info.resource,
    subresource: info.subresource,
    scope: info.name !== "" ? "resource" : info.namespace !== undefined ? "namespace" : "cluster",
    component: "apiserver",
  };
}
