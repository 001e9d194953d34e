import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import { Server as NetServer, type AddressInfo } from "node:net";
import { ControlPlaneError } from "../api/errors/control-plane-error.js";
import type { ResourceDefinition } from "../registry/rest/resource-definition.js";
import type { ApiMetrics } from "../metrics/api-metrics.js";
import { DEFAULT_BODY_READ_IDLE_TIMEOUT_MS, DEFAULT_BODY_READ_TIMEOUT_MS, DEFAULT_MAX_BODY_BYTES, isBodyTimeout } from "./body.js";
import { answerClientError } from "./client-errors.js";
import { createContext, type RequestContext } from "./context.js";
import { ProtobufScheme, type ProtobufKinds } from "../protobuf/message-types.js";
import type { DiscoveryDocuments, OpenApiDocuments } from "./documents.js";
import type { HandlerEnv } from "./handler-env.js";
import type { HealthCheck, HealthEndpoint } from "./health.js";
import type { Logger } from "./logger.js";
import { serveNonResource } from "./non-resource.js";
import type { ResourceRequestInfo } from "./request-info.js";
import { serveResource } from "./resource-handler.js";
import { requestScope, type RequestScope } from "./request-scope.js";
import type { ServedResource } from "./served-resource.js";
import { pathNotFound } from "../api/errors/index.js";
import { writeError } from "./handlers/responsewriters/status.js";
import { WatchTracker } from "./watch-tracker.js";
import type { FlowSchema, PriorityLevelConfiguration } from "./flowcontrol/defaults.js";
import { PriorityAndFairness } from "./flowcontrol/priority-and-fairness.js";
import { withAudit, type AuditOptions } from "./filters/audit.js";
import { withAuthentication } from "./filters/authentication.js";
import type { Authorizer, UserInfo } from "./access-reviews.js";
import { withAuthorization } from "./filters/authorization.js";
import { withBodyRead } from "./filters/body-read.js";
import { buildHandlerChain, type RequestFilter } from "./filters/chain.js";
import { withImpersonation } from "./filters/impersonation.js";
import { withAdmissionRequestContext } from "./filters/admission-context.js";
import { withMaxInFlight } from "./filters/max-in-flight.js";
import { withPriorityAndFairness } from "./filters/priority-and-fairness.js";
import { withRequestInfo } from "./filters/request-info.js";
import { withRequestLog } from "./filters/request-log.js";
import { withRetryAfter } from "./filters/retry-after.js";
import { withStages, type HandlerStage } from "./filters/stages.js";
import { DEFAULT_REQUEST_TIMEOUT_MS, withRequestTimeout } from "./filters/timeout.js";
import { NonLongRunningRequests, withWaitGroup } from "./filters/wait-group.js";

export type { HandlerStage } from "./filters/stages.js";

export interface ApiServerOptions {
  resources?: readonly ServedResource[];
  /** Audit events of requests the policy levels above `None` (kube-apiserver's `--audit-policy-file` and log backend). */
  audit?: AuditOptions;
  discovery?: DiscoveryDocuments;
  openapi?: OpenApiDocuments;
  /**
   * Builds discovery and OpenAPI documents for the served definitions. When given, the documents
   * are rebuilt (lazily, on the next request) whenever `addResource`/`removeResource` changes
   * what is served; `discovery` and `openapi` above are then ignored.
   */
  documents?: (definitions: ResourceDefinition[]) => { discovery?: DiscoveryDocuments; openapi?: OpenApiDocuments };
  /** Called after `addResource` or `removeResource` changed the served set (e.g. to register its APIServices). */
  onResourcesChanged?: () => void;
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
   * Authorizes every request after flow control (403 Forbidden when not allowed), and decides
   * whether the authenticated user may act as another (`impersonate` on users, groups,
   * serviceaccounts, uids and userextras). Unset: every request is allowed and impersonation
   * headers are refused (403).
   */
  authorizer?: Authorizer;
  /**
   * Serve HTTPS instead of plain HTTP (kube-apiserver's `--tls-cert-file`/`--tls-private-key-file`):
   * PEM certificate chain and key. With `clientCA` (`--client-ca-file`) clients are asked for a
   * certificate, which is verified against it; a request without one is still served (other
   * credentials, or anonymous), so certificates are requested, not required.
   */
  tls?: TlsServingOptions;
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
  /**
   * kube-apiserver's `--request-timeout`: a request that is not a watch must finish within this many
   * milliseconds (or its shorter `timeout` query parameter) or gets 504 Timeout. Default 60000; 0
   * leaves only the `timeout` parameter.
   */
  requestTimeoutMs?: number;
  /** Watches without `timeoutSeconds` last between this and twice this (kube-apiserver's `--min-request-timeout`, 1800). */
  minRequestTimeoutSeconds?: number;
  /**
   * kube-apiserver's `--shutdown-delay-duration`: on `close()`, `/readyz` fails at once but requests
   * are served normally for this long, so load balancers stop sending here first. Default 0.
   */
  shutdownDelayMs?: number;
}

export interface TlsServingOptions {
  /** PEM serving certificate (chain). */
  cert: string | Buffer;
  /** PEM private key of `cert`. */
  key: string | Buffer;
  /** PEM CA bundle client certificates are verified against; requests them from clients when set. */
  clientCA?: string | Buffer;
  /** More certificates chosen by the name a client asks for (SNI), e.g. the loopback client's. */
  sniCertificates?: Readonly<Record<string, { cert: string | Buffer; key: string | Buffer }>>;
}

/**
 * The most request-line and header bytes a request may carry: kube-apiserver's serving
 * `http.Server` sets `MaxHeaderBytes: 1 << 20`, where node's default (16 KiB) would answer 431 to
 * requests Kubernetes serves, such as long impersonation or bearer-token headers.
 */
const MAX_HEADER_BYTES = 1 << 20;
/** The listen backlog asked for; the kernel caps it at net.core.somaxconn (Go asks for that value). */
const LISTEN_BACKLOG = 65_535;

function resourceKey(group: string, version: string, plural: string): string {
  return `${group}/${version}/${plural}`;
}

/**
 * The HTTP front of the control plane: a node:http server whose handler chain runs the filters of
 * `server/filters` in kube-apiserver's order (`DefaultBuildHandlerChain`), then dispatches to a
 * resource handler (`server/handlers`) or a non-resource endpoint:
 * `request-info → request-log → retry-after → wait-group → authentication → audit → impersonation →
 * body-read → priority-and-fairness | max-in-flight → authorization → [stages] → dispatch`.
 * Errors from any stage are answered as their Status.
 */
export class ApiServer {
  /** The request scope of each served resource, built when it is added. */
  readonly #resources = new Map<string, RequestScope>();
  readonly #env: HandlerEnv;
  readonly #flowControl: PriorityAndFairness | undefined;
  readonly #options: ApiServerOptions;
  readonly #health: Record<HealthEndpoint, readonly HealthCheck[]>;
  readonly #server: Server | HttpsServer;
  readonly #nonLongRunning = new NonLongRunningRequests();
  /** The kinds this server reads and writes as protobuf; registrations stay with this server. */
  readonly #protobuf = new ProtobufScheme();
  readonly #chain: (ctx: RequestContext) => Promise<void>;
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
      watches: new WatchTracker((watch, delta) =>
        metrics?.watchers.inc({ group: watch.group, version: watch.version, kind: watch.kind }, delta),
      ),
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
    this.#chain = buildHandlerChain(this.#filters(), (ctx) => this.#dispatch(ctx));
    const listener = (req: IncomingMessage, res: ServerResponse) => void this.handle(req, res);
    const tls = options.tls;
    this.#server =
      tls === undefined
        ? createServer({ keepAliveTimeout: 65_000, maxHeaderSize: MAX_HEADER_BYTES }, listener)
        : createHttpsServer(
            {
              keepAliveTimeout: 65_000,
              maxHeaderSize: MAX_HEADER_BYTES,
              cert: tls.cert,
              key: tls.key,
              ...(tls.clientCA === undefined ? {} : { ca: tls.clientCA, requestCert: true, rejectUnauthorized: false }),
            },
            listener,
          );
    this.#server.on("clientError", answerClientError);
    if (tls !== undefined && "addContext" in this.#server) {
      // Each SNI name gets its own certificate (client certificates still verified against the client CA); others the default.
      for (const [name, pair] of Object.entries(tls.sniCertificates ?? {})) {
        this.#server.addContext(name, { cert: pair.cert, key: pair.key, ...(tls.clientCA === undefined ? {} : { ca: tls.clientCA }) });
      }
    }
  }

  /** Starts serving a resource type (also the seam for resources added at run time, e.g. CRDs). */
  addResource(served: ServedResource): void {
    const { group, version, plural } = served.definition;
    const key = resourceKey(group, version, plural);
    this.#resources.set(key, requestScope(served));
    this.#documents = undefined;
    this.#options.onResourcesChanged?.();
  }

  /** Stops serving a resource type; its open watches end (clients relist and get 404). */
  removeResource(group: string, version: string, plural: string): void {
    const key = resourceKey(group, version, plural);
    const served = this.#resources.get(key);
    if (served !== undefined) this.#env.watches.endOf(group, version, served.definition.kind);
    this.#resources.delete(key);
    this.#documents = undefined;
    this.#options.onResourcesChanged?.();
  }

  /** Rebuilds discovery and OpenAPI on the next request, e.g. after an extension server's APIs changed. */
  invalidateDocuments(): void {
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

  /** Whether the server speaks HTTPS. */
  get secure(): boolean {
    return this.#options.tls !== undefined;
  }

  get httpServer(): Server | HttpsServer {
    return this.#server;
  }

  /**
   * Listens on `host:port`; a port that cannot be had fails as kube-apiserver words it. The queue of
   * connections not yet accepted is as long as the kernel allows (net.core.somaxconn), as Go's
   * listener makes it for kube-apiserver, rather than Node's 511: a busy Node server accepts one
   * connection per turn of its event loop, and handshakes past the queue are dropped and retried by
   * the client only after 1, 3, 7 ... s.
   */
  listen(port: number, host: string): Promise<AddressInfo> {
    return new Promise((resolve, reject) => {
      this.#server.once("error", (error) => reject(listenError(error, host, port)));
      this.#server.listen({ port, host, backlog: LISTEN_BACKLOG }, () => {
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
    await this.#nonLongRunning.drained(timeoutMs);
    this.#server.closeIdleConnections();
    const force = setTimeout(() => this.#server.closeAllConnections(), Math.min(timeoutMs, 1000));
    await closed;
    clearTimeout(force);
  }

  /** The filters every request passes, in kube-apiserver's order (outermost first). */
  #filters(): RequestFilter[] {
    const options = this.#options;
    const metrics = options.metrics;
    return [
      withRequestInfo(),
      withRequestLog({
        metrics,
        logger: options.logger,
        isServed: (info) => this.#resources.has(resourceKey(info.group, info.version, info.resource)),
      }),
      withRetryAfter(() => this.#draining),
      withWaitGroup(this.#nonLongRunning),
      withRequestTimeout(options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS),
      withAuthentication(options.authenticate),
      withAudit(options.audit),
      withImpersonation(options.authorizer),
      withAdmissionRequestContext(),
      withBodyRead({
        maxBytes: this.#env.maxBodyBytes,
        idleTimeoutMs: options.bodyReadIdleTimeoutMs ?? DEFAULT_BODY_READ_IDLE_TIMEOUT_MS,
        timeoutMs: options.bodyReadTimeoutMs ?? DEFAULT_BODY_READ_TIMEOUT_MS,
      }),
      ...(this.#flowControl ? [withPriorityAndFairness(this.#flowControl, { storedObjects: options.storedObjects })] : []),
      // With priority and fairness the seats are its own; max-in-flight then only counts requests.
      withMaxInFlight({
        limits: this.#flowControl
          ? undefined
          : { readOnly: options.maxRequestsInflight ?? 400, mutating: options.maxMutatingRequestsInflight ?? 200 },
        inflight: metrics?.inflightRequests,
      }),
      withAuthorization(options.authorizer),
      withStages(options.stages ?? []),
    ];
  }

  /**
   * Teaches this server's protobuf codec (request bodies of kubectl 1.32's typed creates,
   * protobuf-only responses) more kinds, for resources served from outside this package. Another
   * server in the same process does not learn them. Registering the same messages again changes
   * nothing; another message for a kind already known throws.
   */
  registerProtobufKinds(registration: ProtobufKinds): void {
    this.#protobuf.register(registration);
  }

  /** Handles one request; usable as a plain `(req, res)` listener in another server. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const ctx = createContext(req, res, this.#protobuf);
    // Like kube-apiserver: every response names its request, and the log line carries the same id.
    res.setHeader("Audit-Id", ctx.auditID);
    const logger = this.#options.logger;
    try {
      await this.#chain(ctx);
    } catch (error) {
      if (!(error instanceof ControlPlaneError) && logger) {
        logger({
          level: "error",
          msg: "request failed",
          path: ctx.path,
          error: error instanceof Error ? (error.stack ?? error.message) : String(error),
        });
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

  /** The end of the chain: a served resource's handler, or a non-resource endpoint. */
  async #dispatch(ctx: RequestContext): Promise<void> {
    const info = ctx.info!;
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
      metrics: this.#options.metrics,
    });
    if (!served) throw pathNotFound();
  }

  #serveResource(ctx: RequestContext, info: ResourceRequestInfo): Promise<void> {
    const key = resourceKey(info.group, info.version, info.resource);
    const scope = this.#resources.get(key);
    if (scope === undefined) throw pathNotFound();
    return serveResource(ctx, info, scope, this.#env);
  }
}

/** Go's text for the errors a listen most often meets. */
const SOCKET_ERRORS: Record<string, string> = {
  EADDRINUSE: "bind: address already in use",
  EACCES: "bind: permission denied",
  EADDRNOTAVAIL: "bind: cannot assign requested address",
};

/**
 * kube-apiserver's `failed to create listener: failed to listen on 127.0.0.1:6443: listen tcp
 * 127.0.0.1:6443: bind: address already in use`, the system error kept as the cause.
 */
function listenError(error: Error, host: string, port: number): Error {
  const code = (error as NodeJS.ErrnoException).code ?? "";
  const address = host.includes(":") ? `[${host}]:${port}` : `${host}:${port}`;
  const reason = SOCKET_ERRORS[code] ?? error.message;
  return new Error(`failed to create listener: failed to listen on ${address}: listen tcp ${address}: ${reason}`, { cause: error });
}
