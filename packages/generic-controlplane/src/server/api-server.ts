import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { Server as NetServer, type AddressInfo } from "node:net";
import { ControlPlaneError } from "../errors.js";
import type { ResourceDefinition } from "../registry/resource-definition.js";
import type { ApiMetrics, RequestLabels } from "../metrics/api-metrics.js";
import { DEFAULT_BODY_READ_IDLE_TIMEOUT_MS, DEFAULT_BODY_READ_TIMEOUT_MS, DEFAULT_MAX_BODY_BYTES, isBodyTimeout, readBody, type BodyReadLimits } from "./body.js";
import { createContext, type RequestContext } from "./context.js";
import type { DiscoveryDocuments, OpenApiDocuments } from "./documents.js";
import type { HandlerEnv } from "./handler-env.js";
import type { HealthCheck, HealthEndpoint } from "./health.js";
import type { Logger } from "./logger.js";
import { serveNonResource } from "./non-resource.js";
import { parseRequestInfo, type RequestInfo, type ResourceRequestInfo } from "./request-info.js";
import { serveResource } from "./resource-handler.js";
import { requestScope, type RequestScope } from "./request-scope.js";
import type { ServedResource } from "./served-resource.js";
import { pathNotFound, shuttingDown, tooManyInFlight } from "../api/errors/index.js";
import { writeError } from "./status.js";
import { WatchTracker } from "./watch-tracker.js";
import { ANONYMOUS, type UserInfo } from "./access-reviews.js";
import type { FlowSchema, PriorityLevelConfiguration } from "./flowcontrol/defaults.js";
import { PriorityAndFairness } from "./flowcontrol/priority-and-fairness.js";
import { estimateSeats } from "./flowcontrol/work-estimate.js";

/**
 * A stage of the handler chain, run in order for every request after the request has been
 * parsed (`ctx.info`) and before it is dispatched. This is where authentication,
 * authorization, impersonation, priority-and-fairness and audit plug in. A stage that answers the
 * request itself (e.g. 401) returns true; one that throws a ControlPlaneError answers its Status.
 */
export interface HandlerStage {
  name: string;
  handle(ctx: RequestContext): Promise<boolean | void> | boolean | void;
}

export interface ApiServerOptions {
  resources?: readonly ServedResource[];
  discovery?: DiscoveryDocuments;
  openapi?: OpenApiDocuments;
  /**
   * Builds discovery and OpenAPI documents for the served definitions. When given, the documents
   * are rebuilt (lazily, on the next request) whenever `addResource`/`removeResource` changes
   * what is served; `discovery` and `openapi` above are then ignored.
   */
  documents?: (definitions: ResourceDefinition[]) => { discovery?: DiscoveryDocuments; openapi?: OpenApiDocuments };
  /** The `/version` body (version.Info). */
  version: unknown;
  health?: Partial<Record<HealthEndpoint, readonly HealthCheck[]>>;
  metrics?: ApiMetrics;
  logger?: Logger;
  stages?: readonly HandlerStage[];
  maxBodyBytes?: number;
  /**
   * Deadlines for receiving a request body: no byte for `bodyReadIdleTimeoutMs` (default 10 s) or
   * no complete body after `bodyReadTimeoutMs` (default 60 s, kube-apiserver's request timeout)
   * answers 408 and closes the connection. Bodies are read before the request takes an in-flight
   * seat, so clients that send slowly cannot lock others out. 0 turns a deadline off.
   */
  bodyReadIdleTimeoutMs?: number;
  bodyReadTimeoutMs?: number;
  /**
   * Who sent the request (the authentication filter's place in the chain): runs before flow
   * control and sets `ctx.user`. Without it every request is `system:anonymous`.
   */
  authenticate?: (ctx: RequestContext) => UserInfo | undefined | Promise<UserInfo | undefined>;
  /**
   * API Priority and Fairness (kube-apiserver's `--enable-priority-and-fairness`, default true):
   * requests are classified by FlowSchemas into priority levels that share
   * `maxRequestsInflight + maxMutatingRequestsInflight` seats, with fair queues per flow. When
   * false, the two max-in-flight limits below apply instead.
   */
  enablePriorityAndFairness?: boolean;
  /**
   * How many objects a resource holds, for flow control's work estimate (a LIST of many objects
   * takes up to 10 seats). Undefined: every request takes one seat.
   */
  storedObjects?: (group: string, resource: string) => Promise<number | undefined>;
  /** The FlowSchemas and priority levels; default upstream's mandatory and suggested ones. */
  flowSchemas?: readonly FlowSchema[];
  priorityLevels?: readonly PriorityLevelConfiguration[];
  /**
   * In-flight limits like kube-apiserver's `--max-requests-inflight` (400) and
   * `--max-mutating-requests-inflight` (200): requests beyond them get 429 TooManyRequests with
   * `Retry-After: 1`. Watches do not count. 0 turns a limit off. With priority and fairness
   * enabled they only size its seats (their sum).
   */
  maxRequestsInflight?: number;
  maxMutatingRequestsInflight?: number;
  /** Watches without `timeoutSeconds` last between this and twice this (kube-apiserver's `--min-request-timeout`, 1800). */
  minRequestTimeoutSeconds?: number;
  /**
   * kube-apiserver's `--shutdown-delay-duration`: on `close()`, `/readyz` fails at once but requests
   * are served normally for this long, so load balancers stop sending here first. Default 0.
   */
  shutdownDelayMs?: number;
}

/** Health probes and metrics are answered during the drain, so probes see the real state. */
const DRAIN_EXEMPT_PATHS = /^\/(readyz|livez|healthz|metrics)(\/|$)/;

const READ_VERBS = new Set(["get", "list", "watch"]);

function resourceKey(group: string, version: string, plural: string): string {
  return `${group}/${version}/${plural}`;
}

/**
 * The HTTP front of the control plane: a node:http server with the handler chain
 * `request-info → authenticate → body read → flow control (priority and fairness, or max-in-flight) →
 * [stages] → dispatch (non-resource | resource)`, where
 * metrics and the request log are written when each response finishes.
 */
export class ApiServer {
  /** The request scope of each served resource, built when it is added. */
  readonly #resources = new Map<string, RequestScope>();
  readonly #env: HandlerEnv;
  readonly #bodyLimits: BodyReadLimits;
  readonly #flowControl: PriorityAndFairness | undefined;
  readonly #options: ApiServerOptions;
  readonly #health: Record<HealthEndpoint, readonly HealthCheck[]>;
  readonly #server: Server;
  readonly #inflight = new Set<ServerResponse>();
  readonly #inflightByKind = { readOnly: 0, mutating: 0 };
  #drained: (() => void) | undefined;
  #documents: { discovery?: DiscoveryDocuments; openapi?: OpenApiDocuments } | undefined;
  #shuttingDown = false;
  /** Set once the shutdown delay is over: new requests get 429 while in-flight ones finish. */
  #draining = false;

  constructor(options: ApiServerOptions) {
    this.#options = options;
    const metrics = options.metrics;
    this.#env = {
      maxBodyBytes: options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      minRequestTimeoutSeconds: options.minRequestTimeoutSeconds ?? 1800,
      watches: new WatchTracker((watch, delta) => metrics?.watchers.inc({ group: watch.group, version: watch.version, kind: watch.kind }, delta)),
    };
    this.#bodyLimits = {
      maxBytes: this.#env.maxBodyBytes,
      idleTimeoutMs: options.bodyReadIdleTimeoutMs ?? DEFAULT_BODY_READ_IDLE_TIMEOUT_MS,
      timeoutMs: options.bodyReadTimeoutMs ?? DEFAULT_BODY_READ_TIMEOUT_MS,
    };
    this.#flowControl =
      options.enablePriorityAndFairness === false
        ? undefined
        : new PriorityAndFairness({
            serverConcurrencyLimit: Math.max(1, (options.maxRequestsInflight ?? 400) + (options.maxMutatingRequestsInflight ?? 200)),
            ...(options.flowSchemas ? { flowSchemas: options.flowSchemas } : {}),
            ...(options.priorityLevels ? { priorityLevels: options.priorityLevels } : {}),
            ...(metrics ? { registry: metrics.registry } : {}),
          });
    const shutdown: HealthCheck = {
      name: "shutdown",
      check: () => {
        if (this.#shuttingDown) throw new Error("server is shutting down");
      },
    };
    const health = options.health ?? {};
    this.#health = {
      healthz: health.healthz ?? [],
      livez: health.livez ?? [],
      readyz: [...(health.readyz ?? []), shutdown],
    };
    for (const served of options.resources ?? []) this.addResource(served);
    this.#server = createServer({ keepAliveTimeout: 65_000 }, (req, res) => void this.handle(req, res));
  }

  /** Starts serving a resource type (also the seam for resources added at run time, e.g. CRDs). */
  addResource(served: ServedResource): void {
    const { group, version, plural } = served.definition;
    const key = resourceKey(group, version, plural);
    this.#resources.set(key, requestScope(served));
    this.#documents = undefined;
  }

  /** Stops serving a resource type; its open watches end (clients relist and get 404). */
  removeResource(group: string, version: string, plural: string): void {
    const key = resourceKey(group, version, plural);
    const served = this.#resources.get(key);
    if (served !== undefined) this.#env.watches.endOf(group, version, served.definition.kind);
    this.#resources.delete(key);
    this.#documents = undefined;
  }

  /** The definitions served now, in the order they were added. */
  get definitions(): ResourceDefinition[] {
    return [...this.#resources.values()].map((scope) => scope.definition);
  }

  #currentDocuments(): { discovery?: DiscoveryDocuments; openapi?: OpenApiDocuments } {
    const build = this.#options.documents;
    if (build === undefined) {
      const fixed: { discovery?: DiscoveryDocuments; openapi?: OpenApiDocuments } = {};
      if (this.#options.discovery) fixed.discovery = this.#options.discovery;
      if (this.#options.openapi) fixed.openapi = this.#options.openapi;
      return fixed;
    }
    return (this.#documents ??= build(this.definitions));
  }

  resource(group: string, version: string, plural: string): ServedResource | undefined {
    const scope = this.#resources.get(resourceKey(group, version, plural));
    return scope === undefined ? undefined : { definition: scope.definition, store: scope.store, subresources: scope.subresources };
  }

  /** API Priority and Fairness, when enabled: `configure()` applies FlowSchemas and priority levels. */
  get flowControl(): PriorityAndFairness | undefined {
    return this.#flowControl;
  }

  get watchCount(): number {
    return this.#env.watches.size;
  }

  get httpServer(): Server {
    return this.#server;
  }

  listen(port: number, host: string): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      this.#server.once("error", reject);
      this.#server.listen(port, host, () => {
        this.#server.off("error", reject);
        resolve(this.#server.address() as AddressInfo);
      });
    });
  }

  /**
   * Graceful shutdown, in kube-apiserver's order: `/readyz` fails at once; requests are served
   * for `shutdownDelayMs`; then the listener closes, open watches end cleanly (clients re-watch
   * elsewhere), new requests on kept-alive connections get 429 with `Retry-After: 5` and
   * `Connection: close` (upstream's `--shutdown-send-retry-after`), in-flight requests finish (up to
   * `timeoutMs`), and the remaining connections close.
   */
  async close(timeoutMs = 10_000): Promise<void> {
    this.#shuttingDown = true;
    const delay = this.#options.shutdownDelayMs ?? 0;
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    this.#draining = true;
    // net.Server's close stops accepting connections but, unlike http.Server's, leaves kept-alive
    // ones open, so a request sent on one gets the 429 above rather than a reset.
    const closed = new Promise<void>((resolve) => NetServer.prototype.close.call(this.#server, () => resolve()));
    this.#env.watches.endAll();
    if (this.#inflight.size > 0) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, timeoutMs);
        this.#drained = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    this.#server.closeIdleConnections();
    const force = setTimeout(() => this.#server.closeAllConnections(), Math.min(timeoutMs, 1000));
    await closed;
    clearTimeout(force);
  }

  /** Handles one request; usable as a plain `(req, res)` listener in another server. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const ctx = createContext(req, res);
    // Like kube-apiserver: every response names its request, and the log line carries the same id.
    res.setHeader("Audit-Id", ctx.auditID);
    const metrics = this.#options.metrics;
    const logger = this.#options.logger;
    let mutating = false;
    if (metrics || logger) res.once("finish", () => this.#record(ctx, mutating));
    res.once("close", () => {
      if (!res.writableFinished && (metrics || logger)) this.#record(ctx, mutating);
    });
    try {
      if (this.#draining && !DRAIN_EXEMPT_PATHS.test(ctx.path)) {
        res.setHeader("Connection", "close");
        throw shuttingDown();
      }
      const info = parseRequestInfo(ctx.method, ctx.path, ctx.query);
      ctx.info = info;
      mutating = info.isResourceRequest && !READ_VERBS.has(info.verb);
      if (this.#options.authenticate) ctx.user = (await this.#options.authenticate(ctx)) ?? undefined;
      const isWatch = info.isResourceRequest && info.verb === "watch";
      if (!isWatch) this.#track(res);
      // The body arrives before the request takes a seat: a client sending slowly (or never
      // finishing) waits on its own socket, not in a seat other writers need.
      if (mutating) await readBody(ctx.req, this.#bodyLimits);
      if (this.#flowControl) {
        await this.#admit(ctx, info, isWatch);
      } else if (info.isResourceRequest && !isWatch) {
        this.#checkInflightLimit(mutating);
      }
      if (!isWatch) this.#seat(res, mutating);
      for (const stage of this.#options.stages ?? []) {
        if ((await stage.handle(ctx)) === true) return;
      }
      if (info.isResourceRequest) {
        await this.#serveResource(ctx, info);
        return;
      }
      const documents = this.#currentDocuments();
      const served = await serveNonResource(ctx, info.segments, {
        version: this.#options.version,
        discovery: documents.discovery,
        openapi: documents.openapi,
        health: this.#health,
        metrics,
      });
      if (!served) throw pathNotFound();
    } catch (error) {
      if (!(error instanceof ControlPlaneError) && logger) {
        logger({ level: "error", msg: "request failed", path: ctx.path, error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
      }
      // The rest of a body that never came cannot be skipped: the connection is done.
      if (isBodyTimeout(error) && !res.headersSent) res.setHeader("Connection", "close");
      try {
        writeError(ctx, error);
      } catch (writeFailure) {
        // Nothing sensible can be sent any more; never let one request take the server down.
        logger?.({ level: "error", msg: "response failed", path: ctx.path, error: String(writeFailure) });
        res.destroy();
      }
    }
  }

  #serveResource(ctx: RequestContext, info: ResourceRequestInfo): Promise<void> {
    const key = resourceKey(info.group, info.version, info.resource);
    const scope = this.#resources.get(key);
    if (scope === undefined) throw pathNotFound();
    return serveResource(ctx, info, scope, this.#env);
  }

  /**
   * Waits for a seat in the request's priority level and holds it until the response closes (a
   * watch: until it is initialized). Answers the `X-Kubernetes-PF-*` headers, rejections included.
   */
  async #admit(ctx: RequestContext, info: RequestInfo, isWatch: boolean): Promise<void> {
    const { res } = ctx;
    const cancelled = new AbortController();
    const onClose = (): void => cancelled.abort();
    res.once("close", onClose);
    // Only a LIST or a watch's initial listing is charged by collection size.
    const sized = info.isResourceRequest && (info.verb === "list" || info.verb === "watch");
    const stored = sized && this.#options.storedObjects ? await this.#options.storedObjects(info.group, info.resource) : undefined;
    const admission = await this.#flowControl!.admit(ctx.user ?? ANONYMOUS, info, ctx.method, ctx.path, {
      cancelled: cancelled.signal,
      seats: estimateSeats(info, ctx.query, stored),
      onClassified: ({ flowSchema, priorityLevel }) => {
        res.setHeader("X-Kubernetes-PF-FlowSchema-UID", flowSchema.metadata.uid);
        res.setHeader("X-Kubernetes-PF-PriorityLevel-UID", priorityLevel.metadata.uid);
      },
    });
    res.off("close", onClose);
    if (res.destroyed) {
      admission.release();
      return;
    }
    const release = (): void => admission.release();
    res.once("close", release);
    if (isWatch) ctx.watchInitialized = release;
  }

  #checkInflightLimit(mutating: boolean): void {
    const limit = mutating ? (this.#options.maxMutatingRequestsInflight ?? 200) : (this.#options.maxRequestsInflight ?? 400);
    if (limit > 0 && this.#inflightByKind[mutating ? "mutating" : "readOnly"] >= limit) {
      throw tooManyInFlight();
    }
  }

  /** Counts the request for the shutdown drain (every non-watch request, seated or not). */
  #track(res: ServerResponse): void {
    if (this.#inflight.has(res)) return;
    this.#inflight.add(res);
    res.once("close", () => {
      this.#inflight.delete(res);
      if (this.#inflight.size === 0) this.#drained?.();
    });
  }

  /** Holds an in-flight seat of the request's kind until its response closes. */
  #seat(res: ServerResponse, mutating: boolean): void {
    const kind = mutating ? "mutating" : "readOnly";
    this.#inflightByKind[kind]++;
    const gauge = this.#options.metrics?.inflightByKind[kind];
    gauge?.inc();
    res.once("close", () => {
      this.#inflightByKind[kind]--;
      gauge?.dec();
    });
  }

  #recorded = new WeakSet<RequestContext>();

  #record(ctx: RequestContext, mutating: boolean): void {
    if (this.#recorded.has(ctx)) return;
    this.#recorded.add(ctx);
    const seconds = Number(process.hrtime.bigint() - ctx.startedAt) / 1e9;
    const code = ctx.res.statusCode;
    const info = ctx.info;
    // Paths of resources that are not served stay out of the resource labels: arbitrary URLs must not grow the series.
    const served = info !== undefined && info.isResourceRequest && this.#resources.has(resourceKey(info.group, info.version, info.resource));
    const labels = metricLabels(ctx, served && info.isResourceRequest ? info : undefined);
    this.#options.metrics?.observe(labels, code, seconds);
    this.#options.logger?.({
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
      mutating,
    });
  }
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
